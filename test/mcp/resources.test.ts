/**
 * MCP resources beyond issues (project://, cycle://), subscriptions with notifications/resources/updated
 * on the session's GET stream, and completions, through the official SDK client over real HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, ok, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { until } from '../support/until.ts';

let t: TestApp;
let base: string;
let ws: Workspace;
let other: Workspace;

async function connect(token: string) {
  const client = new Client({ name: 'sdk-resources', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  return { client, transport, updates };
}

beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces());
  base = await t.listen();
});
afterAll(() => t.close());

describe('MCP resources, subscriptions and completions (official SDK client)', () => {
  it('lists and reads project and cycle resources; templates include them', async () => {
    const project = await ok(t, ws.token, 'projects.create', { name: 'Apollo' });
    const cycle = await ok(t, ws.token, 'cycles.create', { name: 'Sprint A' });
    await ok(t, ws.token, 'issues.create', { title: 'In Apollo', projectId: project.id });
    const { client } = await connect(ws.token);
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain(`project://${project.id}`);
    expect(uris).toContain(`cycle://${cycle.id}`);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((x) => x.uriTemplate)).toEqual(['issue://{key}', 'project://{id}', 'cycle://{id}']);
    const p = JSON.parse(((await client.readResource({ uri: `project://${project.id}` })).contents[0] as { text: string }).text);
    expect(p).toMatchObject({ id: project.id, name: 'Apollo', openIssues: [expect.objectContaining({ title: 'In Apollo' })] });
    const c = JSON.parse(((await client.readResource({ uri: `cycle://${cycle.id}` })).contents[0] as { text: string }).text);
    expect(c).toMatchObject({ id: cycle.id, name: 'Sprint A' });
    // Another workspace's project: not found.
    const theirs = await ok(t, other.token, 'projects.create', { name: 'Theirs' });
    await expect(client.readResource({ uri: `project://${theirs.id}` })).rejects.toThrow(/not found/i);
    // A URI whose id is no id names no resource: -32002 as an unknown issue key is (it was -32602 naming the tool's id).
    for (const uri of ['project://xyz', 'cycle://xyz']) {
      await expect(client.readResource({ uri }), uri).rejects.toMatchObject({ code: -32002 });
    }
    await client.close();
    // A key is offered the templates it may read (a WRITE_COMMENTS key was offered all three, and refused each).
    const commenter = await createKey(t, ws, { scopes: ['WRITE_COMMENTS'] });
    const asCommenter = await connect(commenter.token);
    expect((await asCommenter.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    await asCommenter.client.close();
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const asReader = await connect(reader.token);
    expect((await asReader.client.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate)).toEqual(['issue://{key}', 'cycle://{id}']);
    await asReader.client.close();
  });

  it('a subscription receives notifications/resources/updated after issues.update, and stops after unsubscribe', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Watch me' });
    const quiet = await ok(t, ws.token, 'issues.create', { title: 'Not watched' });
    const { client, transport, updates } = await connect(ws.token);
    expect(transport.sessionId).toEqual(expect.any(String));
    await client.subscribeResource({ uri: `issue://${issue.key}` });
    // The SDK opens the GET stream right after initialize; give it a moment to be attached.
    await new Promise((r) => setTimeout(r, 200));
    await ok(t, ws.token, 'issues.update', { id: quiet.id, title: 'Still not watched' });
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Watched and changed' });
    await until(() => updates.includes(`issue://${issue.key}`), Boolean);
    expect(updates.every((u) => u === `issue://${issue.key}`)).toBe(true);

    await client.unsubscribeResource({ uri: `issue://${issue.key}` });
    const before = updates.length;
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Changed again' });
    await new Promise((r) => setTimeout(r, 500));
    expect(updates.length).toBe(before);
    await client.close();
  });

  it('a cycle\'s and a project\'s subscriptions hear of issues moving in and out and changing inside them', async () => {
    const project = await ok(t, ws.token, 'projects.create', { name: 'Watched project' });
    const elsewhere = await ok(t, ws.token, 'projects.create', { name: 'Elsewhere' });
    const cycle = await ok(t, ws.token, 'cycles.create', {});
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Moves around' });
    const { client, updates } = await connect(ws.token);
    await client.subscribeResource({ uri: `cycle://${cycle.id}` });
    await client.subscribeResource({ uri: `project://${project.id}` });
    await new Promise((r) => setTimeout(r, 200));
    const heard = async (uri: string, act: () => Promise<unknown>) => {
      updates.length = 0;
      await act();
      await until(() => updates.includes(uri), Boolean);
    };
    await heard(`cycle://${cycle.id}`, () => ok(t, ws.token, 'cycles.addIssue', { cycleId: cycle.id, issueId: issue.id }));
    await heard(`cycle://${cycle.id}`, () => ok(t, ws.token, 'issues.update', { id: issue.id, priority: 'HIGH' }));
    await heard(`cycle://${cycle.id}`, () => ok(t, ws.token, 'cycles.removeIssue', { cycleId: cycle.id, issueId: issue.id }));
    await heard(`project://${project.id}`, () => ok(t, ws.token, 'issues.update', { id: issue.id, projectId: project.id }));
    await heard(`project://${project.id}`, () => ok(t, ws.token, 'issues.update', { id: issue.id, projectId: elsewhere.id }));
    // An issue in neither is not their change.
    updates.length = 0;
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Now elsewhere' });
    await new Promise((r) => setTimeout(r, 400));
    expect(updates).toEqual([]);
    await client.close();
  });

  it('a session is its initializing key\'s: another key holding its id can neither subscribe on it, stream it nor end it', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Watched by its owner' });
    const { client, transport, updates } = await connect(ws.token);
    const id = transport.sessionId!;
    const intruder = await createKey(t, ws);
    const rpc = (token: string) => fetch(`${base}/api/mcp`, { method: 'POST', headers: {
      authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: `issue://${issue.key}` } }) });
    // The other key, using it first, is refused: 404, a session it was not given (the session went to it, and its
    // maker was locked out).
    const refused = await rpc(intruder.token);
    expect([refused.status, (await refused.json()).error?.data?.error]).toEqual([404, 'session_not_found']);
    await client.subscribeResource({ uri: `issue://${issue.key}` });
    const other = (method: string) => fetch(`${base}/api/mcp`, { method, headers: {
      authorization: `Bearer ${intruder.token}`, accept: 'text/event-stream', 'mcp-session-id': id } });
    expect((await other('GET')).status).toBe(404);
    expect((await other('POST')).status).toBe(404);
    expect((await other('DELETE')).status).toBe(404);
    await new Promise((r) => setTimeout(r, 200));
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Still heard by its owner' });
    await until(() => updates.includes(`issue://${issue.key}`), Boolean);
    await client.close();
  });

  it('a notification goes on one stream of the session, the most recently opened one still open, not on all of them', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Watched on two streams' });
    const headers = { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${base}/api/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'two-streams', version: '1' } } }) });
    const id = init.headers.get('mcp-session-id')!;
    await init.text();
    const subscribed = await fetch(`${base}/api/mcp`, { method: 'POST', headers: { ...headers, 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: `issue://${issue.key}` } }) });
    expect((await subscribed.json()).result).toEqual({});
    // The issue's creation, heard late, goes to no stream while none is open (it went to the older one when it came
    // between the two opens).
    await new Promise((r) => setTimeout(r, 500));
    // A GET stream that counts the notifications it carries.
    const open = async () => {
      const controller = new AbortController();
      const res = await fetch(`${base}/api/mcp`, { headers: { authorization: `Bearer ${ws.token}`, accept: 'text/event-stream', 'mcp-session-id': id },
        signal: controller.signal });
      expect(res.status).toBe(200);
      const stream = { updates: 0, close: () => controller.abort() };
      void (async () => {
        const decoder = new TextDecoder();
        try {
          for await (const chunk of res.body!) stream.updates += decoder.decode(chunk as Uint8Array).split('notifications/resources/updated').length - 1;
        } catch {
          // aborted
        }
      })();
      return stream;
    };
    const older = await open();
    const newer = await open();
    await new Promise((r) => setTimeout(r, 200));
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Changed once' });
    await until(() => newer.updates, (n) => n > 0);
    await new Promise((r) => setTimeout(r, 300));
    expect(older.updates).toBe(0);
    // The newest one gone, the next newest open one carries them.
    newer.close();
    await new Promise((r) => setTimeout(r, 200));
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Changed twice' });
    await until(() => older.updates, (n) => n > 0);
    await new Promise((r) => setTimeout(r, 300));
    expect(older.updates).toBe(1);
    older.close();
  });

  it('a revoked key\'s session hears nothing more', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Watched by a key about to go' });
    const key = await createKey(t, ws);
    const { client, updates } = await connect(key.token);
    await client.subscribeResource({ uri: `issue://${issue.key}` });
    await new Promise((r) => setTimeout(r, 200));
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Seen' });
    await until(() => updates.length, (n) => n > 0);
    await admin(t, 'revoke-key', { id: key.id, json: true });
    await new Promise((r) => setTimeout(r, 300));
    const before = updates.length;
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Not seen' });
    await new Promise((r) => setTimeout(r, 500));
    expect(updates.length).toBe(before);
    await client.close().catch(() => {});
  });

  it('a key revoked while the LISTEN connection was away: its session ends once the connection is back', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Watched across a LISTEN outage' });
    const key = await createKey(t, ws);
    const { client, transport, updates } = await connect(key.token);
    await client.subscribeResource({ uri: `issue://${issue.key}` });
    await new Promise((r) => setTimeout(r, 200));
    // Revoked with no svc_keys notice (session_replication_role skips the trigger): as a revoke sent while this
    // process's LISTEN connection was reconnecting, which no one heard.
    const quiet = await t.pools.owner.connect();
    try {
      await quiet.query(`set session_replication_role = replica`);
      await quiet.query(`update app_private.api_keys set revoked_at = now() where id = $1`, [key.id]);
    } finally {
      await quiet.query(`reset session_replication_role`);
      quiet.release();
    }
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Still heard: nothing said the key went' });
    await until(() => updates.length, (n) => n > 0);
    // The key cache has not heard either: a subscription's own read finds the key revoked, and the whole request is
    // refused with 401, as a tool call is (it was -32602 invalid params).
    const subscribe = await fetch(`${base}/api/mcp`, { method: 'POST', headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json',
      accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'resources/subscribe', params: { uri: `issue://${issue.key}` } }) });
    expect(subscribe.status).toBe(401);
    await subscribe.body?.cancel();
    const reconnected = new Promise((resolve) => t.notifier.once('connected', resolve));
    await t.pools.owner.query(`select pg_terminate_backend(pid) from pg_stat_activity
                               where application_name = 'svc-listen' and datname = current_database() and pid <> pg_backend_pid()`);
    await reconnected;
    await new Promise((r) => setTimeout(r, 300));
    // And the key cache forgot it: the client's reconnecting stream is refused, not served from the cache.
    const again = await fetch(`${base}/api/mcp`, { headers: { authorization: `Bearer ${key.token}`, accept: 'text/event-stream', 'mcp-session-id': transport.sessionId! } });
    expect(again.status).toBe(401);
    await again.body?.cancel();
    const before = updates.length;
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Not heard: the session ended' });
    await new Promise((r) => setTimeout(r, 500));
    expect(updates.length).toBe(before);
    await client.close().catch(() => {});
  });

  it('an expired key\'s session ends, its stream included, and hears nothing more', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Watched by a key about to expire' });
    const key = (await admin(t, 'create-key', { workspace: ws.key, user: ws.ownerEmail, scopes: 'FULL', 'expires-in-seconds': '3', json: true })).apiKey;
    const { client, updates } = await connect(key.rawKey);
    await client.subscribeResource({ uri: `issue://${issue.key}` });
    await new Promise((r) => setTimeout(r, 200));
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Seen before expiry' });
    await until(() => updates.length, (n) => n > 0);
    await new Promise((r) => setTimeout(r, 3_500));
    const before = updates.length;
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Not seen after expiry' });
    await new Promise((r) => setTimeout(r, 500));
    expect(updates.length).toBe(before);
    await client.close().catch(() => {});
  });

  it('a narrowed key hears nothing of an issue that left its narrowing', async () => {
    const mine = await ok(t, ws.token, 'projects.create', { name: 'Mine' });
    const elsewhere = await ok(t, ws.token, 'projects.create', { name: 'Elsewhere' });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Moves away', projectId: mine.id });
    const key = await createKey(t, ws, { projects: [mine.id] });
    const { client, updates } = await connect(key.token);
    await client.subscribeResource({ uri: `issue://${issue.key}` });
    await new Promise((r) => setTimeout(r, 200));
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Still mine' });
    await until(() => updates.length, (n) => n > 0);
    await ok(t, ws.token, 'issues.update', { id: issue.id, projectId: elsewhere.id });
    await new Promise((r) => setTimeout(r, 300));
    const before = updates.length;
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Changed where the key cannot see' });
    await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'Activity the key must not hear of' });
    await new Promise((r) => setTimeout(r, 500));
    expect(updates.length).toBe(before);
    await client.close();
  });

  it('another workspace cannot subscribe to our issue and hears nothing of it', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Private' });
    const { client, updates } = await connect(other.token);
    await expect(client.subscribeResource({ uri: `issue://${issue.id}` })).rejects.toThrow(/not found/i);
    await expect(client.subscribeResource({ uri: 'test://watched-resource' })).rejects.toThrow(/unknown resource/i);
    // A broken %-escape is the client's mistake (invalid params), not an internal error.
    for (const uri of ['issue://%', 'project://%E0%A4%A']) {
      await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32602 });
      await expect(client.subscribeResource({ uri })).rejects.toMatchObject({ code: -32602 });
    }
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'Private, changed' });
    await new Promise((r) => setTimeout(r, 500));
    expect(updates).toEqual([]);
    await client.close();
  });

  it('completes issue keys, status names, label names, agent profile keys, project and cycle ids', async () => {
    await ok(t, ws.token, 'labels.create', { name: 'backend' });
    await ok(t, ws.token, 'labels.create', { name: 'bug' });
    await createAgent(t, ws, 'reviewer');
    await ok(t, ws.token, 'cycles.create', { name: 'Sprint C' });
    const { client } = await connect(ws.token);
    const complete = async (ref: any, name: string, value: string) =>
      (await client.complete({ ref, argument: { name, value } })).completion.values;
    const triage = { type: 'ref/prompt', name: 'triage-issue' };
    expect(await complete(triage, 'label', 'b')).toEqual(expect.arrayContaining(['backend', 'bug']));
    expect(await complete(triage, 'label', 'bu')).toEqual(['bug']);
    const statuses = await complete(triage, 'status', '');
    expect(statuses.length).toBeGreaterThan(1);
    expect(await complete(triage, 'status', statuses[0]!.slice(0, 2))).toContain(statuses[0]);
    expect(await complete({ type: 'ref/prompt', name: 'hand-off-issue' }, 'profile', 'rev')).toEqual(['reviewer']);
    const key = (await ok(t, ws.token, 'issues.create', { title: 'k' })).key as string;
    expect(await complete(triage, 'key', key)).toEqual([key]);
    expect(await complete({ type: 'ref/resource', uri: 'issue://{key}' }, 'key', key)).toEqual([key]);
    const cycles = await complete({ type: 'ref/resource', uri: 'cycle://{id}' }, 'id', '');
    expect(cycles.length).toBeGreaterThan(0);
    expect(await complete({ type: 'ref/prompt', name: 'nope' }, 'key', '')).toEqual([]);
    // Another workspace's names do not leak.
    const theirs = await connect(other.token);
    expect(await (await theirs.client.complete({ ref: triage as any, argument: { name: 'label', value: 'b' } })).completion.values).toEqual([]);
    await theirs.client.close();

    // The profile key is compared as the tools compare it (any case, trimmed): issues.assign took "REVIEWER".
    const prompt = await client.getPrompt({ name: 'hand-off-issue', arguments: { key, profile: ' REVIEWER' } });
    // The call the prompt tells the agent to make is one that works.
    const text = (prompt.messages[0]!.content as { text: string }).text;
    const [, tool, args] = text.match(/assign it with (\S+) (\{[^}]*\})/)!;
    const assigned = await ok(t, ws.token, tool!, JSON.parse(args!.replace(/(\w+):/g, '"$1":')));
    expect(assigned.assignedAgent).toMatchObject({ profileKey: 'reviewer' });
    // Assigned to that agent already: the prompt says no call is needed (it said "then assign it" again).
    const again = ((await client.getPrompt({ name: 'hand-off-issue', arguments: { key, profile: 'reviewer' } })).messages[0]!.content as { text: string }).text;
    expect(again).toContain('it is already assigned to this agent: no call is needed');
    expect(again).not.toMatch(/issues\.(assign|reassign) \{/);
    // Held by an agent now: the prompt hands it off (issues.reassign, with the HANDOFF comment), not assign.
    await createAgent(t, ws, 'second-pair');
    const handoff = ((await client.getPrompt({ name: 'hand-off-issue', arguments: { key, profile: 'second-pair' } })).messages[0]!.content as { text: string }).text;
    const [, tool2, args2] = handoff.match(/hand it off with (\S+) (\{[^}]*\})/)!;
    expect(tool2).toBe('issues.reassign');
    const input = JSON.parse(args2!.replace(/(\w+):/g, '"$1":'));
    await ok(t, ws.token, tool2!, { ...input, rationale: 'Needs a second pair of eyes' });
    expect((await ok(t, ws.token, 'issues.get', { id: key })).assignedAgent).toMatchObject({ profileKey: 'second-pair' });
    await client.close();
  });
});
