/** MCP beyond tools: resources, resource templates, prompts, completion and logging/setLevel (issue 14). */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorkspace, ok, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let issue: { id: string; key: string };
beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces());
  issue = await ok(t, ws.token, 'issues.create', { title: 'Printer on fire', description: 'Smoke everywhere' });
});
afterAll(() => t.close());

describe('MCP resources, prompts, completion, logging', () => {
  it('initialize announces the capabilities', async () => {
    const r = await rpc(t, ws.token, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    expect(r.body.result.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} });
  });

  it('lists and reads the workspace and issues as resources; templates name issue://{key}', async () => {
    const list = (await rpc(t, ws.token, 'resources/list')).body.result.resources;
    expect(list.map((x: { uri: string }) => x.uri)).toEqual(expect.arrayContaining(['workspace://current', `issue://${issue.key}`]));
    const templates = (await rpc(t, ws.token, 'resources/templates/list')).body.result.resourceTemplates;
    expect(templates.map((x: { uriTemplate: string }) => x.uriTemplate)).toEqual(['issue://{key}', 'project://{id}', 'cycle://{id}']);
    const read = (await rpc(t, ws.token, 'resources/read', { uri: `issue://${issue.key}` })).body.result.contents[0];
    expect(read).toMatchObject({ uri: `issue://${issue.key}`, mimeType: 'application/json' });
    expect(JSON.parse(read.text)).toMatchObject({ id: issue.id, description: 'Smoke everywhere' });
    const wsRead = (await rpc(t, ws.token, 'resources/read', { uri: 'workspace://current' })).body.result.contents[0];
    expect(JSON.parse(wsRead.text)).toMatchObject({ key: ws.key });
    // Another workspace's key does not see it; unknown URIs are -32002.
    expect((await rpc(t, other.token, 'resources/read', { uri: `issue://${issue.key}` })).body.error.code).toBe(-32002);
    expect((await rpc(t, ws.token, 'resources/read', { uri: 'nope://x' })).body.error.code).toBe(-32002);
    // A key without READ_ISSUES: no issues listed, reading one is refused.
    const narrow = await createKey(t, ws, { scopes: ['READ_PROJECTS'] });
    expect((await rpc(t, narrow.token, 'resources/list')).body.result.resources.map((x: { uri: string }) => x.uri)).not.toContain(`issue://${issue.key}`);
    expect((await rpc(t, narrow.token, 'resources/read', { uri: `issue://${issue.key}` })).body.error).toMatchObject({ code: -32602, data: { error: 'scope_required' } });
  });

  it('offers prompts with arguments', async () => {
    const prompts = (await rpc(t, ws.token, 'prompts/list')).body.result.prompts;
    expect(prompts.map((p: { name: string }) => p.name)).toEqual(['triage-issue', 'hand-off-issue', 'draft-standup']);
    const triage = (await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: { key: issue.key } })).body.result;
    expect(triage.messages[0].content.text).toContain('Printer on fire');
    const standup = (await rpc(t, ws.token, 'prompts/get', { name: 'draft-standup', arguments: { sinceHours: '48' } })).body.result;
    expect(standup.messages[0].content.text).toMatch(/standup/i);
    expect((await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: {} })).body.error.code).toBe(-32602);
    // A status or label the workspace lacks is refused, as an unknown agent profile is; one it has, in any case, is taken.
    const doing = (await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: { key: issue.key, status: 'Doing' } })).body.error;
    expect(doing).toMatchObject({ code: -32602, data: { issues: { 'arguments.status': expect.stringContaining('In Progress') } } });
    expect((await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: { key: issue.key, label: 'nolabel' } })).body.error.code).toBe(-32602);
    const done = (await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: { key: issue.key, status: 'done' } })).body.result;
    expect(done.messages[0].content.text).toContain('Consider the status done');
    expect((await rpc(t, ws.token, 'prompts/get', { name: 'nope' })).body.error.code).toBe(-32602);
    // A key is offered the prompts it may use, as tools/list offers the tools (draft-standup needs READ_ANALYTICS,
    // hand-off-issue agents.list's READ_USERS; they were listed and refused when asked).
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS'] });
    const offered = (await rpc(t, reader.token, 'prompts/list')).body.result.prompts.map((p: { name: string }) => p.name);
    expect(offered).toEqual(['triage-issue']);
    expect(prompts[0]).not.toHaveProperty('uses');
  });

  it('prompt arguments and completions take a name in either Unicode form (composed, as every input)', async () => {
    await ok(t, ws.token, 'labels.create', { name: '\u00c4rger' });
    const decomposed = 'A\u0308rger';
    const got = (await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: { key: issue.key, label: decomposed } })).body;
    expect(got.error, JSON.stringify(got.error)).toBeUndefined();
    // Trimmed as the SQL trims a name it looks up (a filter, a transition).
    for (const label of [`\u00a0${decomposed} `, `\u200b\u00e4rger\u2060`]) {
      const r = (await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: { key: issue.key, label } })).body;
      expect(r.error, JSON.stringify(label)).toBeUndefined();
    }
    const c = (await rpc(t, ws.token, 'completion/complete', { ref: { type: 'ref/prompt', name: 'triage-issue' }, argument: { name: 'label', value: 'A\u0308r' } })).body.result;
    expect(c.completion.values).toContain('\u00c4rger');
  });

  it('completes issue keys for the prompt and the template; logging/setLevel checks the level', async () => {
    const prefix = issue.key.slice(0, 2);
    const c = (await rpc(t, ws.token, 'completion/complete', { ref: { type: 'ref/prompt', name: 'triage-issue' }, argument: { name: 'key', value: prefix } })).body.result;
    expect(c.completion.values).toContain(issue.key);
    const r = (await rpc(t, ws.token, 'completion/complete', { ref: { type: 'ref/resource', uri: 'issue://{key}' }, argument: { name: 'key', value: 'ZZZ' } })).body.result;
    expect(r.completion.values).toEqual([]);
    // A whole key of an issue older than the 200 completed from is offered first.
    const busy = await createWorkspace(t);
    const first = await ok(t, busy.token, 'issues.create', { title: 'The first' });
    await t.pools.owner.query(`insert into app_public.issues (workspace_id, title, status_id)
      select $1, 'filler ' || g, s.id from app_public.statuses s, generate_series(1, 210) g where s.workspace_id = $1 and s.is_default`, [busy.id]);
    const old = (await rpc(t, busy.token, 'completion/complete', { ref: { type: 'ref/resource', uri: 'issue://{key}' }, argument: { name: 'key', value: first.key.toLowerCase() } })).body.result;
    expect(old.completion.values[0]).toBe(first.key);
    // Among the newest too: ENG-2 before ENG-29, ENG-28, …
    const recent = (await rpc(t, busy.token, 'completion/complete', { ref: { type: 'ref/resource', uri: 'issue://{key}' }, argument: { name: 'key', value: `${busy.key}-20` } })).body.result;
    expect(recent.completion.values[0]).toBe(`${busy.key}-20`);
    expect(recent.completion.values.length).toBeGreaterThan(1);
    expect(old.completion).not.toHaveProperty('total'); // more issues than were read: the total is not known
    expect((await rpc(t, ws.token, 'logging/setLevel', { level: 'warning' })).body.result).toEqual({});
    expect((await rpc(t, ws.token, 'logging/setLevel', { level: 'loud' })).body.error.code).toBe(-32602);
  });

  it('works with the official SDK client', async () => {
    const base = await t.listen();
    const client = new Client({ name: 'extras', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${ws.token}` } } }));
    expect((await client.listResourceTemplates()).resourceTemplates[0]!.uriTemplate).toBe('issue://{key}');
    const read = await client.readResource({ uri: `issue://${issue.key}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text).key).toBe(issue.key);
    expect((await client.listPrompts()).prompts).toHaveLength(3);
    expect((await client.getPrompt({ name: 'triage-issue', arguments: { key: issue.key } })).messages).toHaveLength(1);
    expect((await client.complete({ ref: { type: 'ref/prompt', name: 'triage-issue' }, argument: { name: 'key', value: '' } })).completion.values).toContain(issue.key);
    await client.setLoggingLevel('info');
    await client.close();
  });
});
