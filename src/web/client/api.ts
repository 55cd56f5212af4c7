// Talking to the service: GraphQL for reads and writes (the key in the Authorization header), the SSE
// stream read with fetch (EventSource cannot send the header), and the key kept in sessionStorage only.
const KEY = 'svc.key';

export const storedKey = () => sessionStorage.getItem(KEY);
export const storeKey = (key: string | null) => (key ? sessionStorage.setItem(KEY, key) : sessionStorage.removeItem(KEY));

export class GraphqlError extends Error {
  constructor(message: string, readonly code?: string, readonly status?: number) {
    super(message);
  }
}

/** Called when the service refuses the signed-in key (revoked, expired): the page signs out and says why. */
let refusedKey: ((reason: string) => void) | undefined;
export const onKeyRefused = (fn: ((reason: string) => void) | undefined) => { refusedKey = fn; };

export async function gql<T = any>(query: string, variables?: Record<string, unknown>, key = storedKey()): Promise<T> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new GraphqlError('The service cannot be reached; this page will retry when it is back.');
  }
  const body = await res.json().catch(() => ({}));
  if (res.status === 401 && key === storedKey()) refusedKey?.(body.message ?? 'The key was refused');
  const first = body.errors?.[0];
  if (first) throw new GraphqlError(first.message, first.extensions?.code, first.extensions?.status);
  if (res.status !== 200) throw new GraphqlError(body.message ?? `HTTP ${res.status}`, body.error, res.status);
  return body.data as T;
}

// Live updates: views re-read after events on the stream, at most once per 300 ms however many arrive (each
// re-read is a GraphQL request, counted against the key's rate limit).
type Listener = () => void;
const listeners = new Set<Listener>();
export function onChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
let pending: ReturnType<typeof setTimeout> | undefined;
function changed() {
  if (pending) return;
  pending = setTimeout(() => { pending = undefined; listeners.forEach((l) => l()); }, 300);
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
            if (lines.some((l) => l.startsWith('data:'))) changed();
          }
        }
      } catch {
        if (stop.signal.aborted) return;
      }
      live({ on: false });
      await new Promise((r) => setTimeout(r, 2000));
    }
  })();
  // The stream cannot tell a narrowed key that an issue left its reach (it no longer sees that events), so
  // what is on screen is also read again every 15 s while the tab is visible (one GraphQL read of the open view).
  const refresh = setInterval(() => { if (document.visibilityState === 'visible') changed(); }, 15_000);
  return () => {
    stop.abort();
    clearInterval(refresh);
  };
}
