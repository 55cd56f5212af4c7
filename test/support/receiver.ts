/** A real local HTTP endpoint that records every request (raw body, headers) and answers as told. */
import http from 'node:http';

export interface Received {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type Responder = (req: Received, n: number) => { status: number; body?: string } | 'hang';

export interface Receiver {
  url: string;
  requests: Received[];
  respond: Responder;
  waitFor(predicate: (r: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const hanging = new Set<http.ServerResponse>();
  const r: Receiver = {
    url: '',
    requests: [],
    respond,
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(r.requests)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(r.requests);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${r.requests.length} requests)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '', url: req.url ?? '', headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'), at: Date.now(),
      };
      r.requests.push(received);
      const answer = r.respond(received, r.requests.length);
      for (const w of [...waiters]) w();
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return r;
}
