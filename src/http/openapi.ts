/**
 * GET /api/mcp/openapi.json: an OpenAPI 3.1 document of the REST aliases, generated from the catalog (the
 * same zod declarations as tools/list): one `POST /api/mcp/{name}` per tool, its input JSON Schema as the
 * request body, its output schema as the 200 body (arrays stay arrays on REST), the spec's error bodies.
 */
import { buildInfo } from '../build-info.ts';
import { restOutputSchema, schemasOf, TOOLS } from '../tools/catalog.ts';
import type { Tool } from '../tools/define.ts';

const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
  400: { name: 'InvalidInput', description: 'Invalid input (`invalid_input`, with `issues` naming each field) or invalid JSON.' },
  401: { name: 'Unauthorized', description: 'Missing or unknown key (`invalid`), a revoked one (`revoked`) or an expired one (`expired`); `WWW-Authenticate: Bearer error="invalid_token"`.' },
  403: { name: 'Forbidden', description: 'The key lacks a scope (`scope_required`, with `scope`) or the caller may not do this (`forbidden`).' },
  404: { name: 'NotFound', description: 'Unknown tool (`unknown_tool`) or the target is not there for this key (`not_found`).' },
  409: { name: 'Conflict', description: 'The change conflicts with the current state (`conflict`).' },
  422: { name: 'PreconditionFailed', description: 'A precondition of the change does not hold (`precondition_failed`).' },
  413: { name: 'PayloadTooLarge', description: 'The body is over 2 MiB (`payload_too_large`).' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not `application/json` (`unsupported_media_type`).' },
  429: { name: 'RateLimited', description: 'Too many calls for this key (`rate_limited`); retry after `Retry-After` seconds.' },
  503: { name: 'Unavailable', description: 'The database cannot be reached right now (`unavailable`); retry after `Retry-After` seconds. '
    + 'A write whose connection went mid-call says `outcome: "unknown"`: it may have been done, so retry it with the same `Idempotency-Key`.' },
};
const READ_ERRORS = ['400', '401', '403', '404', '413', '415', '429', '503'];
const WRITE_ERRORS = ['400', '401', '403', '404', '409', '413', '415', '422', '429', '503'];

function operation(t: Tool) {
  const errors = t.readOnly ? READ_ERRORS : WRITE_ERRORS;
  const idempotent = !t.annotations.readOnlyHint && !t.run;
  return {
    operationId: t.name,
    summary: t.annotations.title,
    description: `${t.description}${t.scopes.length ? `\n\nScopes: ${t.scopes.join(', ')}.` : ''}`,
    tags: [t.namespace],
    'x-scopes': t.scopes,
    'x-mcp-annotations': t.annotations,
    // A write done in the database alone takes an idempotency key (src/tools/invoke.ts).
    ...(idempotent ? { parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }] } : {}),
    requestBody: {
      required: false,
      description: 'The tool input (an empty body is `{}`).',
      content: { 'application/json': { schema: schemasOf(t).input } },
    },
    responses: {
      200: {
        description: 'The tool output.',
        ...(idempotent ? { headers: { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } } : {}),
        content: { 'application/json': { schema: restOutputSchema(t) } },
      },
      ...Object.fromEntries(errors.map((code) => [code, { $ref: `#/components/responses/${ERROR_RESPONSES[code]!.name}` }])),
    },
  };
}

let cached: string | undefined;

/** The document as JSON text (built once: the catalog does not change while the process runs). */
export function openApiJson(): string {
  if (cached) return cached;
  const info = buildInfo();
  const doc = {
    openapi: '3.1.0',
    info: {
      title: `${info.name} REST aliases`,
      version: info.version,
      description: 'Every MCP tool as `POST /api/mcp/{namespace}.{tool}`: the tool input as the JSON body, its output as the answer. '
        + 'The same tools over MCP JSON-RPC: `POST /api/mcp/rpc`. Authenticate with `Authorization: Bearer <API key>`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(TOOLS.map((t) => t.namespace))].map((name) => ({ name })),
    paths: Object.fromEntries(TOOLS.map((t) => [`/api/mcp/${t.name}`, { post: operation(t) }])),
    components: {
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
          description: 'Makes a retry safe: the same call repeated with the same key (per API key, within 24 hours) answers what the first '
            + 'answered and does not run again, with the response header `Idempotent-Replayed: true`; the key with other arguments is 422 '
            + 'idempotency_key_reused. Over JSON-RPC: `_meta.idempotencyKey` of tools/call (a replay has `_meta.idempotentReplayed: true` in its result).',
        },
      },
      headers: {
        IdempotentReplayed: {
          schema: { type: 'string', enum: ['true'] },
          description: 'Present on an answer given again for a repeated Idempotency-Key: the call did not run this time.',
        },
      },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key created with `svc admin create-key` (or at workspace creation).' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: { type: 'string', description: 'Error code: invalid_input, invalid, scope_required, forbidden, not_found, unknown_tool, conflict, precondition_failed, rate_limited, unavailable, …' },
            message: { type: 'string' },
            issues: { type: 'object', additionalProperties: { type: 'string' }, description: 'invalid_input: what is wrong with each field, by field path' },
            scope: { type: 'string', description: 'scope_required: the scope the key lacks' },
            field: { type: 'string', description: 'not_found and conflicts: the input field naming the record not found, or the value already taken, when known' },
            outcome: { type: 'string', enum: ['unknown'], description: 'unavailable, on a write: its connection went mid-call and it may have been done' },
          },
        },
      },
      responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([code, r]) => [r.name, {
        description: r.description,
        ...(code === '401' ? { headers: { 'WWW-Authenticate': { schema: { type: 'string' } } } } : {}),
        ...(code === '429' || code === '503' ? { headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' } } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      }])),
    },
  };
  cached = JSON.stringify(doc);
  return cached;
}
