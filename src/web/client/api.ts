// Talking to the service: GraphQL for reads and writes (the key in the Authorization header), the SSE
// stream read with fetch (EventSource cannot send the header), and the key kept in sessionStorage only.
const KEY = 'svc.key';

export const storedKey = () => sessionStorage.getItem(KEY);
export const storeKey = (key: string | null) => (key ? sessionStorage.setItem(KEY, key) : sessionStorage.removeItem(KEY));

export class GraphqlError extends Error {
  /** A 400's reasons by input field ("name", "timezone", …): a form shows each next to its field. */
  constructor(message: string, readonly code?: string, readonly status?: number, readonly issues: Record<string, string> = {}) {
    super(message);
  }
}

/** Called when the service refuses the signed-in key (revoked, expired): the page signs out and says why. */
let refusedKey: ((reason: string) => void) | undefined;
export const onKeyRefused = (fn: ((reason: string) => void) | undefined) => { refusedKey = fn; };

/** The code of the error thrown when no answer came at all (the service is down or the network is away). */
export const UNREACHABLE = 'unreachable';
/**
 * Called when the service answers again after a request found it unreachable, or when the live stream connects:
 * a write that failed meanwhile was not saved, and the message saying so goes once the service is back.
 */
const backListeners = new Set<() => void>();
let away = false;
export function onBack(fn: () => void): () => void {
  backListeners.add(fn);
  return () => { backListeners.delete(fn); };
}
function back() {
  away = false;
  for (const fn of [...backListeners]) fn();
}

interface Answer { data?: any; errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string; status?: number; issues?: Record<string, string> } }[] }
/** The error as the service words it: "Invalid input" says which input and why (its issues map). */
const errorOf = (e: NonNullable<Answer['errors']>[number]) => {
  // An issue that only says the message again ("query has no words…") is not repeated after it.
  const issues = Object.entries(e.extensions?.issues ?? {}).filter(([, why]) => why !== e.message).map(([field, why]) => `${field}: ${why}`);
  return new GraphqlError(issues.length ? `${e.message} (${issues.join('; ')})` : e.message, e.extensions?.code, e.extensions?.status, e.extensions?.issues ?? {});
};

/** One POST /graphql: the answer's data and errors (a refused key signs the page out; no answer at all throws). */
async function post(query: string, variables: Record<string, unknown> | undefined, key: string | null): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    away = true;
    // Said of reads, which are read again once the stream is back (writes say they were not saved: writeFailed).
    throw new GraphqlError('The service cannot be reached; this page reads again when it is back.', UNREACHABLE);
  }
  if (away) back();
  const body = await res.json().catch(() => ({}));
  if (res.status === 401 && key === storedKey()) refusedKey?.(body.message ?? 'The key was refused');
  if (body.errors?.[0]) return body;
  if (res.status !== 200) throw new GraphqlError(body.message ?? `HTTP ${res.status}`, body.error, res.status);
  return body;
}

export async function gql<T = any>(query: string, variables?: Record<string, unknown>, key = storedKey()): Promise<T> {
  const body = await post(query, variables, key);
  if (body.errors?.[0]) throw errorOf(body.errors[0]);
  return body.data as T;
}

/**
 * A read whose `optional` top-level fields may fail on their own (GraphQL gives null for such a field, with its
 * error, and the others' data): their errors come back by field name beside the data. Any other error throws, as
 * gql does.
 */
export async function gqlPartial<T = any>(query: string, variables: Record<string, unknown> | undefined, optional: readonly string[]):
  Promise<{ data: T; failed: Partial<Record<string, GraphqlError>> }> {
  const body = await post(query, variables, storedKey());
  const errors = body.errors ?? [];
  const fatal = errors.find((e) => !optional.includes(String(e.path?.[0])));
  if (fatal) throw errorOf(fatal);
  if (!body.data) throw errors[0] ? errorOf(errors[0]) : new GraphqlError('The service answered without data');
  return { data: body.data as T, failed: Object.fromEntries(errors.map((e) => [String(e.path![0]), errorOf(e)])) };
}

// Live updates: views re-read after events on the stream. Each re-read is a GraphQL request, and each catalog-tool
// field in it counts as a call of the key's rate limit (300 a minute; the board's read is one issuesList per column),
// so re-reads are paid from a bucket of 30 calls refilled at 2 a second: a change shows 300 ms after it (an issue made
// elsewhere appears within a second), and under a stream of events the open view re-reads as often as 120 calls a
// minute allow (the board every 3 s), which leaves the rest to the person's own actions (an open board used them all
// up when agents wrote twice a second). An issue's page reads again only for events about it (aboutIssue): re-reading
// on every event, an idle issue tab beside a board ran the key into its limit.
/** A stream event as the page reads it (what it is about decides which views read again). */
export interface StreamEvent { kind?: string; subjectType?: string; subjectId?: string; payload?: Record<string, unknown> | null }
interface Listener { run(): void; wants?: (kind: string, event?: StreamEvent) => boolean; cost: number }
const listeners = new Set<Listener>();
export interface ChangeOptions {
  /** The events that concern it (all when absent); `event` is absent when only the kind is known. */
  wants?: (kind: string, event?: StreamEvent) => boolean;
  /** Calls of the rate limit one re-read spends (its catalog-tool fields; 1 for a read of PostGraphile fields only). */
  cost?: number;
}
/** For views that show no run figures: a run's usage report (AGENT_RUN_UPDATED, frequent) changes nothing there. */
export const notUsageReport = (kind: string) => kind !== 'AGENT_RUN_UPDATED';
/** Calls `run` after changes. */
export function onChange(run: () => void, opts: ChangeOptions = {}): () => void {
  const l: Listener = { run, wants: opts.wants, cost: Math.max(1, opts.cost ?? 1) };
  listeners.add(l);
  return () => { listeners.delete(l); due.delete(l); };
}
const QUIET_MS = 300;
const BUCKET = 30;
const REFILL_PER_MS = 2 / 1000;
const due = new Set<Listener>();
let timer: ReturnType<typeof setTimeout> | undefined;
let tokens = BUCKET;
let filledAt = Date.now();
function refill() {
  const now = Date.now();
  tokens = Math.min(BUCKET, tokens + (now - filledAt) * REFILL_PER_MS);
  filledAt = now;
}
/** What re-reading the views now due spends (at most a full bucket, so one costly view still runs). */
const dueCost = () => Math.min(BUCKET, [...due].reduce((sum, l) => sum + l.cost, 0));
/** An event of this kind happened (undefined: anything may have changed, e.g. after a reconnection). */
function changed(kind?: string, event?: StreamEvent) {
  for (const l of listeners) if (kind === undefined || !l.wants || l.wants(kind, event)) due.add(l);
  if (timer || due.size === 0) return;
  refill();
  timer = setTimeout(() => {
    timer = undefined;
    refill();
    // Views that became due while the timer ran are read too: they are paid for as well.
    tokens -= dueCost();
    const now = [...due];
    due.clear();
    now.forEach((l) => l.run());
  }, Math.max(QUIET_MS, (dueCost() - tokens) / REFILL_PER_MS));
}

/**
 * A change this page made itself, re-read as the stream's event of that kind would be (paced with it): for what the
 * page must show at once even without the stream (a key without SUBSCRIBE_EVENTS), e.g. the person's new name.
 */
export const announce = (kind: string) => changed(kind);

/** Re-reads what is on screen every 15 s while the tab is visible: for a key that may not follow the stream. */
export function poll(): () => void {
  const refresh = setInterval(() => { if (document.visibilityState === 'visible') changed(); }, 15_000);
  return () => clearInterval(refresh);
}

/** Whether the board follows the stream, and why not when the service refuses it (e.g. a key without SUBSCRIBE_EVENTS). */
export type LiveState = { on: true } | { on: false; refused?: string };

/**
 * Follows /api/plugins/events until aborted, reconnecting with Last-Event-ID; reports whether it is connected. A 403
 * (the key may not subscribe) is final: it is reported with the service's message and not retried.
 */
export function follow(key: string, live: (state: LiveState) => void): () => void {
  const stop = new AbortController();
  (async () => {
    let lastId: string | undefined;
    let broken = false; // set once connected: any later connection is a reconnection
    while (!stop.signal.aborted) {
      try {
        const res = await fetch('/api/plugins/events', {
          headers: { authorization: `Bearer ${key}`, ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: stop.signal,
        });
        if (res.status === 401) {
          const body = await res.json().catch(() => ({}));
          refusedKey?.(body.message ?? 'The key was refused');
          return;
        }
        if (res.status === 403) {
          const body = await res.json().catch(() => ({}));
          live({ on: false, refused: body.scope ? `this key lacks the ${body.scope} scope` : body.message ?? 'refused' });
          return;
        }
        if (res.status !== 200 || !res.body) throw new Error(`events: HTTP ${res.status}`);
        live({ on: true });
        back();
        // Back after a break: what happened meanwhile (or failed to load while the service was away) is read again.
        if (broken) changed();
        broken = true;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const lines = buffer.slice(0, end).split('\n');
            buffer = buffer.slice(end + 2);
            const id = lines.find((l) => l.startsWith('id:'));
            if (id) lastId = id.slice(3).trim();
            const data = lines.find((l) => l.startsWith('data:'));
            if (data) {
              const event = eventOf(data.slice(5));
              changed(event?.kind, event);
            }
          }
        }
      } catch {
        if (stop.signal.aborted) return;
      }
      live({ on: false });
      await new Promise((r) => setTimeout(r, 2000));
    }
  })();
  // Also read again every 15 s while the tab is visible: what the stream cannot say (a cycle starting on the calendar).
  const stopPolling = poll();
  return () => {
    stop.abort();
    stopPolling();
  };
}

/** A stream frame's event, if it can be read. */
function eventOf(data: string): StreamEvent | undefined {
  try {
    const event = JSON.parse(data) as StreamEvent;
    return typeof event?.kind === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}

/** Subjects whose events are about one issue (their payload names it: issueId, fromIssueId, toIssueId). */
const ISSUE_SUBJECTS = new Set(['issue', 'comment', 'agent-run', 'action-request', 'attachment']);
/**
 * For a view of one issue: events about it, and the workspace's own (a status, label, agent or member renamed); another
 * issue's news (its comments, runs, requests) changes nothing there. An idle issue page re-read on every event of the
 * workspace, twice a read, and with the board open beside it ran into the key's rate limit while an agent worked.
 */
export function aboutIssue(issueId: () => string | undefined) {
  return (_kind: string, e?: StreamEvent): boolean => {
    const id = issueId();
    if (!e || !id || !ISSUE_SUBJECTS.has(e.subjectType ?? '')) return true;
    const p = e.payload ?? {};
    return e.subjectId === id || p.issueId === id || p.fromIssueId === id || p.toIssueId === id || p.parentId === id;
  };
}
