/**
 * MCP over Streamable HTTP: POST /api/mcp/rpc and /api/mcp answer with JSON; a session that subscribes to
 * resources gets its notifications on GET (SSE) with Mcp-Session-Id (mcp-subscriptions.ts).
 * Tools here; resources, prompts, completion and logging/setLevel in mcp-extras.ts.
 * Protocol faults (unparseable body, unknown method or tool, bad params) are JSON-RPC errors; a tool that
 * fails (validation, scope, not found, conflict) is a result with isError: true (decisions.md).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../auth/keys.ts';
import { buildInfo } from '../build-info.ts';
import { ApiError, invalidInput, refusesKey } from '../errors.ts';
import { findTool, fullListing, mcpDescriptor, selectTools, unknownTool } from '../tools/catalog.ts';
import { sendRpcError, toolInput, type AppServices } from './app.ts';
import { handleExtra, invalidParams, RpcFault, type McpContext } from './mcp-extras.ts';
import { McpSessions } from './mcp-subscriptions.ts';
import { bodyCalls } from './rate-limit.ts';
import { headOfStream, openEventStream } from './sse.ts';
import { clip } from '../text.ts';

const TOOLS_PAGE_SIZE = 100;
/** The client's Mcp-Session-Id (named by initialize; mcp-subscriptions.ts). */
const sessionOf = (req: FastifyRequest) => {
  const h = req.headers['mcp-session-id'];
  return typeof h === 'string' && h ? h : undefined;
};
/** decisions.md: a JSON-RPC batch holds at most 50 calls; each counts against the key's rate limit. */
export const MAX_BATCH = 50;
/** The first MCP version without JSON-RPC batches ("Remove support for JSON-RPC batching", 2025-06-18). */
const NO_BATCHES_FROM = '2025-06-18';
/** The MCP endpoint's paths; a trailing slash is the same endpoint (a common client configuration). */
export const MCP_ENDPOINTS = ['/api/mcp/rpc', '/api/mcp', '/api/mcp/rpc/', '/api/mcp/'];
/** What the MCP endpoint answers, for every 405 on it. */
const ALLOW = 'GET, HEAD, POST, DELETE'; // HEAD: the GET route's (a session stream's headers)
type Id = string | number | null;

const rpcError = (id: Id, code: number, message: string, data?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
/** A fault's answer (RpcFault, mcp-extras.ts: -32602 and the rest, with REST's body in data). */
const faultError = (id: Id, fault: RpcFault) => rpcError(id, fault.code, fault.message, fault.data);
/** -32602 naming `field`, its message also in data (invalidParams, as the extras refuse params). */
const paramsRefused = (id: Id, message: string, field: string, issue: string) =>
  faultError(id, invalidParams(message, { [field]: issue }, { message }));
const rpcResult = (id: Id, resultJson: string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;

/** A tool's output as an MCP CallToolResult; the output JSON text is embedded as is (no re-serialising). */
function toolResult(outputJson: string, replayed = false): string {
  // A replayed answer (the earlier call's with the same _meta.idempotencyKey) says so in the result's _meta.
  const meta = replayed ? ',"_meta":{"idempotentReplayed":true}' : '';
  // A tool whose answer is null (cycles.current, time.running) has no structured content to give.
  if (outputJson === 'null') return `{"content":[{"type":"text","text":"null"}]${meta}}`;
  const structured = outputJson.startsWith('{') ? outputJson : `{"items":${outputJson}}`;
  return `{"content":[{"type":"text","text":${JSON.stringify(outputJson)}}],"structuredContent":${structured}${meta}}`;
}

/**
 * A failed call: `isError` with the error body `{error, status, issues?, scope?}` as JSON text. No
 * structuredContent: MCP clients (the official SDK among them) validate structuredContent against the
 * tool's outputSchema even on errors, so an error object there would turn every failure into a schema fault.
 */
function toolError(err: ApiError): string {
  const body = { ...err.body, status: err.status };
  return JSON.stringify({ isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] });
}

/** tools/list selectors as the query string gives them (a repeated parameter is an array). */
interface Selectors {
  profile?: string | string[];
  tools?: string | string[];
}

/**
 * The MCP-Protocol-Version header, when a client sends one (after initialize), must name a version this server
 * speaks: otherwise 400 (MCP transports, "Protocol Version Header"). Without it, the negotiated or default version.
 */
function assertProtocolVersion(req: FastifyRequest): void {
  const v = req.headers['mcp-protocol-version'];
  if (v === undefined || (typeof v === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(v))) return;
  throw new ApiError(400, {
    error: 'unsupported_protocol_version',
    message: `MCP-Protocol-Version ${JSON.stringify(v)} is not one this server speaks (${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
  });
}

/**
 * A session's stream and its end are for the key it was made for (McpSessions.mint): another key's id, or one this
 * server never made, is 404 (the MCP transport's answer for a session it does not know; a client then initializes
 * again). They were 200 and did nothing. A session its client ended (DELETE) is 404 too (MCP: a terminated session).
 */
function assertOwnSession(id: string, caller: Caller, sessions: McpSessions): void {
  if (!McpSessions.owns(id, caller)) {
    throw new ApiError(404, { error: 'session_not_found', message: 'No MCP session of this id for this key: initialize to get one' });
  }
  if (sessions.isEnded(id)) {
    throw new ApiError(404, { error: 'session_not_found', message: 'This MCP session was ended (DELETE): initialize to get a new one' });
  }
}

/**
 * Whether an Accept header takes `type`: its own range, its family's (text/*) or any (*\/*), with a q above 0; no
 * header takes anything.
 */
function accepts(accept: string | string[] | undefined, type: 'application/json' | 'text/event-stream'): boolean {
  if (accept === undefined) return true;
  const family = `${type.split('/')[0]}/*`;
  return (Array.isArray(accept) ? accept.join(',') : accept).split(',').some((range) => {
    const [media, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return (media === type || media === family || media === '*/*') && !(q && !(Number(q.slice(2)) > 0));
  });
}

/** A message of a request body, sorted before anything runs. */
type Classified =
  /** Not a JSON-RPC request (-32600): its answer. */
  | { kind: 'invalid'; response: string }
  /** A notification or a client's response: nothing to answer. */
  | { kind: 'ignored' }
  | { kind: 'request'; id: string | number; method: string; params: unknown };

/** An Invalid Request carries data as every other refusal does: {error, status}. */
const invalidRequest = (id: Id, message: string): Classified =>
  ({ kind: 'invalid', response: rpcError(id, ErrorCode.InvalidRequest, message, { error: 'invalid_request', status: 400 }) });

/**
 * Sorts a message. A numeric id must be a safe integer: 1e400 (Infinity), 12345678901234567890 (not exact as a
 * number) or 1.5 could not be echoed as sent, and JSON-RPC asks for the same id back; such a request is refused with id
 * null. An invalid request's id is echoed when it can be read (JSON-RPC 2.0 asks for null only when it cannot), so the
 * client can tell which request was refused.
 */
function classify(message: unknown): Classified {
  const readId = (message as { id?: unknown } | null)?.id;
  const echoedId = typeof readId === 'string' || (typeof readId === 'number' && Number.isSafeInteger(readId)) ? readId : null;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    // "hi" or 5 was told its "jsonrpc" must be "2.0", as if it were a message with the wrong version.
    return invalidRequest(null, `Invalid JSON-RPC 2.0 message: a message is a JSON object {"jsonrpc": "2.0", "method", …} (a batch is an array of them), not ${message === null ? 'null' : Array.isArray(message) ? 'an array inside a batch' : `a ${typeof message}`}`);
  }
  if ((message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
    return invalidRequest(echoedId, 'Invalid JSON-RPC 2.0 message: "jsonrpc" must be "2.0"');
  }
  const msg = message as { id?: unknown; method?: unknown; params?: unknown };
  if (typeof msg.method !== 'string') {
    // A response or error from the client: nothing to answer.
    if ('result' in msg || 'error' in msg) return { kind: 'ignored' };
    return invalidRequest(echoedId, 'method must be a string');
  }
  if (!('id' in msg) || msg.id === undefined) return { kind: 'ignored' }; // notification → 202
  if (typeof msg.id === 'number' && !Number.isSafeInteger(msg.id)) {
    return invalidRequest(null, 'id must be a string or an integer of at most 2^53 - 1 in magnitude (this number could not be echoed exactly): use a string or an integer id');
  }
  if (typeof msg.id !== 'string' && typeof msg.id !== 'number') {
    return invalidRequest(null, 'id must be a string or an integer: use a string or an integer id');
  }
  return { kind: 'request', id: msg.id, method: msg.method, params: msg.params };
}

export function registerMcp(app: FastifyInstance, services: AppServices): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    assertProtocolVersion(req);
    const caller = req.svcCaller!; // app.ts authenticates the tool routes before reading the body
    // A session id this key was not given: 404, as MCP asks of a session the server does not know (the call ran as
    // the caller anyway, but a client should learn its session is not one).
    const sessionId = sessionOf(req);
    if (sessionId && services.mcpSessions) assertOwnSession(sessionId, caller, services.mcpSessions);
    // Every answer to a POST is JSON: a client that takes none (Accept: text/html, text/event-stream alone,
    // application/json;q=0) is told so, as a GET without text/event-stream is, after the session's check (it got JSON
    // anyway).
    if (!accepts(req.headers.accept, 'application/json')) {
      throw new ApiError(406, { error: 'not_acceptable',
        message: 'POST answers application/json: send Accept: application/json, text/event-stream (or none)' });
    }
    const body = req.body;
    const selectors = req.query as Selectors;
    const batch = Array.isArray(body);
    const messages: unknown[] = batch ? body : [body];
    // MCP 2025-06-18 removed batches: a client that says it speaks that version or a later one sends one message per
    // request. Without the header (2025-03-26, the default) or with an earlier version, batches stay.
    const version = req.headers['mcp-protocol-version'];
    const batchRefused = batch && typeof version === 'string' && version >= NO_BATCHES_FROM;
    // Every message of a batch counts (one upsert for the whole request). A batch refused whole (empty, over
    // the size limit, or of a version without batches: nothing runs) is one call: 10,000 pings must not spend the
    // key's minute.
    const refusedWhole = messages.length === 0 || messages.length > MAX_BATCH || batchRefused;
    await services.rateLimit(caller, 'rpc', (refusedWhole ? 1 : messages.length) + bodyCalls(req.svcBodyBytes));
    // No body at all is not a message (JSON-RPC: a parse error, as any other body that is not JSON).
    if (body === undefined) {
      throw new ApiError(400, { error: 'invalid_json', message: 'Request body is empty: send a JSON-RPC message', issues: { body: 'empty' } });
    }
    if (batchRefused) {
      return sendJson(reply, 400, rpcError(null, ErrorCode.InvalidRequest,
        `JSON-RPC batches are not part of MCP ${NO_BATCHES_FROM} and later (MCP-Protocol-Version: ${version}): send one message per request`,
        { error: 'batch_not_supported', status: 400, protocolVersion: version }));
    }
    if (messages.length === 0) return sendJson(reply, 400, rpcError(null, ErrorCode.InvalidRequest, 'Empty batch', { error: 'empty_batch', status: 400 }));
    if (messages.length > MAX_BATCH) {
      return sendJson(reply, 400, rpcError(null, ErrorCode.InvalidRequest, `Batch too large: ${messages.length} messages, at most ${MAX_BATCH}`,
        { error: 'batch_too_large', status: 400, limit: MAX_BATCH }));
    }

    const session: McpContext = { sessionId };
    const responses: string[] = [];
    let invalid = false;
    for (const message of messages) {
      const c = classify(message);
      if (c.kind === 'ignored') continue;
      if (c.kind === 'invalid') {
        invalid = true;
        responses.push(c.response);
      } else if (batch && c.method === 'initialize') {
        // MCP 2025-03-26: "the initialize request MUST NOT be part of a JSON-RPC batch".
        responses.push(rpcError(c.id, ErrorCode.InvalidRequest, 'initialize must not be part of a JSON-RPC batch: send it alone', { error: 'invalid_request', status: 400 }));
      } else {
        try {
          responses.push(await handleMessage(services, caller, selectors, c, req, session));
        } catch (err) {
          // In a batch, a call the database could not take answers for itself: the calls before it may have
          // committed (the whole batch answered 503, and a client retrying made them twice).
          if (!batch || !(err instanceof ApiError) || err.status !== 503) throw err;
          responses.push(rpcError(c.id, ErrorCode.InternalError, err.body.message ?? err.body.error, { ...err.body, status: err.status }));
        }
      }
    }
    // Named on initialize; it only matters to clients that subscribe to resources (mcp-subscriptions.ts).
    if (session.created) reply.header('mcp-session-id', session.created);
    if (responses.length === 0) return reply.code(202).send();
    // A single message the server cannot accept is an HTTP error (MCP transports: "MUST return an HTTP error status
    // code"); a batch answers 200 with an answer per message.
    return sendJson(reply, !batch && invalid ? 400 : 200, batch ? `[${responses.join(',')}]` : responses[0]!);
  };
  for (const path of MCP_ENDPOINTS) app.post(path, handler);
  const noSessions = 'This server keeps no MCP sessions (no event feed): POST JSON-RPC messages';
  // GET with the session id: the stream of server notifications (notifications/resources/updated).
  const stream = async (req: FastifyRequest, reply: FastifyReply) => {
    assertProtocolVersion(req);
    const id = sessionOf(req);
    const sessions = services.mcpSessions;
    if (!sessions) return mcpNotAllowed(reply, noSessions);
    if (!id) {
      return mcpNotAllowed(reply, 'GET opens the notification stream of a session: send the Mcp-Session-Id from initialize (and Accept: text/event-stream); calls are POST');
    }
    const caller = await services.keys.authenticate(req.headers.authorization);
    assertOwnSession(id, caller, sessions);
    if (!accepts(req.headers.accept, 'text/event-stream')) {
      throw new ApiError(406, { error: 'not_acceptable',
        message: 'GET with an Mcp-Session-Id answers the session\'s notification stream, text/event-stream: send Accept: text/event-stream' });
    }
    if (req.method === 'HEAD') return headOfStream(req, reply, { 'mcp-session-id': id });
    const release = services.streams.take(caller); // 429 too_many_streams, before the stream opens
    const res = openEventStream(req, reply, { 'mcp-session-id': id });
    res.on('close', release);
    res.write(': connected\n\n');
    if (!sessions.attach(id, caller, res)) res.end();
  };
  // DELETE with the session id ends it: from then on the id is 404 (McpSessions.isEnded).
  const end = async (req: FastifyRequest, reply: FastifyReply) => {
    assertProtocolVersion(req);
    const id = sessionOf(req);
    const sessions = services.mcpSessions;
    if (!sessions) return mcpNotAllowed(reply, noSessions);
    if (!id) return mcpNotAllowed(reply, 'DELETE ends a session: send its Mcp-Session-Id; calls are POST');
    const caller = await services.keys.authenticate(req.headers.authorization);
    assertOwnSession(id, caller, sessions);
    sessions.end(id, caller);
    return reply.code(200).send();
  };
  for (const path of MCP_ENDPOINTS) {
    app.get(path, stream);
    app.delete(path, end);
    // Any other method on the endpoint is 405 naming what it answers, not a 404 saying the route does not exist.
    app.route({
      method: ['PUT', 'PATCH', 'OPTIONS'], url: path,
      handler: async (req, reply) => mcpMethodNotAllowed(reply, req.method),
    });
  }
}

/** A 405 of the MCP endpoint: what it answers, in the JSON-RPC envelope of its other refusals. */
export const mcpNotAllowed = (reply: FastifyReply, message: string) =>
  sendRpcError(reply.header('allow', ALLOW), new ApiError(405, { error: 'method_not_allowed', message }));

/** The 405 of a method the MCP endpoint never takes (PUT, PATCH, OPTIONS here; TRACE and the rest from app.ts's not-found handler). */
export const mcpMethodNotAllowed = (reply: FastifyReply, method: string) =>
  mcpNotAllowed(reply, `${method} is not a method of the MCP endpoint: POST JSON-RPC messages (GET and DELETE with an Mcp-Session-Id)`);

function sendJson(reply: FastifyReply, status: number, json: string) {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(json);
}

async function handleMessage(
  services: AppServices, caller: Caller, selectors: Selectors, msg: Extract<Classified, { kind: 'request' }>, req: FastifyRequest,
  session: McpContext,
): Promise<string> {
  const id = msg.id;
  const params = (msg.params ?? {}) as Record<string, unknown>;
  // Every refusal carries REST's body in data, as the tools' do (these had none).
  if (typeof params !== 'object' || Array.isArray(params)) return paramsRefused(id, 'params must be an object', 'params', 'must be an object');

  switch (msg.method) {
    case 'initialize': {
      const requested = params.protocolVersion;
      const protocolVersion =
        typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
      const info = buildInfo();
      if (services.mcpSessions) session.created = McpSessions.mint(caller);
      return rpcResult(id, JSON.stringify({
        protocolVersion,
        capabilities: {
          tools: { listChanged: false }, resources: { subscribe: !!services.mcpSessions, listChanged: false }, prompts: { listChanged: false },
          completions: {}, logging: {},
        },
        serverInfo: { name: info.name, version: info.version, gitSha: info.gitSha, buildTime: info.buildTime },
        instructions: initializeInstructions(caller),
      }));
    }
    case 'ping':
      return rpcResult(id, '{}');
    case 'tools/list': {
      let tools;
      try {
        tools = selectTools(caller, selectors);
      } catch (err) {
        if (err instanceof ApiError) return rpcError(id, ErrorCode.InvalidParams, err.message, { ...err.body, status: err.status });
        throw err;
      }
      // A cursor names its place in one listing (the selection's tools): on another selection it is refused, as a
      // cursor of core on full listed 93 tools and on the default profile none.
      const listing = createHash('sha256').update(tools.map((t) => t.name).join(',')).digest('base64url').slice(0, 12);
      let offset = 0;
      // A paging loop may start with cursor null, as every list of the catalog takes it.
      if (params.cursor !== undefined && params.cursor !== null) {
        offset = decodeCursor(params.cursor, listing);
        if (offset < 0 || offset >= tools.length) {
          return rpcError(id, ErrorCode.InvalidParams, 'Invalid cursor: pass the nextCursor of the same listing (same profile, namespaces and key)',
            { error: 'invalid_input', status: 400, issues: { cursor: 'not a nextCursor of this listing' } });
        }
      }
      const pageTools = tools.slice(offset, offset + TOOLS_PAGE_SIZE);
      const next = offset + TOOLS_PAGE_SIZE < tools.length ? encodeCursor(offset + TOOLS_PAGE_SIZE, listing) : undefined;
      const full = fullListing(selectors);
      return rpcResult(id, JSON.stringify({ tools: pageTools.map((t) => mcpDescriptor(t, full)), ...(next ? { nextCursor: next } : {}) }));
    }
    case 'tools/call': {
      const name = params.name;
      if (typeof name !== 'string') return paramsRefused(id, 'params.name must be a string', 'name', 'must be a string');
      const t = findTool(name);
      if (!t) {
        // Invalid params (MCP's code for an unknown tool), with the refusal REST gives in data, as other tool errors.
        const unknown = unknownTool(name);
        return rpcError(id, ErrorCode.InvalidParams, unknown.message, { ...unknown.body, status: unknown.status });
      }
      try {
        // MCP's own place for what is about a request rather than the tool's input: `_meta` (here its idempotency key).
        if (params._meta !== undefined && (params._meta === null || typeof params._meta !== 'object' || Array.isArray(params._meta))) {
          throw invalidInput({ _meta: 'must be an object' });
        }
        const meta = (params._meta ?? {}) as { idempotencyKey?: unknown };
        if (meta.idempotencyKey !== undefined && typeof meta.idempotencyKey !== 'string') {
          throw invalidInput({ '_meta.idempotencyKey': 'must be a string' });
        }
        let replayed = false;
        const json = await services.callTool(caller, t, toolInput(params.arguments, 'arguments'), 'rpc',
          meta.idempotencyKey === undefined ? undefined : { idempotencyKey: meta.idempotencyKey, onReplay: () => { replayed = true; } });
        return rpcResult(id, toolResult(json, replayed));
      } catch (err) {
        // A key found revoked, expired or its agent archived by the call's own check (the key cache had not heard of
        // it yet) refuses the whole request, as the transport's check does: HTTP 401/403, not a tool result.
        if (refusesKey(err)) throw err;
        // The database out of reach is the request's refusal too (HTTP 503 with Retry-After, the error by its id), as
        // when the key could not be looked up: it was a 200 tool result when the key happened to be cached.
        if (err instanceof ApiError && err.status === 503) throw err;
        if (err instanceof ApiError) return rpcResult(id, toolError(err));
        req.log.error({ err, tool: name }, 'tool call failed');
        return rpcError(id, ErrorCode.InternalError, 'Internal error');
      }
    }
    default: {
      // Resources, prompts, completion, logging (src/http/mcp-extras.ts).
      try {
        const result = await handleExtra(services, caller, msg.method, params, session);
        if (result === undefined) {
          const message = `Method not found: ${clip(msg.method, 100)}`;
          return rpcError(id, ErrorCode.MethodNotFound, message, { error: 'method_not_found', message, status: 404 });
        }
        return rpcResult(id, JSON.stringify(result));
      } catch (err) {
        if (err instanceof RpcFault) return faultError(id, err);
        if (refusesKey(err)) throw err;
        req.log.error({ err, method: msg.method }, 'MCP request failed');
        return rpcError(id, ErrorCode.InternalError, 'Internal error');
      }
    }
  }
}

const encodeCursor = (offset: number, listing: string) => Buffer.from(`tools:${offset}:${listing}`).toString('base64url');
/** The offset a cursor of this listing names; -1 for anything else. */
function decodeCursor(cursor: unknown, listing: string): number {
  if (typeof cursor !== 'string') return -1;
  const m = Buffer.from(cursor, 'base64url').toString().match(/^tools:(\d{1,6}):([\w-]+)$/);
  return m && m[2] === listing ? Number(m[1]) : -1;
}

/**
 * InitializeResult.instructions, which MCP clients give the model before anything else: what the tools are, how to
 * reach the ones outside the list, and where the work starts for this kind of key (an agent's is its assigned issues
 * and the run protocol, which says how to finish; the README is not something an agent reads).
 */
function initializeInstructions(caller: Caller): string {
  const tools = 'Issue tracker tools. tools/list shows a profile (?profile=core|planning|agents|canvas|full or ?tools=ns1,ns2), ' +
    'light (no output schemas) except profile=full; every list pages by 100 (nextCursor); catalog.search (plain words), ' +
    'catalog.describe (full input and output schemas) and catalog.call reach every tool this key may call.';
  const start = caller.agentId
    ? ' This key acts as an agent (agents.me). Your work: issues.assigned; for each issue, agent.context.bundle {issueId} gives ' +
      'the issue, its comments, your open run and runProtocol, whose protocolInstruction says how to finish or give the work back. ' +
      'Report with comments.create; agents.heartbeat marks you online (presence only).'
    : ' workspace.get says who this key acts as; issues.list and issues.create are the place to start.';
  return tools + start;
}
