/**
 * The HTTP surface: thin. Authenticate, validate, call the tool's SQL function, shape errors.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isAscii, isUtf8 } from 'node:buffer';
import type pg from 'pg';
import { assertOneAuthorization, type Caller, type KeyAuthenticator } from '../auth/keys.ts';
import { EmbeddedBlobStore } from '../blobs/embedded.ts';
import { registerBlobRoutes } from '../blobs/routes.ts';
import type { BlobStore } from '../blobs/store.ts';
import { buildInfo } from '../build-info.ts';
import { ApiError, databaseUnavailable, invalidInput, loadCheckRules, logRefusedInputTo, noRoute, refusesKey } from '../errors.ts';
import { withinMs } from '../db/database.ts';
import { errorExtensions, isMutationDocument } from '../graphql/errors.ts';
import { GRAPHIQL_STATIC_PATH } from '../graphql/preset.ts';
import { GRAPHQL_PATH, registerGraphql } from '../graphql/server.ts';
import { descriptor, findTool, TOOLS, unknownTool } from '../tools/catalog.ts';
import type { EventHub } from '../events/hub.ts';
import type { RunOptions, ToolRunner } from '../tools/invoke.ts';
import { LogThrottle, type Logger } from '../log.ts';
import { committedMigrationCount } from '../db/committed.ts';
import type { Tool } from '../tools/define.ts';
import { MCP_ENDPOINTS, mcpMethodNotAllowed, registerMcp } from './mcp.ts';
import { McpSessions } from './mcp-subscriptions.ts';
import { StreamLimits, type StreamLimitOptions } from './stream-limits.ts';
import { AppMetrics, type ToolSurface } from './metrics.ts';
import { openApiJson } from './openapi.ts';
import { registerOriginGuard, type OriginPolicy } from './origin-guard.ts';
import { bodyCalls, KEYLESS_BODY_LIMIT, KEYLESS_INTROSPECTION_PER_MIN, KeylessLimiter, RateLimiter, type RateSurface } from './rate-limit.ts';
import { EVENTS_PATH, registerSse, retryStreamLater } from './sse.ts';
import { registerWeb } from './web.ts';
import { clip } from '../text.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Bytes of the JSON body as received (it counts against the key's rate limit: rate-limit.ts, bodyCalls). */
    svcBodyBytes?: number;
  }
}

/** Headers of every answer unless its route sets its own (web.ts, blobs, the event streams). */
const DEFAULT_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
} as const;
/** GraphiQL's scripts and styles (2.4 MB): revalidated rather than fetched again on every visit. */
const GRAPHIQL_ASSET_HEADERS = { ...DEFAULT_HEADERS, 'cache-control': 'no-cache' } as const;

export interface AppServices {
  ownerPool: pg.Pool;
  keys: KeyAuthenticator;
  runner: ToolRunner;
  /** Counts `calls` calls of the caller (shared across processes); throws the 429 when over the limit. */
  rateLimit(caller: Caller, surface: RateSurface, calls?: number): Promise<void>;
  /** Runs a tool (the runner's output JSON), counted and timed in /metrics. */
  callTool(caller: Caller, t: Tool, args: unknown, surface: ToolSurface, opts?: RunOptions): Promise<string>;
  /** MCP sessions with resource subscriptions (only with the event feed). */
  mcpSessions?: McpSessions;
  /** Places for event streams (SSE, MCP): take one before a stream opens. */
  streams: StreamLimits;
}

export interface AppOptions {
  ownerPool: pg.Pool;
  keys: KeyAuthenticator;
  runner: ToolRunner;
  rateLimits?: { rpc: number; rest: number };
  /** svc_visitor pool for the rate-limit counters (default: ownerPool). */
  apiPool?: pg.Pool;
  /** Origin / Host checks (DNS-rebinding protection) and CORS (GraphQL, /api/, signed /blobs/ links). Default: loopback rules. */
  origins?: OriginPolicy;
  logLevel?: string;
  /** The process logger (pino) to log through instead of a new one at logLevel (svc start shares it with the worker). */
  logger?: Logger;
  /** SSE fan-out; without it GET /api/plugins/events is not served. */
  events?: EventHub;
  /** Event streams one key / one workspace may hold open (SSE and MCP streams together). Default 20 / 200. */
  streamLimits?: StreamLimitOptions;
  /** Serve POST /graphql and GET /graphiql over this svc_visitor pool (the schema is built on ready()). */
  graphql?: { pool: pg.Pool; graphiql?: boolean };
  /** The attachment blob store; the embedded one is served here at /blobs/… (signed URLs). */
  blobs?: BlobStore;
}

/** The methods a 405 may name in its Allow header (what routes here are registered for). */
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The MCP endpoint (/api/mcp, /api/mcp/rpc, either with a trailing slash: MCP_ENDPOINTS in mcp.ts). */
const isMcpPath = (url: string) => /^\/api\/mcp(\/rpc)?\/?(\?|$)/.test(url);

/**
 * A refusal of a call whose body is small enough to read (KEYLESS_BODY_LIMIT) waits for it, to echo the JSON-RPC id;
 * a larger or unsized one is refused unread.
 */
const refusedAfterBody = (req: FastifyRequest) => Number(req.headers['content-length']) <= KEYLESS_BODY_LIMIT;

/** How long /health and /ready wait for the database before they answer 503. */
const HEALTH_CHECK_MS = 2000;

/**
 * A body sent with a Content-Encoding other than identity (gzip, br, ...): this service does not decode request bodies,
 * so the bytes would be read as JSON text (and a gzip body refused as "not valid UTF-8"). RFC 9110 15.5.16: 415,
 * naming the header, with Accept-Encoding saying what is accepted.
 */
function unsupportedEncoding(req: FastifyRequest): ApiError | undefined {
  const header = req.headers['content-encoding'];
  if (header === undefined) return undefined;
  const codings = String(header).split(',').map((c) => c.trim().toLowerCase()).filter(Boolean);
  const other = codings.filter((c) => c !== 'identity');
  if (!other.length) return undefined;
  const named = other.join(', ');
  return new ApiError(415, {
    error: 'unsupported_media_type',
    message: `Content-Encoding ${clip(named, 50)} is not supported: send the request body uncompressed (no Content-Encoding, or identity)`,
  }, { 'accept-encoding': 'identity' });
}

/**
 * The rate-limit surface of a tool-call route whose handler counts its own calls (REST alias, JSON-RPC).
 * A request refused before its handler runs (unparseable or non-UTF-8 body, 413, 415) is counted by the
 * error handler instead. GraphQL counts in its own onRequest hook, before the body is read.
 */
function countedSurface(req: FastifyRequest): RateSurface | undefined {
  if (req.method !== 'POST') return undefined;
  const route = req.routeOptions?.url;
  if (route === '/api/mcp/:tool') return 'rest';
  if (route !== undefined && MCP_ENDPOINTS.includes(route)) return 'rpc';
  return undefined;
}

const STATUS_ERRORS: Record<number, string> = {
  405: 'method_not_allowed', 413: 'payload_too_large', 415: 'unsupported_media_type', 404: 'not_found',
};

/** The id of a single JSON-RPC request body, when it has one (else null, as JSON-RPC prescribes). */
function requestId(body: unknown): string | number | null {
  const id = body && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * A transport-level rejection as a JSON-RPC error: -32700 for unparseable JSON, -32603 for server errors,
 * -32000 (implementation-defined server error) otherwise; `data` holds the REST body and the HTTP status.
 */
/**
 * A tool's input as the client sent it (the REST body, JSON-RPC's `arguments`): none is {} (no arguments); anything
 * but an object, a JSON null included, is a 400 on that field.
 */
export function toolInput(value: unknown, field: 'body' | 'arguments'): object {
  const input = value === undefined ? {} : value;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ApiError(400, {
      error: 'invalid_input', message: `${field === 'body' ? 'Body' : 'arguments'} must be a JSON object`, issues: { [field]: 'must be a JSON object' } });
  }
  return input;
}

export function sendRpcError(reply: FastifyReply, err: ApiError, id: string | number | null = null, batchIds?: Array<string | number>) {
  const code = err.body.error === 'invalid_json' ? -32700 : err.status >= 500 ? -32603 : -32000;
  const message = err.body.error === 'invalid_json' ? 'Parse error' : err.body.message ?? err.body.error;
  const answer = (id: string | number | null) => ({ jsonrpc: '2.0', id, error: { code, message, data: { ...err.body, status: err.status } } });
  return reply
    .code(err.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(batchIds?.length ? batchIds.map(answer) : answer(id)));
}

/** Refusals of the caller, not of the batch (its key, its rate, the database): a valid batch hears them per call. */
const CALLER_REFUSALS = new Set([401, 403, 429, 503]);
/** The readiness check's failures, logged once a minute per process. */
const readinessLogs = new LogThrottle();
/** Requests refused because the database is out of reach, logged once a minute per process. */
const unavailableLogs = new LogThrottle();

/** The ids of a JSON-RPC batch's calls (notifications have none), for a refusal of every call of it. */
function batchIdsOf(body: unknown, err: ApiError): Array<string | number> | undefined {
  if (!Array.isArray(body) || !CALLER_REFUSALS.has(err.status)) return undefined;
  return body.map((m) => (m && typeof m === 'object' ? (m as { id?: unknown }).id : undefined))
    .filter((id): id is string | number => typeof id === 'string' || typeof id === 'number');
}

/** How much of a too-large body is read and dropped so its sender hears the 413, and for how long at most. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;
const DISCARD_LIMIT_MS = 15_000;

/** Reads what is left of a request body and drops it; past DISCARD_LIMIT_* it gives up (the connection then closes). */
function discardRestOfBody(raw: http.IncomingMessage): Promise<void> {
  if (raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', done).off('error', done).off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DISCARD_LIMIT_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_LIMIT_MS);
    raw.on('data', onData).once('end', done).once('error', done).once('close', done);
    raw.resume();
  });
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KB, malformed requests, a
 * client too slow to send its headers): answered with the spec's `{error, message}` body like every other error
 * (Fastify's default body uses the status phrase as `error`), then the connection is closed.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Bytes that failed to parse after a request still being answered on this connection (pipelined junk, one byte past
  // its Content-Length): that request's answer goes first, then this one. Written at once, the 400 took its place, and
  // the client read a committed issues.create as refused and sent it again (an outside probe). Node's own handler
  // destroys the connection there, which loses the answer too.
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    const next = () => answerClientError(err, socket);
    inFlight.once('finish', () => setImmediate(next));
    inFlight.once('close', () => setImmediate(next));
    return;
  }
  const [status, error, message] =
    err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'headers_too_large', 'Request headers are larger than 16 KB']
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'request_timeout', 'The request was not received in time']
    : [400, 'bad_request', 'Malformed HTTP request'];
  const body = JSON.stringify({ error, message });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

const isGraphqlPath = (req: FastifyRequest) => req.url.split('?')[0] === GRAPHQL_PATH;

/**
 * A REST call's `Idempotency-Key` header (RFC draft, as Stripe and others take it), as run options; a replayed answer
 * says so in `Idempotent-Replayed: true` (Stripe's name).
 */
function idempotencyHeader(req: FastifyRequest, reply: FastifyReply): RunOptions | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (Array.isArray(key)) throw invalidInput({ 'Idempotency-Key': 'give it once' });
  return { idempotencyKey: key, onReplay: () => void reply.header('idempotent-replayed', 'true') };
}

/** How long a request may take to arrive, headers and body (Node's default; Fastify's is none). */
export const REQUEST_TIMEOUT_MS = 300_000;

/** The largest request body (REST, JSON-RPC, GraphQL): 2 MiB. */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export function buildApp(opts: AppOptions): { app: FastifyInstance; services: AppServices } {
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger as FastifyBaseLogger } : { logger: { level: opts.logLevel ?? 'info' } }),
    // No per-request log lines on the hot path (logging each request cost 17% here).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // A request (headers and body) must arrive within 5 minutes, Node's own default, which Fastify turns off: a body
    // that never finished held its socket for good, with or without a key (100 such sockets, an outside probe).
    requestTimeout: REQUEST_TIMEOUT_MS,
    clientErrorHandler: answerClientError,
    // Requests that arrive while the server closes are refused by our own hook below (the spec's body, Retry-After,
    // JSON-RPC's envelope on the MCP endpoint); Fastify's own answered {"error":"Service Unavailable","statusCode":503}.
    return503OnClosing: false,
    // What the router refuses before any route runs, in the spec's body rather than Fastify's: a path parameter
    // over 100 characters (no tool name is that long) and a URL it cannot decode.
    frameworkErrors: (err, req, frameworkReply) => {
      const reply = frameworkReply as unknown as FastifyReply;
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        const tool = req.url.startsWith('/api/mcp/');
        return reply.code(404).send({ error: tool ? 'unknown_tool' : 'not_found', message: tool ? 'Unknown tool (the name is too long to be one)' : 'Not found' });
      }
      return reply.code(400).send({ error: 'bad_request', message: 'The URL is not valid' });
    },
  });
  // What each CHECK allows, for the 400 of a value it refuses (read once, in the background).
  void loadCheckRules(opts.ownerPool).catch(() => {});
  const limiter = new RateLimiter(opts.apiPool ?? opts.ownerPool, opts.rateLimits ?? { rpc: 600, rest: 300 });
  const keyless = new KeylessLimiter(limiter.enabled('rest') ? KEYLESS_INTROSPECTION_PER_MIN : 0);
  const metrics = new AppMetrics({ ownerPool: opts.ownerPool, apiPool: opts.apiPool, events: opts.events });
  const services: AppServices = {
    ownerPool: opts.ownerPool,
    keys: opts.keys,
    runner: opts.runner,
    rateLimit: (caller, surface, calls) => limiter.take(caller, surface, calls),
    callTool: (caller, t, args, surface, runOptions) => metrics.time(t.name, surface, () => opts.runner.run(caller, t, args, runOptions)),
    mcpSessions: opts.events ? new McpSessions(opts.ownerPool, opts.events.notifier, opts.events.pool) : undefined,
    streams: new StreamLimits(opts.streamLimits ?? { perKey: 20, perWorkspace: 200 }),
  };
  if (services.mcpSessions) app.addHook('preClose', async () => services.mcpSessions!.close());
  // What PostgreSQL said about input it refused stays in the debug log (the client gets our words).
  logRefusedInputTo((detail, message) => app.log.debug(detail, message));
  // Every answer (API, GraphiQL, errors, the origin guard's refusals and preflights): not kept by a cache, not sniffed
  // into another type, not framed by another site, no Referer sent on. A route that serves something cacheable or its
  // own CSP sets its own.
  app.addHook('onRequest', async (req, reply) => {
    reply.headers(req.url.startsWith(GRAPHIQL_STATIC_PATH) ? GRAPHIQL_ASSET_HEADERS : DEFAULT_HEADERS);
  });
  registerOriginGuard(app, opts.origins ?? { loopback: true });
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });
  app.addHook('onRequest', async (req, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    // An event stream asked for now would end with a 503, on which an EventSource gives up for good: it gets a stream
    // that ends at once with a retry delay, and comes back to the next process.
    if (req.method === 'GET' && req.url.split('?')[0] === EVENTS_PATH) return retryStreamLater(reply, 'the service is shutting down');
    const refusal = new ApiError(503, { error: 'unavailable', message: 'The service is shutting down; try again shortly' }, { 'retry-after': '5' });
    // A small JSON-RPC call is refused once its body is read, to echo its id (as a refused key is, below).
    if (countedSurface(req) === 'rpc' && refusedAfterBody(req)) {
      req.svcAuthError = refusal;
      return;
    }
    throw refusal;
  });
  // Two Authorization headers: refused before any route reads the first (REST, JSON-RPC, SSE, GraphQL).
  app.addHook('onRequest', async (req) => assertOneAuthorization(req.raw.rawHeaders));
  // The tool routes know their key before they read the body: a request without a live key is refused without
  // decoding and parsing up to 2 MB of JSON on the one thread every tenant shares.
  // A key already over its rate limit this minute is refused unread too. Either refusal of a small body is answered
  // once the body is read, to echo its JSON-RPC id (a 429 said id null to every call after the one that crossed it).
  app.addHook('preParsing', async (req) => {
    const surface = countedSurface(req);
    if (!surface || req.svcAuthError) return;
    try {
      req.svcCaller = await opts.keys.authenticate(req.headers.authorization);
      limiter.refuseIfOver(req.svcCaller, surface);
    } catch (err) {
      // A database that cannot be reached while the key is looked up is a 503, answered with the call's id too.
      const refusal = err instanceof ApiError ? err : databaseUnavailable(err);
      if (!refusal || !refusedAfterBody(req)) throw err;
      req.svcAuthError = refusal;
      return;
    }
    // A compressed body is refused unread (counted against the key by the error handler, as a 415 for its type is).
    const encoded = unsupportedEncoding(req);
    if (encoded) throw encoded;
  });
  app.addHook('preValidation', async (req) => {
    if (req.svcAuthError && countedSurface(req)) throw req.svcAuthError;
    // Only a REST call takes the Idempotency-Key header. On JSON-RPC one header would cover every call the client
    // sends (each needs its own key: `_meta.idempotencyKey`), and a GraphQL request is not one transaction: taken in
    // silence, a client would believe its retries safe (an outside re-test's retry created a second issue).
    const rpc = countedSurface(req) === 'rpc';
    if (req.headers['idempotency-key'] !== undefined && (rpc || isGraphqlPath(req))) {
      throw invalidInput({ 'Idempotency-Key': rpc
        ? 'not read on JSON-RPC: give each tools/call its own params._meta.idempotencyKey'
        : 'not taken by GraphQL (a request is not one transaction); call the tool over REST or JSON-RPC with a key' });
    }
  });
  // Requests whose handler ran (and counted the call itself); the others are counted by the error handler.
  const reachedHandler = new WeakSet<FastifyRequest>();
  app.addHook('preHandler', async (req) => { reachedHandler.add(req); });

  // Only JSON bodies (spec 4.1): anything else, text/plain included, is 415.
  app.removeContentTypeParser('text/plain');
  // JSON bodies; an empty body is "no arguments" rather than an error. JSON is UTF-8 (RFC 8259): bytes that
  // are not are refused, never decoded to U+FFFD and stored (every JSON surface: REST, JSON-RPC, GraphQL).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    req.svcBodyBytes = bytes.length;
    // Every JSON surface (GraphQL too): compressed bytes are not JSON text.
    const encoded = unsupportedEncoding(req);
    if (encoded) return done(encoded, undefined);
    // Node 20 decodes UTF-8 at ~200 MB/s (10 ms of the one thread for a 2 MB body); ASCII, the usual JSON, as
    // 'ascii' is the same text at ~30× that.
    const ascii = isAscii(bytes);
    if (!ascii && !isUtf8(bytes)) {
      return done(new ApiError(400, { error: 'invalid_json', message: 'Request body is not valid UTF-8', issues: { body: 'not valid UTF-8' } }), undefined);
    }
    const text = bytes.toString(ascii ? 'ascii' : 'utf8').trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, { error: 'invalid_json', message: 'Request body is not valid JSON', issues: { body: 'not valid JSON' } }), undefined);
    }
  });

  // Every rejection before or around a call (401, 403, 413, 415, 429, bad JSON, 500): the spec's REST body,
  // or on the MCP endpoint a JSON-RPC error envelope with the same HTTP status (MCP Streamable HTTP).
  app.setErrorHandler(async (err, req, reply) => {
    let apiError: ApiError;
    let unavailable: ApiError | undefined;
    if (err instanceof ApiError) {
      apiError = err;
    } else {
      const status = (err as { statusCode?: number }).statusCode;
      const code = (err as NodeJS.ErrnoException).code;
      if (status === 415) {
        // `curl -d` sends application/x-www-form-urlencoded: say what to send, not only what was refused.
        apiError = new ApiError(415, { error: 'unsupported_media_type',
          message: `Send the body as JSON with Content-Type: application/json (got ${req.headers['content-type'] || 'no Content-Type'})` });
      } else if (status === 413) {
        // An importer sending 100 long descriptions at once heard only "too large": say how large, and what to do.
        apiError = new ApiError(413, { error: 'payload_too_large', limit: BODY_LIMIT_BYTES,
          message: `Request body is over ${BODY_LIMIT_BYTES / 1024 / 1024} MiB; send it in smaller parts (fewer items per call)` });
      } else if (status && status >= 400 && status < 500) {
        apiError = new ApiError(status, { error: STATUS_ERRORS[status] ?? 'bad_request', message: (err as Error).message });
      } else if ((code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'ERR_STREAM_PREMATURE_CLOSE')
                 && (req.raw.aborted || req.raw.socket?.destroyed)) {
        // The client went away mid-request (an aborted upload): nobody reads the answer, and it is not our fault.
        // (A reset of a database connection has the same code: it is the 503 below, not this.)
        req.log.info({ code }, 'client closed the connection mid-request');
        apiError = new ApiError(400, { error: 'bad_request', message: 'The request was cut off before its end' });
      } else if ((unavailable = databaseUnavailable(err, { write: req.method === 'POST' && isGraphqlPath(req)
                     && isMutationDocument(String((req.body as { query?: unknown } | undefined)?.query ?? '')) }))) {
        // Authentication (a key not in the cache), or a GraphQL request's statements, reach the database here.
        // Once a minute per process: every request of an outage wrote its line.
        const line = unavailableLogs.take('database');
        if (line.warn) req.log.warn({ code, suppressed: line.suppressed }, 'database unavailable');
        apiError = unavailable;
      } else {
        req.log.error({ err }, 'request failed');
        apiError = new ApiError(500, { error: 'internal', message: 'Internal server error' });
      }
    }
    // A key the database refused (revoked, expired or its agent archived a moment ago, before this process heard of
    // it) leaves the cache.
    if (refusesKey(apiError) && req.svcCaller) opts.keys.forget(req.svcCaller.keyId);
    // A call refused before its handler (bad body, 413, 415) still counts against the key's limit.
    const surface = apiError.status !== 401 && !reachedHandler.has(req) ? countedSurface(req) : undefined;
    if (surface && limiter.enabled(surface)) {
      const caller = req.svcCaller ?? await opts.keys.authenticate(req.headers.authorization).catch(() => undefined);
      if (caller) apiError = await limiter.take(caller, surface, 1 + bodyCalls(req.svcBodyBytes)).then(() => apiError, (e: unknown) => (e instanceof ApiError ? e : apiError));
    }
    // A body over the limit is read to its end (and dropped) before the 413: a client still sending when the
    // connection closed saw EPIPE instead of the answer (Node's fetch past ~5 MB, curl after its 100 Continue).
    if (apiError.status === 413) await discardRestOfBody(req.raw);
    reply.code(apiError.status).headers(apiError.headers);
    // A batch refused whole (a key over its rate limit) answers each of its calls, so a client matching answers by id
    // hears about every one (a single object with id null answered 50 calls).
    if (isMcpPath(req.url)) return sendRpcError(reply, apiError, requestId(req.body), batchIdsOf(req.body, apiError));
    // A GraphQL client reads `errors` (GraphQL over HTTP): a refusal before execution (401, 403, 429, query_too_complex)
    // carries it too, with the extensions field errors have (src/graphql/errors.ts), beside the REST-style fields.
    if (isGraphqlPath(req)) {
      const { error, message } = apiError.body;
      return reply.send({ ...apiError.body, errors: [{ message: message ?? error ?? 'Request refused', extensions: errorExtensions(apiError) }] });
    }
    return reply.send(apiError.body);
  });
  app.setNotFoundHandler((req, reply) => {
    // The MCP endpoint (any trailing slash) asked with a method no route takes (TRACE, PROPFIND, ...): 405 with what
    // it answers, in the JSON-RPC envelope of its other refusals.
    if (isMcpPath(req.url)) return mcpMethodNotAllowed(reply, req.method);
    // A path that exists, asked with a method it does not take: 405 with the ones it does (GET /graphql, PUT on
    // /api/plugins/events were "No route"). A fixed path lists its own methods only: /api/mcp/describe is GET, not
    // also POST for the tool aliases' pattern (POST there is unknown_tool).
    const path = req.url.split('?')[0]!;
    const routes = HTTP_METHODS.map((method) => ({ method, route: app.findRoute({ method, url: path }) })).filter((r) => r.route);
    const fixed = routes.filter((r) => Object.keys(r.route!.params ?? {}).length === 0);
    const allowed = (fixed.length ? fixed : routes).map((r) => r.method);
    if (allowed.length > 0) {
      const alias = /^\/api\/mcp\/[^/]+$/.test(path) && allowed.join() === 'POST';
      return reply.code(405).header('allow', allowed.join(', ')).send({ error: 'method_not_allowed', message: alias
        // A tool's REST alias asked with another method.
        ? `${req.method} ${path}: use POST with a JSON body (GET /api/mcp/describe lists the tools)`
        : `${req.method} ${path}: this path answers ${allowed.join(', ')}` });
    }
    return reply.code(404).send(noRoute(req.method, req.url).body);
  });

  // The probes answer within HEALTH_CHECK_MS whatever the database does (a frozen one held them as long as it was).
  app.get('/health', async (_req, reply) => {
    try {
      await withinMs(HEALTH_CHECK_MS, opts.ownerPool.query('select 1 from graphile_migrate.migrations limit 1'));
      return { ok: true };
    } catch {
      return reply.code(503).send({ ok: false });
    }
  });
  // Liveness: the process answers (no database call; a restart would not fix the database).
  app.get('/live', async () => ({ ok: true }));
  // Readiness: the database answers, every migration this code ships is applied, and events stream (this process's
  // LISTEN connection is up and sequencing: without it its streams stayed open and silent while /ready said 200).
  // Events flow when none committed waits more than a minute for its stream position (another process may hold the
  // sequencer's lock and be stuck: then no process streams, while each one's own connection is fine).
  const eventsFlowing = async () => {
    try {
      const { rows } = await withinMs(HEALTH_CHECK_MS, opts.ownerPool.query<{ waiting: boolean }>(
        `select exists (select 1 from app_public.activity_events where stream_pos is null and created_at < now() - interval '60 seconds') as waiting`));
      return !rows[0]!.waiting;
    } catch {
      return true; // not migrated yet (said by migrations), or the database is slow: not this check's to say
    }
  };
  app.get('/ready', async (req, reply) => {
    const expected = await committedMigrationCount();
    try {
      const { rows } = await withinMs(HEALTH_CHECK_MS, opts.ownerPool.query<{ n: number }>('select count(*)::int as n from graphile_migrate.migrations'));
      const applied = rows[0]!.n;
      const events = opts.events ? { events: opts.events.notifier.listening && (await eventsFlowing()) } : {};
      // Fewer: still migrating. More: a newer release migrated this database (this code does not know its SQL).
      const ok = applied === expected && events.events !== false;
      return reply.code(ok ? 200 : 503).send({ ok, database: true, ...events, migrations: { applied, expected } });
    } catch (err) {
      // Once a minute (a prober every second wrote a line a second for the whole outage).
      const line = readinessLogs.take('ready');
      if (line.warn) req.log.warn({ err: (err as Error).message, suppressed: line.suppressed }, 'readiness check: database not reachable');
      return reply.code(503).send({ ok: false, database: false });
    }
  });
  app.get('/metrics', async (_req, reply) => {
    const { contentType, body } = await metrics.text();
    return reply.header('content-type', contentType).send(body);
  });

  app.get('/api/mcp/describe', async () => ({
    serverInfo: buildInfo(),
    transports: {
      jsonRpc: { method: 'POST', path: '/api/mcp/rpc' },
      rest: { method: 'POST', path: '/api/mcp/{namespace}.{tool}' },
      events: { method: 'GET', path: EVENTS_PATH },
    },
    tools: TOOLS.map(descriptor),
  }));

  app.get('/api/mcp/openapi.json', async (_req, reply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send(openApiJson()));

  registerMcp(app, services);
  registerWeb(app);
  if (opts.blobs instanceof EmbeddedBlobStore) registerBlobRoutes(app, opts.blobs, opts.ownerPool);
  if (opts.events) registerSse(app, opts.keys, opts.events, services.streams);

  if (opts.graphql) {
    const graphql = opts.graphql;
    // Its own plugin scope: the GraphQL auth hook applies to the GraphQL routes only.
    app.register(async (scope) => registerGraphql(scope, {
      ...graphql, keys: opts.keys, rateLimit: services.rateLimit,
      keylessLimit: (address) => keyless.take(address),
      callTool: (caller, t, args, runOptions) => services.callTool(caller, t, args, 'graphql', runOptions),
    }));
  }

  // REST alias: the tool's input object in, its output out; errors with the status and body of spec part 7.
  app.post<{ Params: { tool: string } }>('/api/mcp/:tool', async (req, reply) => {
    const caller = req.svcCaller!;
    await limiter.take(caller, 'rest', 1 + bodyCalls(req.svcBodyBytes));
    const t = findTool(req.params.tool);
    if (!t) throw unknownTool(req.params.tool);
    // Arguments travel in the body only: `?limit=1` was ignored, and its caller read a whole page as one.
    const query = Object.keys((req.query ?? {}) as object);
    if (query.length > 0) {
      throw invalidInput(Object.fromEntries(query.map((k) => [k, 'not read from the address: send the tool\'s arguments in the JSON body'])),
        `A tool's arguments go in the JSON body, not the address (${query.join(', ')})`);
    }
    const json = await services.callTool(caller, t, toolInput(req.body, 'body'), 'rest', idempotencyHeader(req, reply));
    return reply.header('content-type', 'application/json; charset=utf-8').send(json);
  });

  return { app, services };
}
