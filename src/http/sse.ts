/**
 * GET /api/plugins/events (spec 6.5): the SSE stream of the key's workspace. Needs SUBSCRIBE_EVENTS.
 * `Last-Event-ID` (header, or `?lastEventId=` for clients that cannot set headers) resumes from the
 * stored log; see src/events/hub.ts.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasScope, type KeyAuthenticator } from '../auth/keys.ts';
import { databaseUnavailable, invalidInput, scopeRequired } from '../errors.ts';
import type { EventHub } from '../events/hub.ts';
import type { StreamLimits } from './stream-limits.ts';

/** The event stream's path (operator-interface.md). */
export const EVENTS_PATH = '/api/plugins/events';

/** Takes the response over from Fastify and opens it as an SSE stream (also the MCP session stream, mcp.ts). */
export function openEventStream(req: FastifyRequest, reply: FastifyReply, headers: Record<string, string> = {}): ServerResponse {
  // Headers the hooks set on the reply (CORS for a listed origin) go out with the stream: hijacked, Fastify
  // would not send them.
  const early = reply.getHeaders() as Record<string, string>;
  reply.hijack();
  const res = reply.raw;
  req.socket.setNoDelay(true);
  req.socket.setKeepAlive(true, 30_000);
  res.writeHead(200, {
    ...early,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no', // proxies (nginx) must not buffer the stream
    ...headers,
  });
  return res;
}

/**
 * A stream that cannot start now (the database unreachable, the service shutting down): it opens and ends at once with
 * a retry delay, since an EventSource gives up for good on a 503 (the spec's "fail the connection") and comes back on
 * its own after an ended stream, as after any cut.
 */
export function retryStreamLater(reply: FastifyReply, why: string): FastifyReply {
  return reply.code(200).headers({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' })
    .send(`retry: 5000\n: ${why}; reconnect in 5 s\n\n`);
}

/**
 * HEAD of a stream (Fastify answers HEAD with the GET route): the stream's headers and nothing more, at once. It was
 * held open as a stream, and took one of the key's places (20 HEADs and the key's next stream was 429).
 */
export function headOfStream(req: FastifyRequest, reply: FastifyReply, headers: Record<string, string> = {}): void {
  openEventStream(req, reply, headers).end();
}

export function registerSse(app: FastifyInstance, keys: KeyAuthenticator, hub: EventHub, streams: StreamLimits): void {
  app.get<{ Querystring: { lastEventId?: string } }>(EVENTS_PATH, async (req, reply) => {
    let caller;
    try {
      caller = await keys.authenticate(req.headers.authorization);
    } catch (err) {
      // The database unreachable: an EventSource gives up for good on a 503 (the spec's "fail the connection"), so the
      // stream opens and ends at once with a retry delay, and the client comes back on its own (as after any cut).
      if (!databaseUnavailable(err)) throw err;
      return retryStreamLater(reply, 'the database is not reachable right now');
    }
    if (!hasScope(caller, 'SUBSCRIBE_EVENTS')) throw scopeRequired('SUBSCRIBE_EVENTS');
    // The stream has no filters: `?kinds=…` was ignored silently and its client got every event. Said at once.
    const unknown = Object.keys(req.query ?? {}).filter((k) => k !== 'lastEventId');
    if (unknown.length > 0) {
      throw invalidInput(Object.fromEntries(unknown.map((k) => [k, 'not a parameter of the event stream (the only one is lastEventId)'])),
        `The event stream sends every event this key may see and takes no filters (${unknown.join(', ')}): filter by kind and subject on the client`);
    }
    const header = req.headers['last-event-id'];
    const lastEventId = (Array.isArray(header) ? header[0] : header) ?? req.query.lastEventId;

    if (req.method === 'HEAD') return headOfStream(req, reply);
    const release = streams.take(caller); // 429 too_many_streams, before the stream opens
    const res = openEventStream(req, reply);
    res.on('close', release);
    // Reconnect hint for EventSource clients; the hub writes `: connected` once the start is fixed.
    res.write('retry: 2000\n\n');
    try {
      await hub.subscribe(caller, res, lastEventId || undefined);
    } catch (err) {
      // The database went away while the stream started: it ends with the outage's retry delay (as when the key could
      // not be looked up), and the client comes back on its own; no stack for that.
      if (databaseUnavailable(err)) {
        req.log.warn({ code: (err as { code?: string }).code }, 'sse subscribe: database unavailable');
        if (!res.writableEnded) res.end('retry: 5000\n: the database is not reachable right now; reconnect in 5 s\n\n');
        return;
      }
      req.log.error({ err }, 'sse subscribe failed');
      res.destroy();
    }
  });
  // Open streams would hold server.close() forever: end them first.
  app.addHook('preClose', async () => hub.close());
}
