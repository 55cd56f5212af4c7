import { useEffect, useRef, useState } from 'preact/hooks';
import { onBack, onChange, UNREACHABLE, type ChangeOptions, type GraphqlError } from './api.ts';

export interface Loaded<T> {
  data?: T;
  error?: string;
  /** Reads again; settles once that read is shown (or a newer one took its place). */
  reload(): Promise<void>;
}

/** Runs `load` now, whenever `deps` change, and again after events on the live stream (paced: see onChange). */
export function useLive<T>(load: () => Promise<T>, deps: unknown[], opts: ChangeOptions = {}): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const seq = useRef(0);
  const latest = useRef<Promise<void>>(Promise.resolve());
  const run = (): Promise<void> => {
    const mine = ++seq.current;
    // A read overtaken by a newer one is not shown: its caller waits for the newer one instead.
    const settled: Promise<void> = load().then(
      (data) => { if (mine === seq.current) setState({ data }); else return latest.current; },
      (err: Error) => { if (mine === seq.current) setState((s) => ({ data: s.data, error: err.message })); else return latest.current; },
    );
    latest.current = settled;
    return settled;
  };
  useEffect(() => {
    void run();
    return onChange(() => void run(), opts);
  }, deps);
  return { ...state, reload: run };
}

/** Said when the page itself changes the address (replaceHash): no hashchange fires for it. */
const REPLACED = 'svc:hashreplaced';

/**
 * Replaces the address's hash in place (no history entry, no hashchange), and tells useHash: its hash is then the
 * address again, so following the address it replaced (a link to it once more) is a change it sees.
 */
export function replaceHash(hash: string): void {
  history.replaceState(history.state, '', hash);
  dispatchEvent(new Event(REPLACED));
}

/** The current location hash, e.g. "#/issue/ENG-1" (as followed, or as replaceHash wrote it). */
export function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    addEventListener(REPLACED, on);
    on(); // an address followed between the first render and now (a link opened as the page loaded) was missed
    return () => { removeEventListener('hashchange', on); removeEventListener(REPLACED, on); };
  }, []);
  return hash;
}

/** What the page calls the fields its editors send, as the service names them in a 400's issues. */
const FIELD_NOUNS: Record<string, string> = { title: 'title', description: 'description', body: 'comment', name: 'name' };

/**
 * A field's refusal in plain words ("A title cannot be empty") rather than as the validator says it ("Too small:
 * expected string to have >=1 characters"); a reason with no plainer wording, or of another field, stays as it is.
 */
export function plainIssue(field: string, why: string): string {
  const noun = FIELD_NOUNS[field];
  if (!noun) return `${field}: ${why}`;
  if (/^Too small: expected string to have >=1 characters?$|must not be empty$|^required\b/.test(why)) return `A ${noun} cannot be empty.`;
  if (/must have a visible character/.test(why)) return `A ${noun} needs a visible character.`;
  const max = /^Too big: expected string to have <=(\d+) characters?$|^must be at most (\d+) characters$/.exec(why);
  if (max) return `A ${noun} can be at most ${Number(max[1] ?? max[2]).toLocaleString('en')} characters long.`;
  if (/must be one line/.test(why)) return `A ${noun} must be one line of text, without control characters.`;
  return `${noun[0]!.toUpperCase()}${noun.slice(1)}: ${why}`;
}

/** Why the service refused a write, in plain words: a 400's field reasons each as plainIssue words them. */
export function refusalInWords(err: Error): string {
  const issues = Object.entries((err as GraphqlError).issues ?? {});
  if (!issues.some(([field]) => field in FIELD_NOUNS)) return err.message;
  return issues.map(([field, why]) => plainIssue(field, why)).join(' ');
}

/** What a failed write says: that it was not saved, and why (the service's refusal in plain words, or no answer). */
export function writeFailed(err: Error, verb = 'saved'): { text: string; unreachable: boolean } {
  const unreachable = (err as GraphqlError).code === UNREACHABLE;
  return {
    unreachable,
    text: unreachable
      ? `Not ${verb}: the service cannot be reached. Try again once it is back (the header says "live" again).`
      : `Not ${verb}: ${refusalInWords(err)}`,
  };
}

export interface WriteProblem {
  /** The message, when the last write failed. */
  text?: string;
  /** Whether the message says what was written is refused (not that the service could not be reached). */
  invalid: boolean;
  /** Shows a failed write (every call re-renders, so controls go back to the saved values even when the text repeats). */
  failed(err: Error, verb?: string): void;
  /** Shows why a write was not sent at all (the page refused it before the service could: an empty title). */
  said(text: string): void;
  clear(): void;
}

/**
 * A field tied to what is said about it (WCAG 3.3.1, as the profile dialog does): aria-invalid while it is refused,
 * aria-describedby naming the messages shown (ids; false or undefined for those not shown).
 */
export const fieldState = (invalid: unknown, ...messages: (string | false | undefined)[]) => ({
  'aria-invalid': invalid ? true : undefined,
  'aria-describedby': messages.filter(Boolean).join(' ') || undefined,
});

/**
 * The message of a view's failed write. A write that found the service unreachable is not retried (the person
 * decides again): its message goes once the service answers again or the live stream is back.
 */
export function useWriteProblem(): WriteProblem {
  const [problem, setProblem] = useState<{ text: string; unreachable: boolean; n: number }>();
  useEffect(() => onBack(() => setProblem((p) => (p?.unreachable ? undefined : p))), []);
  return {
    text: problem?.text,
    invalid: Boolean(problem && !problem.unreachable),
    failed: (err, verb) => setProblem((p) => ({ ...writeFailed(err, verb), n: (p?.n ?? 0) + 1 })),
    said: (text) => setProblem((p) => ({ text, unreachable: false, n: (p?.n ?? 0) + 1 })),
    clear: () => setProblem(undefined),
  };
}
