/** agents.heartbeat / agents.list and the runtimes namespace (register, heartbeat, list, configure, reportInfo). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let bot: { id: string; profileKey: string };
let botKey: { token: string };

const events = async (kind: string, token = ws.token) =>
  (await ok(t, token, 'events.recent', { kinds: [kind], limit: 200 })).items as Array<{ id: string; subjectId: string; payload: any }>;

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'AGR');
  other = await createWorkspace(t, 'AGO');
  bot = await createAgent(t, ws, 'bot', { provider: 'CLAUDE', capabilities: 'HIGH,backend' });
  botKey = await createKey(t, ws, { agent: 'bot', scopes: ['READ_ISSUES', 'READ_USERS', 'ADMIN'] });
});
afterAll(() => t.close());

describe('agents.heartbeat', () => {
  it('sets status (default ONLINE) and lastHeartbeatAt; AGENT_STATUS_CHANGED only on a real change', async () => {
    const before = (await events('AGENT_STATUS_CHANGED')).length;
    const a = await ok(t, botKey.token, 'agents.heartbeat', {});
    expect(a).toMatchObject({ id: bot.id, status: 'ONLINE', runtime: null });
    expect(Date.parse(a.lastHeartbeatAt)).toBeGreaterThan(Date.now() - 60_000);
    const b = await ok(t, botKey.token, 'agents.heartbeat', { status: 'ONLINE' });
    expect(Date.parse(b.lastHeartbeatAt)).toBeGreaterThanOrEqual(Date.parse(a.lastHeartbeatAt));
    await ok(t, botKey.token, 'agents.heartbeat', { status: 'BUSY' });
    const changed = (await events('AGENT_STATUS_CHANGED')).slice(0, -before || undefined);
    expect(changed.map((e) => [e.subjectId, e.payload.from, e.payload.to])).toEqual([[bot.id, 'ONLINE', 'BUSY'], [bot.id, 'OFFLINE', 'ONLINE']]);
    // over JSON-RPC too
    const r = await rpc(t, botKey.token, 'tools/call', { name: 'agents.heartbeat', arguments: { status: 'ONLINE' } });
    expect(r.body.result.structuredContent).toMatchObject({ id: bot.id, status: 'ONLINE' });
  });

  it('bad input 400; keys without an agent, archived agents 403', async () => {
    const bad = await rest(t, botKey.token, 'agents.heartbeat', { status: 'SLEEPING' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toHaveProperty('status');
    expect((await rest(t, ws.token, 'agents.heartbeat', {})).body).toMatchObject({ error: 'agent_key_required' });
    await createAgent(t, ws, 'gone');
    const goneKey = await createKey(t, ws, { agent: 'gone', scopes: ['READ_ISSUES'] });
    await t.pools.owner.query("update app_public.agents set archived_at = now() where workspace_id = $1 and profile_key = 'gone'", [ws.id]);
    const r = await rest(t, goneKey.token, 'agents.heartbeat', {});
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('agent_archived');
  });

  it('attaches the agent to a runtime of its workspace only', async () => {
    const rt = await ok(t, ws.token, 'runtimes.register', { name: 'laptop', kind: 'LOCAL_DAEMON', providersAvailable: ['CLAUDE'] });
    const a = await ok(t, botKey.token, 'agents.heartbeat', { runtimeId: rt.id });
    expect(a.runtime).toEqual({ id: rt.id, name: 'laptop', kind: 'LOCAL_DAEMON' });
    const foreign = await ok(t, other.token, 'runtimes.register', { name: 'theirs', kind: 'CLOUD', providersAvailable: [] });
    expect((await rest(t, botKey.token, 'agents.heartbeat', { runtimeId: foreign.id })).status).toBe(404);
    expect((await ok(t, botKey.token, 'agents.me', {})).runtime.id).toBe(rt.id);
  });
});

describe('agents.list', () => {
  it('lists rows of spec 4.9 by profileKey; includeArchived and runtimeId filter; READ_USERS required', async () => {
    const rows = await ok(t, ws.token, 'agents.list', {});
    expect(rows.map((a: any) => a.profileKey)).toEqual(['bot']);
    expect(rows[0]).toMatchObject({ id: bot.id, profileKey: 'bot', name: 'bot', status: expect.any(String), runtimeMode: 'PERSISTENT',
      provider: 'CLAUDE', capabilities: ['HIGH', 'backend'], archivedAt: null, runtime: { id: expect.any(String), name: 'laptop', kind: 'LOCAL_DAEMON' } });
    expect((await ok(t, ws.token, 'agents.list', { includeArchived: true })).map((a: any) => a.profileKey)).toEqual(['bot', 'gone']);
    expect(await ok(t, ws.token, 'agents.list', { runtimeId: rows[0].runtime.id })).toHaveLength(1);
    // A runtime this workspace does not have (none such, another workspace's) is 404 on runtimeId, not an empty list.
    const foreignRuntime = (await ok(t, other.token, 'runtimes.list', {})).items[0];
    for (const runtimeId of [crypto.randomUUID(), foreignRuntime.id]) {
      const r = await rest(t, ws.token, 'agents.list', { runtimeId });
      expect([r.status, r.body.field]).toEqual([404, 'runtimeId']);
    }
    expect((await rest(t, ws.token, 'agents.list', { includeArchived: 'yes' })).body.issues).toHaveProperty('includeArchived');
    const noUsers = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, noUsers.token, 'agents.list', {})).body).toMatchObject({ error: 'scope_required', scope: 'READ_USERS' });
    expect(await ok(t, other.token, 'agents.list', {})).toEqual([]);
    const { rows: [project] } = await t.pools.owner.query("insert into app_public.projects (workspace_id, name) values ($1, 'P') returning id", [ws.id]);
    const narrowed = await createKey(t, ws, { scopes: ['READ_USERS'], projects: [project.id] });
    expect((await ok(t, narrowed.token, 'agents.list', {})).map((a: any) => a.profileKey)).toEqual(['bot']);
    const r = await rpc(t, ws.token, 'tools/call', { name: 'agents.list', arguments: {} });
    expect(r.body.result.structuredContent.items[0].id).toBe(bot.id);
  });
});

describe('runtimes', () => {
  it('register: not de-duplicated; owner = key user, null for AGENT keys; info whitelisted; secret only as hasSecret; RUNTIME_REGISTERED', async () => {
    const input = { name: 'box', kind: 'REMOTE_HTTP', endpoint: 'https://box.example.com/bridge', providersAvailable: ['CODEX', 'CLAUDE'],
      info: { hostname: 'box-1', os: 'linux', password: 'hunter2', arch: 'arm64' }, secret: 's3cret-s3cret-s3cret' };
    const a = await ok(t, ws.token, 'runtimes.register', input);
    const b = await ok(t, ws.token, 'runtimes.register', input);
    expect(a.id).not.toBe(b.id);
    // A provider named twice is kept once, in the order first named.
    const twice = await ok(t, ws.token, 'runtimes.register', { ...input, providersAvailable: ['CLAUDE', 'CODEX', 'CLAUDE', 'CLAUDE'] });
    expect(twice.providersAvailable).toEqual(['CLAUDE', 'CODEX']);
    expect(a).toMatchObject({ name: 'box', kind: 'REMOTE_HTTP', endpoint: input.endpoint, providersAvailable: ['CODEX', 'CLAUDE'],
      info: { hostname: 'box-1', os: 'linux', arch: 'arm64' }, hasSecret: true, ownerId: expect.any(String),
      owner: { email: ws.ownerEmail }, _count: { agents: 0 }, config: {}, archivedAt: null });
    expect(a.info).not.toHaveProperty('password');
    expect(JSON.stringify(a)).not.toContain('s3cret');
    const { rows } = await t.pools.owner.query('select encode(secret_hash, \'hex\') as h from app_private.runtime_secrets where runtime_id = $1', [a.id]);
    expect(rows[0].h).toHaveLength(64);
    const byAgent = await ok(t, botKey.token, 'runtimes.register', { name: 'bridge', kind: 'LOCAL_DAEMON', providersAvailable: [] });
    expect(byAgent).toMatchObject({ ownerId: null, owner: null, hasSecret: false });
    const registered = await events('RUNTIME_REGISTERED');
    expect(registered.map((e) => e.subjectId)).toEqual(expect.arrayContaining([a.id, b.id, byAgent.id]));
    // restore an archived runtime by id
    await t.pools.owner.query('update app_public.runtimes set archived_at = now() where id = $1', [b.id]);
    expect((await ok(t, ws.token, 'runtimes.list', {})).items.map((r: any) => r.id)).not.toContain(b.id);
    const restored = await ok(t, ws.token, 'runtimes.register', { ...input, name: 'box again', runtimeId: b.id });
    expect(restored).toMatchObject({ id: b.id, name: 'box again', archivedAt: null });
    // The event says restored only when it was archived; a live runtime named again is re-registered.
    await ok(t, ws.token, 'runtimes.register', { ...input, name: 'box once more', runtimeId: b.id });
    const newestFirst = (await events('RUNTIME_REGISTERED')).filter((e) => e.subjectId === b.id).slice(0, 2);
    expect(newestFirst.map((e) => e.payload.restored)).toEqual([false, true]);
  });

  it('register: bad input 400, scope ADMIN, another workspace 404', async () => {
    const bad = await rest(t, ws.token, 'runtimes.register', { name: 'x', kind: 'MAINFRAME', providersAvailable: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toHaveProperty('kind');
    expect((await rest(t, ws.token, 'runtimes.register', { name: 'x', kind: 'CLOUD' })).body.issues).toHaveProperty('providersAvailable');
    // endpoint: only http(s) URLs, refused on the field (not by the table's check constraint, whose name used to leak).
    for (const endpoint of ['javascript:alert(1)', 'ftp://x/', 'http:no-slashes', 'not a url', 'https://user:pw@box.example.com/']) {
      const r = await rest(t, ws.token, 'runtimes.register', { name: 'x', kind: 'REMOTE_HTTP', endpoint, providersAvailable: [] });
      expect([endpoint, r.status, r.body.issues]).toEqual([endpoint, 400, { endpoint: 'must be an http:// or https:// URL (no spaces, no backslashes, no user:password@)' }]);
      expect(JSON.stringify(r.body)).not.toContain('constraint');
    }
    expect((await ok(t, ws.token, 'runtimes.register', { name: 'x', kind: 'REMOTE_HTTP', endpoint: 'http://10.0.0.5:8080/b', providersAvailable: [] }))
      .endpoint).toBe('http://10.0.0.5:8080/b');
    // A scheme in capitals is still a URL: stored in lower case, as the table's check expects.
    expect((await ok(t, ws.token, 'runtimes.register', { name: 'x', kind: 'REMOTE_HTTP', endpoint: 'HTTP://upper.example.com', providersAvailable: [] }))
      .endpoint).toBe('http://upper.example.com');
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    expect((await rest(t, reader.token, 'runtimes.register', { name: 'x', kind: 'CLOUD', providersAvailable: [] })).body).toMatchObject({ error: 'scope_required', scope: 'ADMIN' });
    const theirs = (await ok(t, other.token, 'runtimes.list', {})).items[0];
    expect((await rest(t, ws.token, 'runtimes.register', { name: 'steal', kind: 'CLOUD', providersAvailable: [], runtimeId: theirs.id })).status).toBe(404);
  });

  it('heartbeat bumps heartbeatAt; list: newest first, kind filter, _count.agents, paging; another workspace invisible', async () => {
    const rt = await ok(t, ws.token, 'runtimes.register', { name: 'hb', kind: 'CLOUD', providersAvailable: ['HERMES'] });
    expect(rt.heartbeatAt).toBeNull();
    const hb = await ok(t, ws.token, 'runtimes.heartbeat', { runtimeId: rt.id, info: { runtimeVersion: '1.2.3', junk: 1 } });
    expect(hb.heartbeatAt).not.toBeNull();
    expect(hb.info).toEqual({ runtimeVersion: '1.2.3' });
    expect((await rest(t, ws.token, 'runtimes.heartbeat', { runtimeId: 'nope' })).body.issues).toHaveProperty('runtimeId');
    expect((await rest(t, other.token, 'runtimes.heartbeat', { runtimeId: rt.id })).status).toBe(404);
    const list = await ok(t, ws.token, 'runtimes.list', {});
    expect(list.items[0].id).toBe(rt.id);
    expect(list.items.find((r: any) => r.name === 'laptop')._count.agents).toBe(1);
    expect((await ok(t, ws.token, 'runtimes.list', { kind: 'CLOUD' })).items.map((r: any) => r.id)).toEqual([rt.id]);
    const p1 = await ok(t, ws.token, 'runtimes.list', { limit: 2 });
    const p2 = await ok(t, ws.token, 'runtimes.list', { limit: 2, cursor: p1.nextCursor });
    expect(p2.items[0].id).not.toBe(p1.items[1].id);
    expect((await ok(t, other.token, 'runtimes.list', {})).items.map((r: any) => r.name)).toEqual(['theirs']);
    expect((await ok(t, ws.token, 'runtimes.list', { includeArchived: true })).items.length).toBeGreaterThan(list.items.length - 1);
    const r = await rpc(t, ws.token, 'tools/call', { name: 'runtimes.list', arguments: { kind: 'CLOUD' } });
    expect(r.body.result.structuredContent.items[0].id).toBe(rt.id);
  });

  it('configure merges by default, replaces with merge false, rejects unknown adapter keys (CODEX adds sandbox/approval); RUNTIME_UPDATED', async () => {
    const plain = await ok(t, ws.token, 'runtimes.register', { name: 'plain', kind: 'LOCAL_DAEMON', providersAvailable: ['CLAUDE'] });
    const codex = await ok(t, ws.token, 'runtimes.register', { name: 'codex', kind: 'LOCAL_DAEMON', providersAvailable: ['CODEX'] });
    const a = await ok(t, ws.token, 'runtimes.configure', { runtimeId: plain.id, config: { workspaceRoot: '/srv', localWorkspaceTools: true } });
    expect(a.config).toEqual({ workspaceRoot: '/srv', localWorkspaceTools: true });
    const b = await ok(t, ws.token, 'runtimes.configure', { runtimeId: plain.id, config: { modeToolPolicyEnforced: true } });
    expect(b.config).toEqual({ workspaceRoot: '/srv', localWorkspaceTools: true, modeToolPolicyEnforced: true });
    const c = await ok(t, ws.token, 'runtimes.configure', { runtimeId: plain.id, config: { toolCapabilities: ['git'] }, merge: false });
    expect(c.config).toEqual({ toolCapabilities: ['git'] });
    const bad = await rest(t, ws.token, 'runtimes.configure', { runtimeId: plain.id, config: { sandbox: 'strict' } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toHaveProperty('config.sandbox');
    // A value of the wrong type says what the setting takes (it said only "Invalid input").
    expect((await rest(t, ws.token, 'runtimes.configure', { runtimeId: codex.id, config: { sandbox: 5 } })).body.issues)
      .toEqual({ 'config.sandbox': 'expected a name (one line of text) or an object of settings' });
    expect((await ok(t, ws.token, 'runtimes.configure', { runtimeId: codex.id, config: { sandbox: 'strict', approval: 'never' } })).config)
      .toEqual({ sandbox: 'strict', approval: 'never' });
    const updated = await events('RUNTIME_UPDATED');
    expect(updated.filter((e) => e.subjectId === plain.id)).toHaveLength(3);
    await ok(t, ws.token, 'runtimes.configure', { runtimeId: plain.id, config: { toolCapabilities: ['git'] } });
    expect((await events('RUNTIME_UPDATED')).filter((e) => e.subjectId === plain.id)).toHaveLength(3);
    expect((await rest(t, other.token, 'runtimes.configure', { runtimeId: plain.id, config: {} })).status).toBe(404);
    // Values of the known settings have their types (they were stored as sent: a number for a path, "yes" for a flag).
    const typed = await rest(t, ws.token, 'runtimes.configure', { runtimeId: plain.id, config: { workspaceRoot: 123, modeToolPolicyEnforced: 'yes', toolCapabilities: 'all' } });
    expect(typed.status).toBe(400);
    expect(Object.keys(typed.body.issues).sort()).toEqual(['config.modeToolPolicyEnforced', 'config.toolCapabilities', 'config.workspaceRoot']);
    expect((await ok(t, ws.token, 'runtimes.get', { id: plain.id })).config).toEqual({ toolCapabilities: ['git'] });

    // Merges at once keep every key: each call waits on the row and merges into it as the one before left it (the
    // row is held here until all four wait; merged from what they had read, the last one won).
    const holder = await t.pools.owner.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from app_public.runtimes where id = $1 for update', [plain.id]);
      const calls = [{ workspaceRoot: '/r' }, { localWorkspaceTools: true }, { modeToolPolicyEnforced: false }, { toolCapabilities: ['x'] }]
        .map((config) => ok(t, ws.token, 'runtimes.configure', { runtimeId: plain.id, config }));
      await expect.poll(async () => Number((await t.pools.owner.query(
        "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query like '%runtimes_configure%'")).rows[0].count), { timeout: 5000 }).toBe(4);
      await holder.query('commit');
      await Promise.all(calls);
    } finally {
      holder.release();
    }
    expect((await ok(t, ws.token, 'runtimes.get', { id: plain.id })).config)
      .toEqual({ workspaceRoot: '/r', localWorkspaceTools: true, modeToolPolicyEnforced: false, toolCapabilities: ['x'] });
  });

  it('an archived runtime takes no agent, heartbeat, settings or info until runtimes.register restores it (409 runtime_archived)', async () => {
    const old = await ok(t, ws.token, 'runtimes.register', { name: 'retired', kind: 'LOCAL_DAEMON', providersAvailable: ['CLAUDE'] });
    await t.pools.owner.query('update app_public.runtimes set archived_at = now() where id = $1', [old.id]);
    const refused = [
      await rest(t, botKey.token, 'agents.heartbeat', { runtimeId: old.id }),
      await rest(t, ws.token, 'runtimes.heartbeat', { runtimeId: old.id }),
      await rest(t, ws.token, 'runtimes.configure', { runtimeId: old.id, config: { workspaceRoot: '/srv' } }),
      await rest(t, ws.token, 'runtimes.reportInfo', { runtimeId: old.id, info: { os: 'linux' } }),
    ];
    expect(refused.map((r) => [r.status, r.body.error])).toEqual(Array(4).fill([409, 'runtime_archived']));
    expect((await ok(t, botKey.token, 'agents.me', {})).runtime?.id).not.toBe(old.id);
    expect((await ok(t, ws.token, 'runtimes.get', { id: old.id })).config).toEqual({});
    await ok(t, ws.token, 'runtimes.register', { runtimeId: old.id, name: 'retired', kind: 'LOCAL_DAEMON', providersAvailable: ['CLAUDE'] });
    const back = await ok(t, ws.token, 'runtimes.configure', { runtimeId: old.id, config: { workspaceRoot: '/srv' } });
    expect(back).toMatchObject({ archivedAt: null, config: { workspaceRoot: '/srv' } });
  });

  it('reportInfo stores only whitelisted keys; without runtimeId uses the calling agent\'s runtime', async () => {
    const r = await ok(t, botKey.token, 'runtimes.reportInfo', { info: { bridgeVersion: '0.9', containerImage: 'img:1', env: { SECRET: 'x' } } });
    expect(r).toMatchObject({ name: 'laptop', info: { bridgeVersion: '0.9', containerImage: 'img:1' } });
    expect(r.info).not.toHaveProperty('env');
    expect((await rest(t, ws.token, 'runtimes.reportInfo', { info: {} })).body.issues).toHaveProperty('runtimeId');
    const lonely = await createAgent(t, ws, 'lonely');
    const lonelyKey = await createKey(t, ws, { agent: lonely.profileKey, scopes: ['ADMIN'] });
    expect((await rest(t, lonelyKey.token, 'runtimes.reportInfo', { info: {} })).body.error).toBe('no_runtime');
    expect((await rest(t, ws.token, 'runtimes.reportInfo', { runtimeId: r.id })).body.issues).toHaveProperty('info');
    expect((await rest(t, other.token, 'runtimes.reportInfo', { runtimeId: r.id, info: {} })).status).toBe(404);
  });
});

describe('runtimes and narrowed keys', () => {
  it('a narrowed key reports info only about its own agent\'s runtime, not one every agent uses (403 narrowing)', async () => {
    const project = await ok(t, ws.token, 'projects.create', { name: 'Narrow runtime' });
    const shared = await ok(t, ws.token, 'runtimes.register', { name: 'shared-rt', kind: 'REMOTE_HTTP', providersAvailable: ['CODEX'] });
    const own = await ok(t, ws.token, 'runtimes.register', { name: 'own-rt', kind: 'REMOTE_HTTP', providersAvailable: ['CODEX'] });
    await createAgent(t, ws, 'narrow-runner');
    const runnerKey = await createKey(t, ws, { agent: 'narrow-runner', scopes: ['READ_ISSUES', 'READ_USERS', 'ADMIN'], projects: [project.id] });
    // Nor does it move its agent onto another runtime (then report about it as its own): an unnarrowed key attaches.
    const attach = await rest(t, runnerKey.token, 'agents.heartbeat', { runtimeId: own.id });
    expect([attach.status, attach.body.error]).toEqual([403, 'narrowing']);
    await ok(t, (await createKey(t, ws, { agent: 'narrow-runner' })).token, 'agents.heartbeat', { runtimeId: own.id });
    expect((await ok(t, runnerKey.token, 'agents.heartbeat', { runtimeId: own.id })).status).toBe('ONLINE'); // the runtime it is on already
    for (const [tool, args] of [['runtimes.reportInfo', { runtimeId: shared.id, info: { hostname: 'narrowed-wrote-this' } }],
      ['runtimes.heartbeat', { runtimeId: shared.id, info: { os: 'narrowed-os' } }]] as const) {
      const r = await rest(t, runnerKey.token, tool, args);
      expect([tool, r.status, r.body.error]).toEqual([tool, 403, 'narrowing']);
    }
    expect((await ok(t, ws.token, 'runtimes.get', { id: shared.id })).info).toEqual({});
    // A heartbeat without info, and info about its own agent's runtime, still pass.
    expect((await ok(t, runnerKey.token, 'runtimes.heartbeat', { runtimeId: shared.id })).id).toBe(shared.id);
    expect((await ok(t, runnerKey.token, 'runtimes.reportInfo', { info: { hostname: 'mine' } })).info).toMatchObject({ hostname: 'mine' });
    expect((await ok(t, ws.token, 'runtimes.reportInfo', { runtimeId: shared.id, info: { hostname: 'admin' } })).info).toMatchObject({ hostname: 'admin' });
  });
});

describe('archiving an agent', () => {
  it('ends its open runs, unassigns its unfinished issues (queued ones go back to the dispatcher) and sets it OFFLINE', async () => {
    const retiring = await createAgent(t, ws, 'retiring');
    const key = await createKey(t, ws, { agent: 'retiring' });
    await ok(t, key.token, 'agents.heartbeat', { status: 'ONLINE' });
    const open = await ok(t, ws.token, 'issues.create', { title: 'Half done' });
    const done = await ok(t, ws.token, 'issues.create', { title: 'Finished' });
    await ok(t, ws.token, 'issues.assign', { id: open.id, agentId: retiring.id });
    await ok(t, ws.token, 'issues.assign', { id: done.id, agentId: retiring.id });
    const { rows: [doneStatus] } = await t.pools.owner.query(
      "select id from app_public.statuses where workspace_id = $1 and category = 'DONE' order by position limit 1", [ws.id]);
    await ok(t, ws.token, 'issues.transition', { id: done.id, statusId: doneStatus.id });
    await admin(t, 'archive-agent', { workspace: ws.key, agent: 'retiring', json: true });

    expect((await ok(t, ws.token, 'issues.get', { id: open.id })).assignedAgentId).toBeNull();
    expect((await ok(t, ws.token, 'issues.get', { id: done.id })).assignedAgentId).toBe(retiring.id);
    const runs = (await ok(t, ws.token, 'runs.list', { agentId: retiring.id })).items ?? [];
    expect(runs.filter((r: any) => r.issue.id === open.id).map((r: any) => r.status)).toEqual(['ABANDONED']);
    const ended = (await events('AGENT_RUN_STATUS_CHANGED')).filter((e) => e.payload.agentId === retiring.id && e.payload.issueId === open.id);
    expect(ended.at(0)?.payload).toMatchObject({ to: 'ABANDONED', reason: 'agent_archived' });
    const listed = await ok(t, ws.token, 'agents.list', { includeArchived: true });
    const agent = (Array.isArray(listed) ? listed : listed.items).find((a: any) => a.id === retiring.id);
    expect(agent).toMatchObject({ status: 'OFFLINE', archivedAt: expect.any(String) });
  });

  it('an assignment racing the archive waits for it and is refused; an issue write holding its issue does not deadlock it', async () => {
    const racing = await createAgent(t, ws, 'racing');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Raced for' });
    const archiver = await t.pools.owner.connect();
    try {
      await archiver.query('begin');
      await archiver.query('select app_private.set_agent_archived($1, $2, true)', [ws.id, racing.id]);
      const assigning = rest(t, ws.token, 'issues.assign', { id: issue.id, agentId: racing.id });
      await new Promise((r) => setTimeout(r, 300)); // the assignment is now waiting for the archive's lock
      await archiver.query('commit');
      const r = await assigning;
      expect([r.status, r.body.error]).toEqual([400, 'agent_archived']);
    } finally {
      archiver.release();
    }
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgentId).toBeNull();

    // The other order: an issue write holds the issue while the archive starts; both finish.
    const held = await createAgent(t, ws, 'held');
    const busy = await ok(t, ws.token, 'issues.create', { title: 'Held' });
    await ok(t, ws.token, 'issues.assign', { id: busy.id, agentId: held.id });
    const writer = await t.pools.owner.connect();
    try {
      await writer.query('begin');
      await writer.query('select 1 from app_public.issues where id = $1 for update', [busy.id]);
      const archiving = admin(t, 'archive-agent', { workspace: ws.key, agent: 'held', json: true });
      await new Promise((r) => setTimeout(r, 300));
      await writer.query("update app_public.agent_runs set last_event_at = now() where issue_id = $1", [busy.id]);
      await writer.query('commit');
      expect((await archiving).agent.archivedAt).toEqual(expect.any(String));
    } finally {
      writer.release();
    }
    expect((await ok(t, ws.token, 'issues.get', { id: busy.id })).assignedAgentId).toBeNull();
  });
});

