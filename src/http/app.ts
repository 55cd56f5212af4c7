/**
 * The HTTP surface: thin. Authenticate, validate, call the tool's SQL function, shape errors.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import type pg from 'pg';
import type { Caller, KeyAuthenticator } from '../auth/keys.ts';
import { EmbeddedBlobStore } from '../blobs/embedded.ts';
import { registerBlobRoutes } from '../blobs/routes.ts';
import type { BlobStore } from '../blobs/store.ts';
import { buildInfo } from '../build-info.ts';
import { ApiError } from '../errors.ts';
import { registerGraphql } from '../graphql/server.ts';
import { descriptor, findTool, TOOLS } from '../tools/catalog.ts';
import type { EventHub } from '../events/hub.ts';
import type { ToolRunner } from '../tools/invoke.ts';
import { registerMcp } from './mcp.ts';
import { RateLimiter } from './rate-limit.ts';
import { registerSse } from './sse.ts';

export interface AppServices {
  ownerPool: pg.Pool;
  keys: KeyAuthenticator;
  runner: ToolRunner;
  rateLimit(caller: Caller, surface: 'rpc' | 'rest', reply: FastifyReply): void;
}

export interface AppOptions {
  ownerPool: pg.Pool;
  keys: KeyAuthenticator;
  runner: ToolRunner;
  rateLimits?: { rpc: number; rest: number };
  logLevel?: string;
  /** SSE fan-out; without it GET /api/plugins/events is not served. */
  events?: EventHub;
  /** Serve POST /graphql and GET /graphiql over this svc_visitor pool (the schema is built on ready()). */
  graphql?: { pool: pg.Pool; graphiql?: boolean };
  /** The attachment blob store; the embedded one is served here at /blobs/… (signed URLs). */
  blobs?: BlobStore;
}

const isMcpPath = (url: string) => /^\/api\/mcp(\/rpc)?(\?|$)/.test(url);

export function buildApp(opts: AppOptions): { app: FastifyInstance; services: AppServices } {
  const app = Fastify({
    logger: { level: opts.logLevel ?? 'info' },
    // No per-request log lines on the hot path (logging each request cost 17% here).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 2 * 1024 * 1024,
  });
  const limiter = new RateLimiter(opts.rateLimits ?? { rpc: 600, rest: 300 });
  const services: AppServices = {
    ownerPool: opts.ownerPool,
    keys: opts.keys,
    runner: opts.runner,
    rateLimit: (caller, surface) => limiter.check(caller, surface),
  };

  // JSON bodies; an empty body is "no arguments" rather than an error.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, { error: 'invalid_json', message: 'Request body is not valid JSON', issues: { body: 'not valid JSON' } }), undefined);
    }
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ApiError) {
      if (err.body.error === 'invalid_json' && isMcpPath(req.url)) {
        return reply.code(400).send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      return reply.code(err.status).headers(err.headers).send(err.body);
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ error: 'bad_request', message: (err as Error).message });
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: 'internal', message: 'Internal server error' });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'not_found', message: `No route ${req.method} ${req.url}` }));

  app.get('/health', async (_req, reply) => {
    try {
      await opts.ownerPool.query('select 1 from graphile_migrate.migrations limit 1');
      return { ok: true };
    } catch {
      return reply.code(503).send({ ok: false });
    }
  });

  app.get('/api/mcp/describe', async () => ({
    serverInfo: buildInfo(),
    transports: {
      jsonRpc: { method: 'POST', path: '/api/mcp/rpc' },
      rest: { method: 'POST', path: '/api/mcp/{namespace}.{tool}' },
      events: { method: 'GET', path: '/api/plugins/events' },
    },
    tools: TOOLS.map(descriptor),
  }));

  registerMcp(app, services);
  if (opts.blobs instanceof EmbeddedBlobStore) registerBlobRoutes(app, opts.blobs);
  if (opts.events) registerSse(app, opts.keys, opts.events);

  if (opts.graphql) {
    const graphql = opts.graphql;
    // Its own plugin scope: the GraphQL auth hook applies to the GraphQL routes only.
    app.register(async (scope) => registerGraphql(scope, { ...graphql, keys: opts.keys }));
  }

  // REST alias: the tool's input object in, its output out; errors with the status and body of spec part 7.
  app.post<{ Params: { tool: string } }>('/api/mcp/:tool', async (req, reply) => {
    const caller = await opts.keys.authenticate(req.headers.authorization);
    limiter.check(caller, 'rest');
    const t = findTool(req.params.tool);
    if (!t) throw new ApiError(404, { error: 'unknown_tool', message: `Unknown tool: ${req.params.tool}` });
    const body = req.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, { error: 'invalid_input', message: 'Body must be a JSON object', issues: { body: 'must be a JSON object' } });
    }
    const json = await opts.runner.run(caller, t, body);
    return reply.header('content-type', 'application/json; charset=utf-8').send(json);
  });

  return { app, services };
}
