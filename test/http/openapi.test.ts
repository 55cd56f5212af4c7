/** GET /api/mcp/openapi.json: an OpenAPI 3.1 document of the REST aliases, valid, and true to the answers. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/catalog.ts';
import { rest, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let doc: any;
beforeAll(async () => {
  ({ t, ws } = await startWithWorkspaces());
  const res = await t.app.inject({ method: 'GET', url: '/api/mcp/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  doc = res.json();
});
afterAll(() => t.close());

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has one POST operation per tool with input, output, error bodies and bearer security', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(doc.paths).sort()).toEqual(TOOLS.map((x) => `/api/mcp/${x.name}`).sort());
    const op = doc.paths['/api/mcp/issues.create'].post;
    expect(op.operationId).toBe('issues.create');
    expect(op.requestBody.content['application/json'].schema).toMatchObject({ type: 'object', required: ['title'] });
    expect(op.responses['200'].content['application/json'].schema).toMatchObject({ type: 'object' });
    for (const code of ['400', '401', '403', '404', '429', '503']) expect(op.responses[code].$ref, code).toMatch(/^#\/components\/responses\//);
    // A write that takes an Idempotency-Key says how a replay is told apart; a read has neither.
    expect(op.parameters).toEqual([{ $ref: '#/components/parameters/IdempotencyKey' }]);
    expect(op.responses['200'].headers['Idempotent-Replayed'].$ref).toBe('#/components/headers/IdempotentReplayed');
    expect(doc.paths['/api/mcp/issues.get'].post.responses['200'].headers).toBeUndefined();
    expect(doc.components.responses.Unavailable.headers['Retry-After']).toBeDefined();
    // Array outputs stay arrays on REST.
    expect(doc.paths['/api/mcp/statuses.list'].post.responses['200'].content['application/json'].schema.type).toBe('array');
  });

  it('every schema compiles under JSON Schema 2020-12 and the documented bodies match real answers', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    // Strict mode too, as integrators compile them (a record of enum keys said `required` without `properties`).
    const strict = new Ajv2020({ strict: true, allErrors: true, strictTypes: false, strictTuples: false });
    (addFormats as unknown as (a: Ajv2020) => void)(strict);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      ajv.compile(item.post.requestBody.content['application/json'].schema);
      expect(() => ajv.compile(item.post.responses['200'].content['application/json'].schema), path).not.toThrow();
      expect(() => strict.compile(item.post.requestBody.content['application/json'].schema), `${path} input`).not.toThrow();
      expect(() => strict.compile(item.post.responses['200'].content['application/json'].schema), `${path} output`).not.toThrow();
    }
    const schema = (tool: string, code: string) => {
      const r = doc.paths[`/api/mcp/${tool}`].post.responses[code];
      const resolved = r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r;
      const s = resolved.content['application/json'].schema;
      return s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s;
    };
    const check = (tool: string, code: string, body: unknown) => {
      const validate = ajv.compile(schema(tool, code));
      expect(validate(body), `${tool} ${code}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const created = await rest(t, ws.token, 'issues.create', { title: 'Documented' });
    expect(created.status).toBe(200);
    check('issues.create', '200', created.body);
    check('issues.get', '200', (await rest(t, ws.token, 'issues.get', { id: created.body.key })).body);
    check('issues.list', '200', (await rest(t, ws.token, 'issues.list', {})).body);
    check('statuses.list', '200', (await rest(t, ws.token, 'statuses.list', {})).body);
    const bad = await rest(t, ws.token, 'issues.create', { title: '' });
    expect(bad.status).toBe(400);
    check('issues.create', '400', bad.body);
    const anonymous = await rest(t, undefined, 'issues.get', { id: created.body.key });
    expect(anonymous.status).toBe(401);
    check('issues.get', '401', anonymous.body);
  });
});
