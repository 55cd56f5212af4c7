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

/** The current location hash, e.g. "#/issue/ENG-1". */
export function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/** What a failed write says: that it was not saved, and why (the service's refusal as it words it, or no answer). */
export function writeFailed(err: Error, verb = 'saved'): { text: string; unreachable: boolean } {
  const unreachable = (err as GraphqlError).code === UNREACHABLE;
  return {
    unreachable,
    text: unreachable
      ? `Not ${verb}: the service cannot be reached. Try again once it is back (the header says "live" again).`
      : `Not ${verb}: ${err.message}`,
  };
}

export interface WriteProblem {
  /** The message, when the last write failed. */
  text?: string;
  /** Shows a failed write (every call re-renders, so controls go back to the saved values even when the text repeats). */
  failed(err: Error, verb?: string): void;
  clear(): void;
}

/**
 * The message of a view's failed write. A write that found the service unreachable is not retried (the person
 * decides again): its message goes once the service answers again or the live stream is back.
 */
export function useWriteProblem(): WriteProblem {
  const [problem, setProblem] = useState<{ text: string; unreachable: boolean; n: number }>();
  useEffect(() => onBack(() => setProblem((p) => (p?.unreachable ? undefined : p))), []);
  return {
    text: problem?.text,
    failed: (err, verb) => setProblem((p) => ({ ...writeFailed(err, verb), n: (p?.n ?? 0) + 1 })),
    clear: () => setProblem(undefined),
  };
}
