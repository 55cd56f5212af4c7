/** The tools that complete the catalog (issue 6): gets, admin tools over the in-app procedures. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createKey, insertProject, ok, rest, rpc, startWithWorkspaces, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces()));
afterAll(() => t.close());

const GETS = ['projects.get', 'labels.get', 'reviewGates.get', 'agentCrews.get', 'actionRequests.get', 'notes.get', 'runtimes.get',
  'runs.get', 'attachments.get', 'agents.get', 'events.get', 'comments.get', 'comments.revisions'];

describe('get tools', () => {
  it('each returns its row; a bad id is 400 naming id; an unknown or foreign id is 404', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Subject' });
    const project = await ok(t, ws.token, 'projects.create', { name: 'Getters' });
    const label = await ok(t, ws.token, 'labels.create', { name: 'getter' });
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Crew' });
    const ar = await ok(t, ws.token, 'actionRequests.create', { issueId: issue.id, title: 'Decide' });
    const note = await ok(t, ws.token, 'notes.create', { title: 'N', body: 'b' });
    const rt = await ok(t, ws.token, 'runtimes.register', { name: 'laptop', kind: 'LOCAL_DAEMON', providersAvailable: [] });
    const agent = await createAgent(t, ws, 'getter-bot');
    const { rows } = await t.pools.owner.query('insert into app_public.agent_runs (workspace_id, agent_id, issue_id) values ($1, $2, $3) returning id',
      [ws.id, agent.id, issue.id]);
    const link = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://example.com/doc' });
    const comment = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'first' });
    await ok(t, ws.token, 'comments.update', { id: comment.id, body: 'second' });
    const event = (await subjectEvents(t, ws.token, 'issue', issue.id))[0]!;
    const ids: Record<string, string> = {
      'projects.get': project.id, 'labels.get': label.id, 'agentCrews.get': crew.id, 'actionRequests.get': ar.id, 'notes.get': note.id,
      'runtimes.get': rt.id, 'runs.get': rows[0].id, 'attachments.get': link.id, 'agents.get': agent.id, 'events.get': event.id,
      'comments.get': comment.id, 'comments.revisions': comment.id,
    };
    for (const [tool, id] of Object.entries(ids)) {
      const got = await ok(t, ws.token, tool, { id });
      expect(got.id, tool).toBe(id);
      expect((await rest(t, other.token, tool, { id })).status, `${tool} from another workspace`).toBe(404);
    }
    expect(await ok(t, ws.token, 'comments.revisions', { id: comment.id })).toMatchObject({
      body: 'second', revisions: [{ revision: 1, body: 'first', editedAt: expect.any(String) }],
    });
    for (const tool of GETS) {
      expect400(await rest(t, ws.token, tool, { id: 'nope' }), 'id');
      expect400(await rest(t, ws.token, tool, { id: crypto.randomUUID(), extra: 1 }), 'extra');
      expect((await rest(t, ws.token, tool, { id: crypto.randomUUID() })).status, tool).toBe(404);
    }
    // Over JSON-RPC too.
    const r = await rpc(t, ws.token, 'tools/call', { name: 'projects.get', arguments: { id: project.id } });
    expect(r.body.result.structuredContent.id).toBe(project.id);
  });

  it('needs the read scope of its area; narrowed keys see only what they may', async () => {
    const noRead = await createKey(t, ws, { scopes: ['WRITE_ISSUES'] });
    const r = await rest(t, noRead.token, 'labels.get', { id: crypto.randomUUID() });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('scope_required');
    expect((await rest(t, noRead.token, 'runtimes.get', { id: crypto.randomUUID() })).status).toBe(403);

    const inside = await insertProject(t, ws, 'Inside');
    const outside = await insertProject(t, ws, 'Outside');
    const narrowed = await createKey(t, ws, { projects: [inside] });
    expect((await ok(t, narrowed.token, 'projects.get', { id: inside })).id).toBe(inside);
    expect((await rest(t, narrowed.token, 'projects.get', { id: outside })).status).toBe(404);
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden', projectId: outside });
    const c = await ok(t, ws.token, 'comments.create', { issueId: hidden.id, body: 'secret' });
    expect((await rest(t, narrowed.token, 'comments.get', { id: c.id })).status).toBe(404);
    expect((await rest(t, narrowed.token, 'comments.revisions', { id: c.id })).status).toBe(404);
    const ev = (await subjectEvents(t, ws.token, 'issue', hidden.id))[0]!;
    expect((await rest(t, narrowed.token, 'events.get', { id: ev.id })).status).toBe(404);
  });
});

describe('admin tools over the in-app procedures', () => {
  it('agents.create / update / archive / unarchive: OWNER/ADMIN with ADMIN scope; events; webhookUrl checked in Node', async () => {
    const a = await ok(t, ws.token, 'agents.create', { profileKey: 'made-bot', name: 'Made', capabilities: ['ts'], maxConcurrent: 2 });
    expect(a).toMatchObject({ profileKey: 'made-bot', name: 'Made', capabilities: ['ts'], archivedAt: null });
    const u = await ok(t, ws.token, 'agents.update', { id: a.id, name: 'Renamed', provider: 'CLAUDE' });
    expect(u).toMatchObject({ id: a.id, name: 'Renamed', provider: 'CLAUDE', capabilities: ['ts'] });
    expect((await ok(t, ws.token, 'agents.archive', { id: a.id })).archivedAt).toEqual(expect.any(String));
    expect((await ok(t, ws.token, 'agents.unarchive', { id: a.id })).archivedAt).toBeNull();
    const kinds = (await subjectEvents(t, ws.token, 'agent', a.id)).map((e) => e.kind);
    expect(kinds[0]).toBe('AGENT_CREATED');
    expect(kinds).toContain('AGENT_UPDATED');
    expect(kinds).toContain('AGENT_DELETED');

    expect400(await rest(t, ws.token, 'agents.create', { profileKey: 'Bad Key', name: 'x' }), 'profileKey');
    expect400(await rest(t, ws.token, 'agents.create', { profileKey: 'hooked', name: 'x', webhookUrl: 'http://user:pw@example.com/h' }), 'webhookUrl');
    expect400(await rest(t, ws.token, 'agents.update', { id: a.id, webhookUrl: 'https://u:p@example.com/h' }), 'webhookUrl');
    expect((await rest(t, ws.token, 'agents.get', { id: a.id })).body.profileKey).toBe('made-bot');
    expect((await rest(t, ws.token, 'agents.create', { profileKey: 'made-bot', name: 'again' })).status).toBe(409);

    const writer = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'READ_USERS'] });
    const denied = await rest(t, writer.token, 'agents.archive', { id: a.id });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('scope_required');
    for (const tool of ['agents.update', 'agents.archive', 'agents.unarchive']) {
      expect((await rest(t, other.token, tool, { id: a.id })).status, tool).toBe(404);
    }
    // A MEMBER's ADMIN-scoped key still is not OWNER/ADMIN.
    await ok(t, ws.token, 'members.add', { email: 'plain@example.com' });
    const member = await createKey(t, ws, { user: 'plain@example.com', scopes: ['ADMIN', 'READ_USERS'] });
    expect((await rest(t, member.token, 'agents.archive', { id: a.id })).status).toBe(403);
    expect((await rest(t, member.token, 'members.add', { email: 'x@example.com' })).status).toBe(403);
  });

  it('members.list / add / setRole / remove with MEMBERSHIP_* events; last OWNER stays', async () => {
    const added = await ok(t, ws.token, 'members.add', { email: 'new.person@example.com', role: 'ADMIN' });
    expect(added).toMatchObject({ role: 'ADMIN', user: { email: 'new.person@example.com' } });
    const list = await ok(t, ws.token, 'members.list', {});
    expect(list.items.map((m: any) => m.user.email)).toContain('new.person@example.com');
    expect((await ok(t, ws.token, 'members.list', { role: 'OWNER' })).items.map((m: any) => m.user.email)).toEqual([ws.ownerEmail]);
    expect((await ok(t, ws.token, 'members.setRole', { userId: added.userId, role: 'MEMBER' })).role).toBe('MEMBER');
    await ok(t, ws.token, 'members.remove', { userId: added.userId });
    expect((await ok(t, ws.token, 'members.list', {})).items.map((m: any) => m.userId)).not.toContain(added.userId);
    const kinds = (await ok(t, ws.token, 'events.recent', { kinds: ['MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED', 'MEMBERSHIP_REMOVED'] }))
      .items.map((e: any) => e.kind);
    expect(kinds.slice(0, 3)).toEqual(['MEMBERSHIP_REMOVED', 'MEMBERSHIP_ROLE_CHANGED', 'MEMBERSHIP_CREATED']);

    const owner = (await ok(t, ws.token, 'members.list', { role: 'OWNER' })).items[0];
    expect((await rest(t, ws.token, 'members.setRole', { userId: owner.userId, role: 'MEMBER' })).status).toBe(409);
    expect400(await rest(t, ws.token, 'members.add', { email: 'not-an-email' }), 'email');
    expect400(await rest(t, ws.token, 'members.setRole', { userId: owner.userId, role: 'KING' }), 'role');
    expect400(await rest(t, ws.token, 'members.remove', { userId: 'x' }), 'userId');
    expect((await rest(t, other.token, 'members.remove', { userId: owner.userId })).status).toBe(404);
    expect((await ok(t, other.token, 'members.list', {})).items.map((m: any) => m.userId)).not.toContain(owner.userId);
    const noUsers = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, noUsers.token, 'members.list', {})).status).toBe(403);
    // JSON-RPC
    const r = await rpc(t, ws.token, 'tools/call', { name: 'members.list', arguments: {} });
    expect(r.body.result.structuredContent.items.length).toBeGreaterThan(0);
  });

  it('workspace.updateSettings changes only the settings given', async () => {
    const before = await ok(t, ws.token, 'workspace.get', {});
    const after = await ok(t, ws.token, 'workspace.updateSettings', { cycleLengthDays: 7, autoDispatchMode: 'MANUAL_ONLY' });
    expect(after).toMatchObject({ cycleLengthDays: 7, autoDispatchMode: 'MANUAL_ONLY', name: before.name, timeTrackingEnabled: before.timeTrackingEnabled });
    expect400(await rest(t, ws.token, 'workspace.updateSettings', { autoDispatchMode: 'RANDOM' }), 'autoDispatchMode');
    expect400(await rest(t, ws.token, 'workspace.updateSettings', { cycleLengthDays: 0 }), 'cycleLengthDays');
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, reader.token, 'workspace.updateSettings', { name: 'x' })).status).toBe(403);
    expect((await ok(t, other.token, 'workspace.get', {})).cycleLengthDays).not.toBe(7);
  });

  it('access.listKeys shows no secret; access.revoke is permanent; another workspace’s key is 404', async () => {
    const k = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [await insertProject(t, ws, 'KeyScope')] });
    const list = await ok(t, ws.token, 'access.listKeys', {});
    const row = list.items.find((x: any) => x.id === k.id);
    expect(row).toMatchObject({ scopes: ['READ_ISSUES'], revokedAt: null, narrowing: { projectIds: [expect.any(String)] } });
    expect(JSON.stringify(list)).not.toContain(k.token);
    expect(list.items.find((x: any) => x.isCurrent)).toBeDefined();
    expect((await ok(t, ws.token, 'access.revoke', { keyId: k.id })).revokedAt).toEqual(expect.any(String));
    expect((await rest(t, k.token, 'workspace.get', {})).status).toBe(401);
    expect((await ok(t, ws.token, 'access.listKeys', {})).items.map((x: any) => x.id)).not.toContain(k.id);
    expect((await ok(t, ws.token, 'access.listKeys', { includeRevoked: true })).items.map((x: any) => x.id)).toContain(k.id);
    const foreign = await createKey(t, other, {});
    expect((await rest(t, ws.token, 'access.revoke', { keyId: foreign.id })).status).toBe(404);
    expect((await ok(t, ws.token, 'access.listKeys', { includeRevoked: true })).items.map((x: any) => x.id)).not.toContain(foreign.id);
    expect400(await rest(t, ws.token, 'access.revoke', { keyId: 'x' }), 'keyId');
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, reader.token, 'access.listKeys', {})).status).toBe(403);
    const r = await rpc(t, ws.token, 'tools/call', { name: 'access.listKeys', arguments: {} });
    expect(r.body.result.structuredContent.items.length).toBeGreaterThan(0);
  });
});
