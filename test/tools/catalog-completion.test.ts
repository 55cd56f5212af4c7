/** The tools that complete the catalog (issue 6): gets, admin tools over the in-app procedures. */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, insertProject, ok, rest, rpc, startWithWorkspaces, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces()));
afterAll(() => t.close());

const GETS = ['projects.get', 'labels.get', 'reviewGates.get', 'agentCrews.get', 'notes.get', 'runtimes.get',
  'runs.get', 'attachments.get', 'agents.get', 'events.get', 'comments.get'];

describe('get tools', () => {
  it('each returns its row; a bad id is 400 naming id; an unknown or foreign id is 404', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Subject' });
    const project = await ok(t, ws.token, 'projects.create', { name: 'Getters' });
    const label = await ok(t, ws.token, 'labels.create', { name: 'getter' });
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Crew' });
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
      'projects.get': project.id, 'labels.get': label.id, 'agentCrews.get': crew.id, 'notes.get': note.id,
      'runtimes.get': rt.id, 'runs.get': rows[0].id, 'attachments.get': link.id, 'agents.get': agent.id, 'events.get': event.id,
      'comments.get': comment.id,
    };
    for (const [tool, id] of Object.entries(ids)) {
      const got = await ok(t, ws.token, tool, { id });
      expect(got.id, tool).toBe(id);
      expect((await rest(t, other.token, tool, { id })).status, `${tool} from another workspace`).toBe(404);
    }
    expect(await ok(t, ws.token, 'comments.get', { id: comment.id })).toMatchObject({ body: 'second', editedAt: expect.any(String) });
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
    const ev = (await subjectEvents(t, ws.token, 'issue', hidden.id))[0]!;
    expect((await rest(t, narrowed.token, 'events.get', { id: ev.id })).status).toBe(404);
  });
});

describe('members', () => {
  it('members.list: people of the workspace with their role, paged by email; READ_USERS; nothing of another workspace', async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'new.person@example.com', role: 'ADMIN' });
    await admin(t, 'add-member', { workspace: other.key, email: 'foreign.person@example.com', role: 'MEMBER' });
    const list = await ok(t, ws.token, 'members.list', {});
    expect(list.items.map((m: any) => m.user.email)).toEqual([...[ws.ownerEmail, 'new.person@example.com']].sort());
    expect(list.items.find((m: any) => m.user.email === 'new.person@example.com')).toMatchObject({ role: 'ADMIN', userId: expect.any(String) });
    expect((await ok(t, ws.token, 'members.list', { role: 'OWNER' })).items.map((m: any) => m.user.email)).toEqual([ws.ownerEmail]);
    const paged = await ok(t, ws.token, 'members.list', { limit: 1 });
    expect(paged.items).toHaveLength(1);
    expect((await ok(t, ws.token, 'members.list', { limit: 1, cursor: paged.nextCursor })).items).toHaveLength(1);
    expect400(await rest(t, ws.token, 'members.list', { role: 'KING' }), 'role');
    expect400(await rest(t, ws.token, 'members.list', { cursor: 'garbage' }), 'cursor');
    const noUsers = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, noUsers.token, 'members.list', {})).status).toBe(403);
    // JSON-RPC
    const r = await rpc(t, ws.token, 'tools/call', { name: 'members.list', arguments: {} });
    expect(r.body.result.structuredContent.items.map((m: any) => m.user.email)).not.toContain('foreign.person@example.com');
  });
});

describe('archive / unarchive', () => {
  it('projects.unarchive, initiatives.archive / unarchive, agentCrews.unarchive: idempotent, with their events', async () => {
    const p = await ok(t, ws.token, 'projects.create', { name: 'Comeback' });
    await ok(t, ws.token, 'projects.archive', { id: p.id });
    expect(await ok(t, ws.token, 'projects.unarchive', { id: p.id })).toMatchObject({ archived: false, archivedAt: null });
    await ok(t, ws.token, 'projects.unarchive', { id: p.id });
    const pe = await subjectEvents(t, ws.token, 'project', p.id);
    expect(pe.map((e) => e.kind)).toEqual(['PROJECT_CREATED', 'PROJECT_UPDATED', 'PROJECT_UPDATED']);
    expect(pe[2]!.payload).toMatchObject({ archived: false });

    const i = await ok(t, ws.token, 'initiatives.create', { name: 'Shelved' });
    expect((await ok(t, ws.token, 'initiatives.archive', { id: i.id })).archived).toBe(true);
    await ok(t, ws.token, 'initiatives.archive', { id: i.id });
    expect((await ok(t, ws.token, 'initiatives.unarchive', { id: i.id })).archived).toBe(false);
    expect((await subjectEvents(t, ws.token, 'initiative', i.id)).map((e) => e.kind))
      .toEqual(['INITIATIVE_CREATED', 'INITIATIVE_UPDATED', 'INITIATIVE_UPDATED']);

    const c = await ok(t, ws.token, 'agentCrews.create', { name: 'Resting' });
    await ok(t, ws.token, 'agentCrews.archive', { id: c.id });
    expect((await ok(t, ws.token, 'agentCrews.unarchive', { id: c.id })).archivedAt).toBeNull();
    expect((await subjectEvents(t, ws.token, 'crew', c.id)).map((e) => e.kind)).toEqual(['CREW_CREATED', 'CREW_UPDATED', 'CREW_UPDATED']);

    for (const [tool, id] of [['projects.unarchive', p.id], ['initiatives.archive', i.id], ['initiatives.unarchive', i.id], ['agentCrews.unarchive', c.id]]) {
      expect400(await rest(t, ws.token, tool!, { id: 'x' }), 'id');
      expect((await rest(t, other.token, tool!, { id })).status, tool).toBe(404);
    }
    const reader = await createKey(t, ws, { scopes: ['READ_PROJECTS', 'READ_ISSUES', 'WRITE_ISSUES'] });
    expect((await rest(t, reader.token, 'projects.unarchive', { id: p.id })).status).toBe(403);
    expect((await rest(t, reader.token, 'initiatives.archive', { id: i.id })).status).toBe(403);
    expect((await rest(t, reader.token, 'agentCrews.unarchive', { id: c.id })).status).toBe(403);
    // Narrowed: a project-narrowed key reaches only its projects; an initiative-narrowed key only its initiatives.
    const narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Elsewhere')] });
    expect((await rest(t, narrowed.token, 'projects.unarchive', { id: p.id })).status).toBe(404);
    const i2 = await ok(t, ws.token, 'initiatives.create', { name: 'Mine' });
    const byInit = await createKey(t, ws, { initiatives: [i2.id] });
    expect((await rest(t, byInit.token, 'initiatives.archive', { id: i.id })).status).toBe(404);
    expect((await ok(t, byInit.token, 'initiatives.archive', { id: i2.id })).archived).toBe(true);
  });
});

describe('webhooks (reads)', () => {
  it('list, get, listDeliveries: ADMIN + OWNER/ADMIN, never a secret, nothing of another workspace', async () => {
    const made = await admin(t, 'create-webhook', { workspace: ws.key, url: 'https://hooks.example.com/in', events: 'ISSUE_CREATED', json: true });
    const secret = JSON.stringify(made).match(/whsec_[A-Za-z0-9+/=_-]+/)?.[0];
    const hookId = made.webhook?.id ?? made.id;
    await ok(t, ws.token, 'issues.create', { title: 'fires a delivery' });
    const list = await ok(t, ws.token, 'webhooks.list', {});
    expect(list.items.map((w: any) => w.id)).toEqual([hookId]);
    if (secret) expect(JSON.stringify(list)).not.toContain(secret);
    expect(await ok(t, ws.token, 'webhooks.get', { id: hookId })).toMatchObject({ id: hookId, url: 'https://hooks.example.com/in', events: ['ISSUE_CREATED'] });
    const deliveries = await ok(t, ws.token, 'webhooks.listDeliveries', { webhookId: hookId });
    expect(deliveries.items.length).toBeGreaterThan(0);
    expect((await ok(t, ws.token, 'webhooks.listDeliveries', { status: 'CANCELED' })).items).toEqual([]);

    expect((await rest(t, other.token, 'webhooks.get', { id: hookId })).status).toBe(404);
    expect((await rest(t, other.token, 'webhooks.listDeliveries', { webhookId: hookId })).status).toBe(404);
    expect((await ok(t, other.token, 'webhooks.list', {})).items).toEqual([]);
    expect400(await rest(t, ws.token, 'webhooks.get', { id: 'x' }), 'id');
    expect400(await rest(t, ws.token, 'webhooks.listDeliveries', { status: 'LOST' }), 'status');
    expect400(await rest(t, ws.token, 'webhooks.listDeliveries', { cursor: 'x' }), 'cursor');
    // A cursor naming no delivery of this workspace (another id; one deleted with its webhook) is refused, not page 1 again.
    expect400(await rest(t, ws.token, 'webhooks.listDeliveries', { cursor: crypto.randomUUID() }), 'cursor');
    expect400(await rest(t, other.token, 'webhooks.listDeliveries', { cursor: deliveries.items[0].id }), 'cursor');
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, reader.token, 'webhooks.list', {})).status).toBe(403);
    await admin(t, 'add-member', { workspace: ws.key, email: 'hooks.member@example.com', role: 'MEMBER' });
    const member = await createKey(t, ws, { user: 'hooks.member@example.com', scopes: ['ADMIN'] });
    expect((await rest(t, member.token, 'webhooks.list', {})).status).toBe(403);
    const r = await rpc(t, ws.token, 'tools/call', { name: 'webhooks.get', arguments: { id: hookId } });
    expect(r.body.result.structuredContent.id).toBe(hookId);
  });
});
