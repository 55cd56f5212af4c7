/**
 * GraphQL error extensions name the argument the client sent (src/graphql/errors.ts, src/errors.ts), from an outside
 * probe: a 1 MB chatPostMessage body was reported as `messagesBody` ("messagesBody is not an allowed value"), scopes
 * [null] as `keysScopes`, a bad repoFullName as `repo` (each now checked by its SQL function, naming the argument;
 * a constraint's field is its name less its table's); a request-level 403 scope_required had no `scope` in its
 * errors[] entry, and a 404 whose REST body says `field` (parentId) had none in extensions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromPgError } from '../../src/errors.ts';
import { createAgent, createKey, rest, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;

beforeAll(async () => {
  ({ t, ws } = await startWithWorkspaces({ graphql: true }));
});
afterAll(() => t.close());

describe('issues are keyed by the GraphQL argument', () => {
  it('chatPostMessage body over the limit, chatOpenThread message', async () => {
    const agent = await createAgent(t, ws, 'helper');
    const opened = await gqlOk(t, ws.token, 'mutation($a: UUID!) { chatOpenThread(input: {agentId: $a}) { chatThread { rowId } } }', { a: agent.id });
    const threadId = opened.chatOpenThread.chatThread.rowId;
    const post = await gqlError(t, ws.token, 'mutation($t: UUID!, $b: String!) { chatPostMessage(input: {threadId: $t, body: $b}) { chatMessage { rowId } } }',
      { t: threadId, b: 'x'.repeat(1_000_000) });
    expect(post).toMatchObject({ code: 'invalid_input', status: 400, issues: { body: 'must be at most 100000 characters' } });
    expect(Object.keys(post.issues!)).toEqual(['body']);
    // The same check reached through chatOpenThread, whose argument is `message`.
    const open = await gqlError(t, ws.token, 'mutation($a: UUID!, $m: String!) { chatOpenThread(input: {agentId: $a, message: $m}) { chatThread { rowId } } }',
      { a: agent.id, m: 'x'.repeat(100_001) });
    expect(open).toMatchObject({ code: 'invalid_input', issues: { message: 'must be at most 100000 characters' } });
    expect(Object.keys(open.issues!)).toEqual(['message']);
    // A message at the limit is posted.
    await gqlOk(t, ws.token, 'mutation($t: UUID!, $b: String!) { chatPostMessage(input: {threadId: $t, body: $b}) { chatMessage { rowId } } }', { t: threadId, b: 'x'.repeat(100_000) });
  });

  it('accessCreatePersonal scopes: [null] names scopes', async () => {
    const e = await gqlError(t, ws.token, 'mutation { accessCreatePersonal(input: {scopes: [null]}) { issuedApiKey { rowId } } }');
    expect(e).toMatchObject({ code: 'invalid_input', status: 400 });
    expect(Object.keys(e.issues!)).toEqual(['scopes']);
    expect(e.issues!.scopes).toBe('must not contain null');
  });

  it('repoMappingsCreate repoFullName, aliased too', async () => {
    for (const field of ['repoMappingsCreate', 'm: repoMappingsCreate']) {
      const e = await gqlError(t, ws.token, `mutation { ${field}(input: {repoFullName: "../../x"}) { connectionMapping { rowId } } }`);
      expect(e).toMatchObject({ code: 'invalid_input', status: 400, issues: { repoFullName: 'must be owner/name' } });
      expect(Object.keys(e.issues!)).toEqual(['repoFullName']);
    }
  });

  it('a constraint the catalog does not know: its table\'s name is taken off, not the first word', () => {
    const e = fromPgError({ code: '23514', message: 'x', constraint: 'chat_widgets_frame_color_check', table: 'chat_widgets' })!;
    expect(e.body).toEqual({ error: 'invalid_input', message: 'frameColor is not an allowed value', issues: { frameColor: 'frameColor is not an allowed value' } });
  });
});

describe('one name per field: as the operation\'s field takes it (docs/decisions.md, "One name per field in GraphQL\'s refusals")', () => {
  it('agentsCreate name: a NUL in a literal and a name too long both say `name` (the literal said `input.name`); a variable is refused before anything runs, by its own name', async () => {
    const create = (name: string) => `mutation { agentsCreate(input: {profileKey: "named-once", name: ${JSON.stringify(name)}}) { agent { rowId } } }`;
    const literalNul = await gqlError(t, ws.token, create('a\u0000b'));
    expect(literalNul).toMatchObject({ code: 'invalid_input', status: 400 });
    expect(Object.keys(literalNul.issues!)).toEqual(['name']);
    const tooLong = await gqlError(t, ws.token, create('x'.repeat(201)));
    expect(tooLong).toMatchObject({ code: 'invalid_input', status: 400 });
    expect(Object.keys(tooLong.issues!)).toEqual(['name']);
    const viaVariable = await gqlError(t, ws.token, 'mutation($n: String!) { agentsCreate(input: {profileKey: "named-once", name: $n}) { agent { rowId } } }', { n: 'x'.repeat(201) });
    expect(Object.keys(viaVariable.issues!)).toEqual(['name']);
    // Text PostgreSQL cannot store in a variable: the whole request is refused (HTTP 400) before any field runs,
    // naming the variable (it may be used in several places).
    const variableNul = await gql(t, ws.token, 'mutation($n: String!) { agentsCreate(input: {profileKey: "named-once", name: $n}) { agent { rowId } } }', { n: 'a\u0000b' });
    expect(variableNul.status).toBe(400);
    expect(Object.keys(variableNul.body.issues)).toEqual(['variables.n']);
    // Deeper in the input: the path below `input`, as the SQL checks name it (skills.<n>.<field>).
    const nested = await gqlError(t, ws.token, 'mutation { pluginsCreate(input: {name: "P", scopes: [READ_ISSUES], skills: [{name: "a\\u0000"}]}) { pluginInfo { rowId } } }');
    expect(Object.keys(nested.issues!)).toEqual(['skills.0.name']);
    // A tool field names its argument the same way, for a literal too.
    const tool = await gqlError(t, ws.token, 'mutation { issuesCreate(title: "a\\u0000b") }');
    expect(Object.keys(tool.issues!)).toEqual(['title']);
    const { rows } = await t.pools.owner.query("select count(*)::int as n from app_public.agents where workspace_id = $1 and profile_key = 'named-once'", [ws.id]);
    expect(rows[0].n).toBe(0);
  });
});

describe('scope and field reach the extensions', () => {
  it('a request-level 403 scope_required carries scope in errors[] too', async () => {
    const narrow = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const r = await gql(t, narrow.token, '{ viewerRole }');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'scope_required', scope: 'READ_PROJECTS' });
    expect(r.errors).toEqual([{ message: r.body.message, extensions: { code: 'scope_required', status: 403, scope: 'READ_PROJECTS' } }]);
  });

  it('a 404 naming its field over REST names it in extensions', async () => {
    const viaRest = await rest(t, ws.token, 'issues.create', { title: 'x', parentId: 'AAA-999' });
    expect(viaRest.body).toMatchObject({ error: 'not_found', field: 'parentId' });
    const e = await gqlError(t, ws.token, 'mutation { issuesCreate(title: "x", parentId: "AAA-999") }');
    expect(e).toEqual({ message: viaRest.body.message, code: 'not_found', status: 404, field: 'parentId' });
  });
});
