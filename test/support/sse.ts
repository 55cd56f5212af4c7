/**
 * A real HTTP SSE client over fetch(): parses `id:`, `event:`, `data:`, `retry:` and comment lines per
 * the EventSource processing model, and can send Last-Event-ID. Used by the tests and the benchmark.
 */
export interface SseMessage {
  /** The `id:` of this frame; undefined for frames without one (ephemeral events, reset). */
  id?: string;
  event: string;
  data: string;
  /** Arrival time (performance.now()). */
  at: number;
}

export interface SseClient {
  status: number;
  messages: SseMessage[];
  comments: string[];
  /** Last `id:` seen, as an EventSource would send on reconnect. */
  lastEventId?: string;
  /** Resolves with the first message (from `from` on) matching the predicate. */
  waitFor(predicate: (m: SseMessage) => boolean, timeoutMs?: number, from?: number): Promise<SseMessage>;
  waitForComment(predicate: (c: string) => boolean, timeoutMs?: number): Promise<string>;
  close(): void;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  onMessage?: (m: SseMessage) => void;
}

export async function openSse(baseUrl: string, token: string, opts: { lastEventId?: string; path?: string } = {}): Promise<SseClient> {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
  if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId;
  const res = await fetch(`${baseUrl}${opts.path ?? '/api/plugins/events'}`, { headers, signal: controller.signal });
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const client: SseClient = {
    status: res.status,
    messages: [],
    comments: [],
    waitFor(predicate, timeoutMs = 5000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = client.messages.slice(from).find(predicate);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching SSE message within ${timeoutMs} ms (got ${client.messages.length})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    waitForComment(predicate, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const c = client.comments.find(predicate);
          if (c !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(c);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching SSE comment within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => controller.abort(),
    ended: Promise.resolve(),
  };
  if (!res.ok || !res.body) {
    client.ended = res.text().then(() => {});
    return client;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  client.ended = (async () => {
    let buffer = '';
    let id: string | undefined;
    let event = '';
    let data: string[] = [];
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
          if (line === '') {
            if (data.length) {
              const m: SseMessage = { id, event: event || 'message', data: data.join('\n'), at: performance.now() };
              if (id !== undefined) client.lastEventId = id;
              client.messages.push(m);
              client.onMessage?.(m);
            }
            id = undefined;
            event = '';
            data = [];
            notify();
            continue;
          }
          if (line.startsWith(':')) {
            client.comments.push(line.slice(1).trim());
            continue;
          }
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') id = value;
          else if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
      }
    } catch {
      // aborted by close() or the connection dropped
    }
    notify();
  })();
  return client;
}
