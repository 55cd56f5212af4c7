/**
 * One delivery attempt: a signed POST with a hard deadline, through the egress guard, no redirects
 * followed (a redirect could point anywhere; it counts as a failed attempt). The first 2 kB of the
 * response are kept for the attempt record.
 */
import http from 'node:http';
import https from 'node:https';
import { checkLiteralHost, guardedLookup } from './egress.ts';
import { signatureHeaders } from './sign.ts';

export interface DeliveryWork {
  deliveryId: string;
  workspaceId: string;
  eventId: string;
  channel: string;
  attempt: number;
  kind: string;
  url: string;
  secret: string;
  /** The secret a rotation replaced, while its grace lasts: webhook-signature carries a signature with each. */
  previousSecret?: string | null;
  /** The exact JSON text to send (and sign). */
  body: string;
}

export interface AttemptResult {
  url: string;
  startedAt: string;
  durationMs: number;
  statusCode?: number;
  error?: string;
  responseBody?: string;
  /** No answer within the deadline (the endpoint then cools off: src/outbound/slow-targets.ts). Not recorded. */
  timedOut?: true;
  /** Not made: the endpoint is cooling off after a timeout (recorded with its reason, logged at debug). */
  notTried?: true;
}

export interface DeliverOptions {
  allowPrivate: boolean;
  timeoutMs: number;
}

const RESPONSE_KEEP = 2048;
const USER_AGENT = 'svc-webhooks/1';

export async function deliver(work: DeliveryWork, opts: DeliverOptions): Promise<AttemptResult> {
  const started = Date.now();
  const base = { url: work.url, startedAt: new Date(started).toISOString() };
  const fail = (error: string): AttemptResult => ({ ...base, durationMs: Date.now() - started, error });
  let url: URL;
  try {
    url = new URL(work.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`unsupported protocol ${url.protocol}`);
    checkLiteralHost(url.hostname, opts.allowPrivate);
  } catch (err) {
    return fail((err as Error).message);
  }
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-svc-event': work.kind,
    'x-svc-delivery': work.deliveryId,
    'x-svc-attempt': String(work.attempt),
    'x-svc-channel': work.channel,
    ...signatureHeaders(work.secret, work.eventId, work.body, Math.floor(started / 1000), work.previousSecret),
    'content-length': String(Buffer.byteLength(work.body)),
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = client.request(url, {
      method: 'POST',
      headers,
      lookup: guardedLookup(opts.allowPrivate) as never,
      agent: false, // one connection per attempt: a tenant's slow endpoint cannot hold pooled sockets
    });
    let answered: { statusCode?: number; chunks: Buffer[] } | undefined;
    const timer = setTimeout(() => {
      req.destroy();
      // A receiver that answered but never finished its body still gave its status.
      if (answered) finish({ ...base, durationMs: Date.now() - started, statusCode: answered.statusCode,
        responseBody: Buffer.concat(answered.chunks).toString('utf8').slice(0, RESPONSE_KEEP) });
      else finish({ ...fail(`timeout after ${opts.timeoutMs} ms`), timedOut: true });
    }, opts.timeoutMs);
    req.on('error', (err) => finish(fail(err.message)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      answered = { statusCode: res.statusCode, chunks };
      let kept = 0;
      const done = () => finish({
        ...base,
        durationMs: Date.now() - started,
        statusCode: res.statusCode,
        responseBody: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_KEEP),
      });
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_KEEP) {
          chunks.push(chunk.subarray(0, RESPONSE_KEEP - kept));
          kept += Math.min(chunk.length, RESPONSE_KEEP - kept);
        }
        if (kept >= RESPONSE_KEEP) {
          res.destroy(); // enough for the record; do not read an endless body
          done();
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.end(work.body);
  });
}
