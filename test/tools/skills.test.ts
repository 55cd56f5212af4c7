/**
 * Plugin skills: a plugin declares skills in its manifest (GraphQL), skills.list shows them to INVOKE_SKILLS keys,
 * skills.invoke checks the input against the skill's inputSchema and fires SKILL_INVOKED for the plugin, and the
 * plugin's own key reports failures with plugins.reportError (PLUGIN_ERROR). Denials: scope, other workspaces,
 * narrowed keys, keys that are not the plugin's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, createWorkspace, insertProject, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let pluginId: string;
let pluginToken: string;

const SKILLS = [
  { name: 'summarize', description: 'Summarize an issue thread', inputSchema: {
    type: 'object', properties: { style: { type: 'string', enum: ['short', 'long'] }, maxWords: { type: 'integer', maximum: 500 } },
    required: ['style'], additionalProperties: false } },
  { name: 'ping' },
];

async function createPlugin(token: string, skills: unknown, scopes = 'READ_ISSUES, WRITE_COMMENTS') {
  return gqlOk(t, token, `mutation($skills: JSON) { pluginsCreate(input: {name: "Helper", scopes: [${scopes}], skills: $skills}) { pluginInfo { rowId skills } } }`, { skills });
}

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  pluginId = (await createPlugin(ws.token, SKILLS)).pluginsCreate.pluginInfo.rowId;
  pluginToken = (await gqlOk(t, ws.token, `mutation { pluginIssueApiKey(input: {pluginId: "${pluginId}", scopes: [READ_ISSUES]}) { issuedApiKey { rawKey } } }`))
    .pluginIssueApiKey.issuedApiKey.rawKey;
});
afterAll(() => t.close());

describe('a plugin\'s manifest.skills', () => {
  it('is stored as declared and shown by skills.list', async () => {
    const skills = await ok(t, ws.token, 'skills.list', {});
    expect(skills).toEqual([
      { pluginId, plugin: 'Helper', name: 'summarize', description: 'Summarize an issue thread', inputSchema: SKILLS[0]!.inputSchema },
      { pluginId, plugin: 'Helper', name: 'ping', description: null, inputSchema: null },
    ]);
    // A plugin this workspace does not have is 404 on pluginId, not an empty list; another workspace's likewise.
    for (const [token, id] of [[ws.token, '00000000-0000-4000-8000-000000000000'], [other.token, pluginId]]) {
      const r = await rest(t, token!, 'skills.list', { pluginId: id });
      expect([r.status, r.body.field]).toEqual([404, 'pluginId']);
    }
  });

  it('refuses skills that are not a list of {name, description?, inputSchema?}, naming the entry', async () => {
    const cases: [unknown, Record<string, string>][] = [
      [{ name: 'x' }, { skills: 'must be a list of {name, description?, inputSchema?}' }],
      [[{ name: 'bad name' }], { 'skills.0.name': expect.stringContaining('letters, digits') }],
      [[{ name: 'a' }, { name: 'a' }], { 'skills.1.name': 'a is named twice' }],
      [[{ name: 'a', run: 'rm -rf /' }], { 'skills.0.run': expect.stringContaining('unknown field') }],
      [[{ name: 'a', inputSchema: 'object' }], { 'skills.0.inputSchema': expect.stringContaining('JSON Schema object') }],
      [[{ name: 'a', description: 'x'.repeat(2001) }], { 'skills.0.description': expect.stringContaining('2000') }],
      [Array.from({ length: 51 }, (_, n) => ({ name: `s${n}` })), { skills: 'at most 50 skills' }],
      // A regular expression would run in the service's process: one that backtracks would stall every workspace.
      [[{ name: 'a', inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } } }],
        { 'skills.0.inputSchema': expect.stringContaining('must not use pattern') }],
      [[{ name: 'a', inputSchema: { type: 'object', patternProperties: { '^x': { type: 'string' } } } }],
        { 'skills.0.inputSchema': expect.stringContaining('must not use pattern') }],
    ];
    for (const [skills, issues] of cases) {
      const err = await gqlError(t, ws.token, 'mutation($skills: JSON) { pluginsCreate(input: {name: "Bad", scopes: [READ_ISSUES], skills: $skills}) { pluginInfo { rowId } } }', { skills });
      expect(err.issues, JSON.stringify(skills).slice(0, 80)).toEqual(issues);
    }
  });

  it('takes a property that is merely named pattern', async () => {
    const made = await createPlugin(ws.token, [{ name: 'p', inputSchema: { type: 'object', properties: { pattern: { type: 'string' } } } }]);
    expect(made.pluginsCreate.pluginInfo.skills[0].inputSchema.properties.pattern).toEqual({ type: 'string' });
  });

  it('is replaced by pluginsSetSkills (OWNER/ADMIN of the plugin\'s workspace only)', async () => {
    const made = (await createPlugin(ws.token, [{ name: 'old' }])).pluginsCreate.pluginInfo.rowId;
    const set = await gqlOk(t, ws.token, `mutation { pluginsSetSkills(input: {pluginId: "${made}", skills: [{name: "new"}]}) { pluginInfo { skills } } }`);
    expect(set.pluginsSetSkills.pluginInfo.skills).toEqual([{ name: 'new', description: null, inputSchema: null }]);
    expect((await ok(t, ws.token, 'skills.list', { pluginId: made })).map((s: { name: string }) => s.name)).toEqual(['new']);
    // Another workspace's owner: not found.
    const err = await gqlError(t, other.token, `mutation { pluginsSetSkills(input: {pluginId: "${made}", skills: []}) { pluginInfo { rowId } } }`);
    expect(err.status).toBe(404);
    await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
    const member = await createKey(t, ws, { user: 'member@example.com' });
    expect((await gqlError(t, member.token, `mutation { pluginsSetSkills(input: {pluginId: "${made}", skills: []}) { pluginInfo { rowId } } }`)).status).toBe(403);
    // Recording a plugin and changing its skills are events (the same skills again are none); the refused calls wrote none.
    await gqlOk(t, ws.token, `mutation { pluginsSetSkills(input: {pluginId: "${made}", skills: [{name: "new"}]}) { pluginInfo { rowId } } }`);
    const events = (await ok(t, member.token, 'events.recent', { subjectType: 'plugin', subjectId: made, limit: 10 })).items;
    expect(events.map((e: { kind: string }) => e.kind)).toEqual(['PLUGIN_UPDATED', 'PLUGIN_CREATED']);
    expect(events[0].payload).toMatchObject({ pluginId: made, skills: ['new'], changes: ['skills'] });
    expect(events[1].payload).toMatchObject({ pluginId: made, skills: ['old'] });
    expect((await ok(t, other.token, 'events.recent', { subjectType: 'plugin', subjectId: made })).items).toEqual([]);
  });
});

describe('skills.invoke', () => {
  it('fires SKILL_INVOKED for the plugin, which sees it with its own key', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Long thread' });
    const fired = await ok(t, ws.token, 'skills.invoke', { pluginId, skill: 'summarize', input: { style: 'short' }, issueId: issue.key });
    expect(fired).toEqual({ invocationId: expect.any(String), eventId: expect.any(String), pluginId, skill: 'summarize', issueId: issue.id });
    const [event] = (await ok(t, pluginToken, 'events.recent', { kinds: ['SKILL_INVOKED'] })).items;
    expect(event).toMatchObject({
      id: fired.eventId, kind: 'SKILL_INVOKED', subjectType: 'plugin', subjectId: pluginId,
      payload: { invocationId: fired.invocationId, pluginId, plugin: 'Helper', skill: 'summarize', input: { style: 'short' }, issueId: issue.id },
    });
    // Over JSON-RPC too, as an agent calls it; a skill without inputSchema takes any object.
    const r = await rpc(t, ws.token, 'tools/call', { name: 'skills.invoke', arguments: { pluginId, skill: 'ping', input: { anything: [1, 2] } } });
    expect(r.body.result.isError).toBeFalsy();
  });

  it('checks the input against the skill\'s inputSchema, and writes nothing when it does not match', async () => {
    const before = (await ok(t, ws.token, 'events.recent', { kinds: ['SKILL_INVOKED'] })).items.length;
    const bad = await rest(t, ws.token, 'skills.invoke', { pluginId, skill: 'summarize', input: { style: 'haiku', maxWords: 9000, extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toEqual({
      'input.style': expect.any(String), 'input.maxWords': expect.any(String), 'input.extra': 'unknown field',
    });
    // A required choice left out is said to be required (zod said "Invalid option", as for a wrong value).
    expect((await rest(t, ws.token, 'skills.invoke', { pluginId, skill: 'summarize' })).body.issues).toEqual({ 'input.style': 'required (one of "short"|"long")' });
    expect((await ok(t, ws.token, 'events.recent', { kinds: ['SKILL_INVOKED'] })).items.length).toBe(before);
  });

  it('answers 404 for an unknown skill or plugin, another workspace\'s plugin and an issue not found; 400 for oversized input', async () => {
    const unknownSkill = await rest(t, ws.token, 'skills.invoke', { pluginId, skill: 'nope' });
    expect([unknownSkill.status, unknownSkill.body.field]).toEqual([404, 'skill']);
    const noPlugin = await rest(t, ws.token, 'skills.invoke', { pluginId: '00000000-0000-4000-8000-000000000000', skill: 'ping' });
    expect([noPlugin.status, noPlugin.body.field, noPlugin.body.message]).toEqual([404, 'pluginId', 'Plugin not found']);
    // The other workspace sees neither the plugin nor its skills.
    const foreign = await rest(t, other.token, 'skills.invoke', { pluginId, skill: 'ping' });
    expect([foreign.status, foreign.body.field]).toEqual([404, 'pluginId']);
    expect(await ok(t, other.token, 'skills.list', {})).toEqual([]);
    const otherIssue = await ok(t, other.token, 'issues.create', { title: 'theirs' });
    expect((await rest(t, ws.token, 'skills.invoke', { pluginId, skill: 'ping', issueId: otherIssue.id })).status).toBe(404);
    const big = await rest(t, ws.token, 'skills.invoke', { pluginId, skill: 'ping', input: { text: 'x'.repeat(70_000) } });
    expect([big.status, big.body.issues]).toEqual([400, { input: 'input must be at most 64 KB of JSON' }]);
  });

  it('a schema that refers to itself without end is a 409 skill_schema_unreadable, not a 500', async () => {
    const looping = (await createPlugin(ws.token, [{ name: 'loop', inputSchema: { $ref: '#' } }])).pluginsCreate.pluginInfo.rowId;
    const r = await rest(t, ws.token, 'skills.invoke', { pluginId: looping, skill: 'loop', input: { a: 1 } });
    expect([r.status, r.body.error]).toEqual([409, 'skill_schema_unreadable']);
  });

  it('needs INVOKE_SKILLS; a narrowed key fires skills only about issues it sees, and sees only those invocations', async () => {
    const noScope = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const denied = await rest(t, noScope.token, 'skills.invoke', { pluginId, skill: 'ping' });
    expect([denied.status, denied.body.error, denied.body.scope]).toEqual([403, 'scope_required', 'INVOKE_SKILLS']);
    expect((await rest(t, noScope.token, 'skills.list', {})).status).toBe(403);

    const seen = await insertProject(t, ws, 'Seen');
    const hidden = await insertProject(t, ws, 'Hidden');
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'INVOKE_SKILLS', 'SUBSCRIBE_EVENTS'], projects: [seen] });
    const inView = await ok(t, ws.token, 'issues.create', { title: 'in view', projectId: seen });
    const outOfView = await ok(t, ws.token, 'issues.create', { title: 'out of view', projectId: hidden });
    expect((await rest(t, narrowed.token, 'skills.invoke', { pluginId, skill: 'ping', issueId: outOfView.id })).status).toBe(404);
    const mine = await ok(t, narrowed.token, 'skills.invoke', { pluginId, skill: 'ping', issueId: inView.id });
    const theirs = await ok(t, ws.token, 'skills.invoke', { pluginId, skill: 'ping', issueId: outOfView.id, input: { secret: 'hidden project' } });
    const ids = (await ok(t, narrowed.token, 'events.recent', { kinds: ['SKILL_INVOKED'] })).items.map((e: { id: string }) => e.id);
    expect(ids).toContain(mine.eventId);
    expect(ids).not.toContain(theirs.eventId);
  });
});

describe('plugins.reportError', () => {
  it('records PLUGIN_ERROR for the plugin\'s own key', async () => {
    const invoked = await ok(t, ws.token, 'skills.invoke', { pluginId, skill: 'ping' });
    const reported = await ok(t, pluginToken, 'plugins.reportError', {
      message: 'upstream model timed out', skill: 'ping', invocationId: invoked.invocationId, details: { retryable: true } });
    expect(reported).toEqual({ eventId: expect.any(String), pluginId });
    const [event] = (await ok(t, ws.token, 'events.recent', { kinds: ['PLUGIN_ERROR'] })).items;
    expect(event).toMatchObject({
      id: reported.eventId, subjectType: 'plugin', subjectId: pluginId,
      payload: { pluginId, message: 'upstream model timed out', skill: 'ping', invocationId: invoked.invocationId, details: { retryable: true } },
    });
  });

  it('names an invocation of its own plugin only (404 otherwise), and follows its issue for narrowed keys', async () => {
    const unknown = await rest(t, pluginToken, 'plugins.reportError', { message: 'x', invocationId: '00000000-0000-4000-8000-000000000000' });
    expect([unknown.status, unknown.body.field]).toEqual([404, 'invocationId']);
    const seen = await insertProject(t, ws, 'Seen2');
    const hidden = await insertProject(t, ws, 'Hidden2');
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'SUBSCRIBE_EVENTS'], projects: [seen] });
    const secret = await ok(t, ws.token, 'issues.create', { title: 'secret', projectId: hidden });
    const invoked = await ok(t, ws.token, 'skills.invoke', { pluginId, skill: 'ping', issueId: secret.id, input: { text: 'the secret' } });
    const reported = await ok(t, pluginToken, 'plugins.reportError', { message: 'failed on the secret', invocationId: invoked.invocationId, details: { echo: 'the secret' } });
    const [event] = (await ok(t, ws.token, 'events.recent', { kinds: ['PLUGIN_ERROR'] })).items;
    expect([event.id, event.payload.issueId, event.payload.skill]).toEqual([reported.eventId, secret.id, 'ping']);
    const ids = (await ok(t, narrowed.token, 'events.recent', { kinds: ['PLUGIN_ERROR'] })).items.map((e: { id: string }) => e.id);
    expect(ids).not.toContain(reported.eventId);
  });

  it('refuses every other key (403 plugin_key_required), and is not listed for them', async () => {
    const r = await rest(t, ws.token, 'plugins.reportError', { message: 'forged' });
    expect([r.status, r.body.error]).toEqual([403, 'plugin_key_required']);
    const listed = async (token: string) => {
      const names: string[] = [];
      for (let cursor: string | undefined, page = 0; page === 0 || cursor; page++) {
        const r = (await rpc(t, token, 'tools/list', cursor ? { cursor } : {}, '?profile=full')).body.result;
        names.push(...r.tools.map((x: { name: string }) => x.name));
        cursor = r.nextCursor;
      }
      return names;
    };
    expect(await listed(ws.token)).not.toContain('plugins.reportError');
    expect(await listed(pluginToken)).toContain('plugins.reportError');
    const empty = await rest(t, pluginToken, 'plugins.reportError', { message: '   ' });
    expect([empty.status, Object.keys(empty.body.issues)]).toEqual([400, ['message']]);
  });
});
