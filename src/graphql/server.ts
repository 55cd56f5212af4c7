/**
 * GraphQL for in-app clients: PostGraphile v5 in-process on our Fastify server.
 *
 *   POST /graphql    Bearer key required (the same keys, checks and 401s as MCP), then one transaction
 *                    per database round trip with role svc_visitor and the caller's identity in the
 *                    svc.* settings, so RLS sees exactly what an MCP call by this key would see.
 *   GET  /graphiql   PostGraphile's GraphiQL (Ruru); its assets are served from /ruru-static/. It opens on a
 *                    first screen that says how to add the key (ruru.clientConfig in preset.ts).
 *
 * Introspection is public: a request whose every operation selects only __schema / __type / __typename
 * is answered without a key (or with a bad one), so GraphiQL's schema and docs load at once instead of
 * "Error fetching schema" until a manual re-fetch. The schema is the same for every key (RLS decides
 * rows, not types) and is published anyway (schema.graphql in the repository, /api/mcp/describe).
 *
 * Identity: the Bearer key is authenticated in Node by KeyAuthenticator (401 invalid/revoked/expired),
 * bypassing its cache: one indexed lookup per GraphQL request, so a key revoked a moment ago (by GraphQL,
 * by `svc admin`, by another process) is refused at once. The identity then travels as pgSettings: the
 * same svc.* settings app_hidden.set_request_context writes for MCP calls. Every in-app procedure
 * re-reads the key row itself (app_private.current_caller) before it acts.
 */
import '../polyfills.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { Transform, type Readable } from 'node:stream';
import { Kind, type DocumentNode } from 'graphql';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/fastify/v5';
import { hasScope, type Caller, type KeyAuthenticator, type Scope } from '../auth/keys.ts';
import { takeShare } from '../db/as-caller.ts';
import { ApiError, invalidInput, noRoute, scopeRequired } from '../errors.ts';
import { maskError } from './errors.ts';
import { measureQuery, parseQuery } from './limits.ts';
import { GRAPHIQL_STATIC_PATH, makePreset } from './preset.ts';
import { loadClosedSets } from './enums.ts';
import { bodyCalls, KEYLESS_BODY_LIMIT } from '../http/rate-limit.ts';
import { inTurn, releaseWhenAnswered } from './request-budget.ts';
import { TOOL_FIELD_NAMES, type ToolMutationContext } from './tool-mutations.ts';
import type { Tool } from '../tools/define.ts';
import { checkInput } from '../tools/text-guard.ts';
import type { RunOptions } from '../tools/invoke.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key of a POST /graphql request. */
    svcCaller?: Caller;
    /** Why the key was refused: on GraphQL answered unless the request is introspection only; on the tool routes once
     *  the (small) body is read, to echo its JSON-RPC id. */
    svcAuthError?: ApiError;
    /** An introspection-only request answered without a key. */
    svcIntrospection?: boolean;
    /** A live key without GraphQL's read scopes: it may still ask about itself (SELF_FIELDS). */
    svcScopeLimitedCaller?: Caller;
  }
}

/** The codes of grafserv's refusals of a request's media types, by HTTP status. */
const MEDIA_REFUSALS: Record<number, string> = { 406: 'not_acceptable', 415: 'unsupported_media_type' };
const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);
/** What a key may ask about itself without the read scopes: the board tells an agent's key it is one by this. */
const SELF_FIELDS = new Set(['viewerKeyKind', 'viewerKeyId', 'viewerScopes', '__typename']);

/** A document refused before it runs (limits.ts), on the query as a whole. */
const queryTooComplex = (message: string) => new ApiError(400, { error: 'query_too_complex', message, issues: { query: message } });

/** True when every operation of the document selects only introspection fields (or `fields`) at its top level. */
function isIntrospectionOnly(doc: DocumentNode | undefined, fields: ReadonlySet<string> = INTROSPECTION_FIELDS): boolean {
  if (!doc) return false;
  const operations = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  return operations.length > 0 && operations.every((op) => op.operation === 'query'
    && op.selectionSet.selections.every((sel) => sel.kind === Kind.FIELD && fields.has(sel.name.value)));
}

export const GRAPHQL_PATH = '/graphql';
export const GRAPHIQL_PATH = '/graphiql';

/**
 * GraphQL exposes issues, projects, comments and members together, so a key must be able to read all
 * of them over MCP too (FULL does): a query never shows more than the key's MCP tools could.
 */
export const GRAPHQL_READ_SCOPES: readonly Scope[] = ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'];

export interface GraphqlOptions {
  /** Connections as svc_visitor (createPools().api). Owned by the caller, who ends it. */
  pool: pg.Pool;
  keys: KeyAuthenticator;
  graphiql?: boolean;
  /** Counts a GraphQL request (and each mutation field past its first) against the key's REST limit (shared across processes). */
  rateLimit?: (caller: Caller, surface: 'rest', calls?: number) => Promise<void>;
  /** Counts an introspection request answered without a key against its address (throws the 429). */
  keylessLimit?: (address: string) => void;
  /** Runs a catalog tool as REST and JSON-RPC do (the tool mutations, tool-mutations.ts). */
  callTool?: (caller: Caller, t: Tool, args: unknown, opts?: RunOptions) => Promise<string>;
}

const pgArray = (values: readonly string[]) => `{${values.join(',')}}`;

/** How long one GraphQL statement may run: what the query-shape limits (limits.ts) cannot foresee stops here. */
export const GRAPHQL_STATEMENT_TIMEOUT = '10s';

/** The transaction-local settings app_hidden.set_request_context writes, plus the request role and the statement timeout. */
export function pgSettingsFor(caller: Caller): Record<string, string> {
  return {
    role: 'svc_visitor',
    statement_timeout: GRAPHQL_STATEMENT_TIMEOUT,
    'svc.workspace_id': caller.workspaceId,
    'svc.user_id': caller.userId ?? '',
    'svc.key_id': caller.keyId,
    'svc.agent_id': caller.agentId ?? '',
    'svc.scopes': pgArray(caller.scopes),
    'svc.project_ids': pgArray(caller.projectIds),
    'svc.label_ids': pgArray(caller.labelIds),
    'svc.initiative_ids': pgArray(caller.initiativeIds),
  };
}

/** Mounts POST /graphql and GET /graphiql on `app` (call inside app.register to keep the hook local). */
export async function registerGraphql(app: FastifyInstance, opts: GraphqlOptions): Promise<void> {
  const preset = makePreset({ pool: opts.pool, graphiql: opts.graphiql, closedSets: await loadClosedSets(opts.pool) });
  const pgl = postgraphile({
    extends: [preset],
    grafserv: { maskError },
    grafast: {
      context(requestContext) {
        const request = (requestContext as Grafast.RequestContext).fastifyv5?.request as FastifyRequest | undefined;
        const caller = request?.svcCaller;
        // Introspection without a key: no database identity (it reads no rows).
        if (!caller && request?.svcIntrospection) return {};
        // Unreachable: the hooks below answer 401 first.
        if (!caller) throw new ApiError(401, { error: 'invalid', message: 'Missing bearer token' });
        const pgSettings = pgSettingsFor(caller);
        // A tool field runs in the request's turns (after and before its other fields), under what is left of its
        // budget, and in the place in the workspace's share of the pool the request holds (hook below).
        const callTool = opts.callTool;
        const tools: ToolMutationContext = {
          svcCaller: caller,
          svcCallTool: callTool &&
            ((c, t, args) => inTurn(pgSettings, (left) => callTool(c, t, args, { inShare: false, statementTimeoutMs: left }))),
        };
        return { pgSettings, ...tools };
      },
    },
  });
  // Build the schema now: a broken schema fails start-up instead of the first request.
  const schema = await pgl.getSchema();
  const serv = pgl.createServ(grafserv);

  const isGraphqlPost = (request: FastifyRequest) => request.method === 'POST' && request.routeOptions.url === GRAPHQL_PATH;
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!isGraphqlPost(request)) return;
    let caller: Caller;
    try {
      caller = await opts.keys.authenticate(request.headers.authorization, { fresh: true });
    } catch (err) {
      // Decided once the body is read: introspection is answered anyway, anything else gets this error.
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
        request.svcAuthError = err;
        return;
      }
      throw err;
    }
    await opts.rateLimit?.(caller, 'rest');
    const missing = GRAPHQL_READ_SCOPES.filter((scope) => !hasScope(caller, scope));
    if (missing.length > 0) {
      // `scope` names the first (spec 5.5); the message names them all, so a person fixes the key once, not per scope.
      request.svcAuthError = missing.length === 1 ? scopeRequired(missing[0]!) : new ApiError(403, {
        error: 'scope_required', scope: missing[0],
        message: `This key lacks the ${missing.join(', ')} scopes (GraphQL reads need ${GRAPHQL_READ_SCOPES.join(', ')})`,
      });
      request.svcScopeLimitedCaller = caller;
      return;
    }
    request.svcCaller = caller;
  });
  // Without a key only introspection is answered (GraphiQL's query is about 3 KB): a larger body is refused before it
  // is decoded and parsed.
  app.addHook('preParsing', async (request: FastifyRequest, _reply: FastifyReply, payload: Readable) => {
    const refusal = isGraphqlPost(request) ? request.svcAuthError : undefined;
    if (!refusal) return payload;
    if (Number(request.headers['content-length']) > KEYLESS_BODY_LIMIT) throw refusal;
    let received = 0;
    return payload.pipe(new Transform({
      transform(chunk: Buffer, _encoding, next) {
        received += chunk.length;
        next(received > KEYLESS_BODY_LIMIT ? refusal : null, chunk);
      },
    }));
  });
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isGraphqlPost(request)) return;
    // A media type is case-insensitive (RFC 9110 8.3.1): REST and JSON-RPC took APPLICATION/JSON, grafserv refused it (415).
    const contentType = request.headers['content-type'];
    if (contentType) request.headers['content-type'] = contentType.toLowerCase();
    // What the request asks for (limits.ts), before anything runs, with a key or without.
    const { query, variables, operationName } = (request.body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
    let writes = 0;
    let doc: DocumentNode | undefined;
    // Text PostgreSQL cannot store (NUL, lone surrogates, which pg would turn into U+FFFD unseen), as for every tool;
    // graphql-js refuses such escapes in the query's own literals.
    // Nesting is bounded as for tool input (a JSON argument 7,000 arrays deep overflowed the stack: a 500).
    const checked = checkInput(variables, { maxKeys: Infinity, maxItems: Infinity });
    const unstorable = { ...checked.structure, ...checked.text };
    if (Object.keys(unstorable).length) {
      const issues = Object.fromEntries(Object.entries(unstorable).map(([path, message]) => [`variables.${path}`, message]));
      throw new ApiError(400, { error: 'invalid_input', message: `Invalid variables: ${Object.keys(issues).join(', ')}`, issues });
    }
    if (typeof query === 'string') {
      const parsed = parseQuery(query);
      if (parsed && 'refused' in parsed) throw queryTooComplex(parsed.refused);
      doc = parsed;
      // The schema has no subscription type (graphql-js 16 lets such an operation through validation, and execution
      // then fails as an internal error): changes stream over SSE.
      const ops = doc ? doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION) : [];
      const op = typeof operationName === 'string' ? ops.find((d) => d.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
      if (op?.operation === 'subscription') {
        const message = 'GraphQL subscriptions are not served: follow changes on the event stream, GET /api/plugins/events (SSE)';
        throw new ApiError(400, { error: 'subscriptions_not_supported', message, issues: { query: message } });
      }
      const shape = doc && measureQuery(schema, doc, variables && typeof variables === 'object' ? variables as Record<string, unknown> : undefined, TOOL_FIELD_NAMES);
      if (shape?.refused) throw queryTooComplex(shape.refused);
      if (shape?.invalid) throw invalidInput(shape.invalid);
      writes = shape?.writes ?? 0;
    }
    if (request.svcAuthError) {
      if (isIntrospectionOnly(doc)) {
        // The one answer given without a key is still work (a full introspection is ~50 ms and 640 KB): counted
        // against the address it came from, as a key's calls are against the key.
        opts.keylessLimit?.(request.ip);
        request.svcIntrospection = true;
      } else if (request.svcScopeLimitedCaller && isIntrospectionOnly(doc, SELF_FIELDS)) request.svcCaller = request.svcScopeLimitedCaller;
      else throw request.svcAuthError;
      return;
    }
    // The request counted once at onRequest; each further write is one more call (as in a JSON-RPC batch), and so is
    // each full 256 KiB of its body.
    const moreCalls = Math.max(0, writes - 1) + bodyCalls(request.svcBodyBytes);
    if (request.svcCaller && moreCalls > 0) await opts.rateLimit?.(request.svcCaller, 'rest', moreCalls);
    // A GraphQL request holds a place in its workspace's share of the pool (src/db/as-caller.ts), the share its tool
    // calls over REST and JSON-RPC take too; its statements and tool fields run in that place, one at a time
    // (request-budget.ts). The place is given back when the answer is written; a client that hangs up first does not
    // stop the request's statements, so then it is held until they have run out of budget.
    if (request.svcCaller) {
      const release = await takeShare(opts.pool, request.svcCaller.workspaceId);
      // A client that left while the request waited for its place: nothing to run for it.
      if (request.raw.socket?.destroyed) {
        release();
        throw new ApiError(400, { error: 'bad_request', message: 'The client closed the connection before the request ran' });
      }
      releaseWhenAnswered(reply.raw, release);
    }
  });
  // The errors grafserv writes itself (a syntax or validation error, a body that is not one request) carry no code,
  // where every other error carries its code and status: given them here (invalid_query, 400), on those answers
  // only (they have no data, and are small).
  // A refusal of the request's media types (406 for its Accept, 415 for its Content-Type) is coded as the other
  // surfaces code them, with their top-level error and message too (it said invalid_query, and status 400 on a 406).
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    // An asset GraphiQL does not have: the JSON 404 of every other unknown path, not grafserv's HTML page.
    if (reply.statusCode === 404 && request.url.startsWith(GRAPHIQL_STATIC_PATH)) {
      reply.type('application/json; charset=utf-8');
      return JSON.stringify(noRoute(request.method, request.url).body);
    }
    if (!isGraphqlPost(request)) return payload;
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    if (!text?.startsWith('{"errors":')) return payload;
    const body = JSON.parse(text) as { errors?: Array<{ message?: string; extensions?: Record<string, unknown> }>; error?: string; message?: string };
    const mediaRefusal = MEDIA_REFUSALS[reply.statusCode];
    let coded = false;
    for (const e of body.errors ?? []) {
      if (e.extensions?.code) continue;
      const { statusCode, ...rest } = e.extensions ?? {};
      e.extensions = { ...rest, code: mediaRefusal ?? 'invalid_query', status: typeof statusCode === 'number' ? statusCode : reply.statusCode >= 400 ? reply.statusCode : 400 };
      coded = true;
    }
    if (mediaRefusal && body.errors?.[0]) Object.assign(body, { error: mediaRefusal, message: body.errors[0].message });
    return coded ? JSON.stringify(body) : payload;
  });
  await serv.addTo(app);
  app.addHook('onClose', async () => {
    await pgl.release();
  });
}
