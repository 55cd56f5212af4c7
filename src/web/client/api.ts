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

export async function gql<T = any>(query: string, variables?: Record<string, unknown>, key = storedKey()): Promise<T> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json().catch(() => ({}));
  const first = body.errors?.[0];
  if (first) throw new GraphqlError(first.message, first.extensions?.code, first.extensions?.status);
  if (res.status !== 200) throw new GraphqlError(body.message ?? `HTTP ${res.status}`, body.error, res.status);
  return body.data as T;
}

// Live updates: every event on the stream bumps a counter (debounced); views re-read when it moves.
type Listener = () => void;
const listeners = new Set<Listener>();
export function onChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
let pending: ReturnType<typeof setTimeout> | undefined;
function changed() {
  clearTimeout(pending);
  pending = setTimeout(() => listeners.forEach((l) => l()), 40);
}

/** Follows /api/plugins/events until aborted, reconnecting with Last-Event-ID; reports whether it is connected. */
export function follow(key: string, live: (on: boolean) => void): () => void {
  const stop = new AbortController();
  (async () => {
    let lastId: string | undefined;
    while (!stop.signal.aborted) {
      try {
        const res = await fetch('/api/plugins/events', {
          headers: { authorization: `Bearer ${key}`, ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: stop.signal,
        });
        if (res.status !== 200 || !res.body) throw new Error(`events: HTTP ${res.status}`);
        live(true);
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
      live(false);
      await new Promise((r) => setTimeout(r, 2000));
    }
  })();
  return () => stop.abort();
}
