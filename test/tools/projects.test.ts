import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, createKey, createWorkspace, ok, rest, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces()));
afterAll(() => t.close());

const events = async (token: string, subjectType: string, subjectId: string) =>
  (await ok(t, token, 'events.recent', { subjectType, subjectId })).items as Array<{ kind: string; payload: any }>;

describe('projects', () => {
  it('create, update, archive: shapes and PROJECT_CREATED / PROJECT_UPDATED events', async () => {
    const p = await ok(t, ws.token, 'projects.create', { name: '  Billing  ', description: 'Invoices' });
    expect(p).toMatchObject({ name: 'Billing', description: 'Invoices', initiativeId: null, initiative: null, archived: false, archivedAt: null });
    expect((await events(ws.token, 'project', p.id)).map((e) => e.kind)).toEqual(['PROJECT_CREATED']);

    const u = await ok(t, ws.token, 'projects.update', { id: p.id, name: 'Billing v2', description: null });
    expect(u).toMatchObject({ id: p.id, name: 'Billing v2', description: null });
    const same = await ok(t, ws.token, 'projects.update', { id: p.id, name: 'Billing v2' });
    expect(same.updatedAt).toBe(u.updatedAt);
    expect((await events(ws.token, 'project', p.id)).map((e) => e.kind)).toEqual(['PROJECT_UPDATED', 'PROJECT_CREATED']);

    const a = await ok(t, ws.token, 'projects.archive', { id: p.id });
    expect(a).toMatchObject({ archived: true, archivedAt: expect.any(String) });
    const again = await ok(t, ws.token, 'projects.archive', { id: p.id });
    expect(again.archivedAt).toBe(a.archivedAt);
    const evs = await events(ws.token, 'project', p.id);
    expect(evs.map((e) => e.kind)).toEqual(['PROJECT_UPDATED', 'PROJECT_UPDATED', 'PROJECT_CREATED']);
    expect(evs[0]!.payload).toMatchObject({ projectId: p.id, archived: true, changes: ['archived'] });
    expect(evs[1]!.payload).toMatchObject({ changes: ['name', 'description'] });
    // An archived project is no target for new issues.
    expect((await rest(t, ws.token, 'issues.create', { title: 'x', projectId: p.id })).status).toBe(404);
  });

  it('lists live projects oldest first, pages, filters by initiative; archived on request', async () => {
    const fresh = await createWorkspace(t);
    const names = ['p1', 'p2', 'p3', 'p4', 'p5'];
    const made = [];
    for (const name of names) made.push(await ok(t, fresh.token, 'projects.create', { name }));
    await ok(t, fresh.token, 'projects.archive', { id: made[4].id });
    const seen: string[] = (await allPages(t, fresh.token, 'projects.list', {}, 2)).map((p: { name: string }) => p.name);
    expect(seen).toEqual(['p1', 'p2', 'p3', 'p4']);
    const all = await ok(t, fresh.token, 'projects.list', { includeArchived: true });
    expect(all.items.map((p: { name: string }) => p.name)).toEqual(names);

    const init = await ok(t, fresh.token, 'initiatives.create', { name: 'Growth' });
    await ok(t, fresh.token, 'initiatives.linkProject', { initiativeId: init.id, projectId: made[1].id });
    expect((await ok(t, fresh.token, 'projects.list', { initiativeId: init.id })).items.map((p: { id: string }) => p.id)).toEqual([made[1].id]);
    expect((await ok(t, fresh.token, 'projects.list', { initiativeId: null })).items).toHaveLength(3);
    expect((await rest(t, fresh.token, 'projects.list', { cursor: 'garbage' })).status).toBe(400);
  });

  it('rejects bad input with 400 and an issues map, writing nothing', async () => {
    const p = await ok(t, ws.token, 'projects.create', { name: 'Valid' });
    const before = await ok(t, ws.token, 'events.recent', { limit: 1 });
    expect400(await rest(t, ws.token, 'projects.create', {}), 'name');
    expect400(await rest(t, ws.token, 'projects.create', { name: '   ' }), 'name');
    expect400(await rest(t, ws.token, 'projects.create', { name: 'x'.repeat(201) }), 'name');
    expect400(await rest(t, ws.token, 'projects.create', { name: 'x', initiativeId: 'nope' }), 'initiativeId');
    expect400(await rest(t, ws.token, 'projects.create', { name: 'x', color: 'red' }), 'color');
    expect400(await rest(t, ws.token, 'projects.update', { id: 'nope' }), 'id');
    expect400(await rest(t, ws.token, 'projects.update', { id: p.id, name: '' }), 'name');
    expect400(await rest(t, ws.token, 'projects.archive', {}), 'id');
    expect400(await rest(t, ws.token, 'projects.list', { limit: 0 }), 'limit');
    expect((await rest(t, ws.token, 'projects.update', { id: crypto.randomUUID() })).status).toBe(404);
    expect((await rest(t, ws.token, 'projects.create', { name: 'x', initiativeId: crypto.randomUUID() })).status).toBe(404);
    const after = await ok(t, ws.token, 'events.recent', { limit: 1 });
    expect(after.items[0].id).toBe(before.items[0].id);
  });

  it('another workspace sees none of them and changes nothing (404)', async () => {
    const p = await ok(t, ws.token, 'projects.create', { name: 'Private' });
    expect((await ok(t, other.token, 'projects.list', { includeArchived: true })).items.map((x: { id: string }) => x.id)).not.toContain(p.id);
    expect((await rest(t, other.token, 'projects.update', { id: p.id, name: 'stolen' })).status).toBe(404);
    expect((await rest(t, other.token, 'projects.archive', { id: p.id })).status).toBe(404);
    const foreignInit = await ok(t, other.token, 'initiatives.create', { name: 'Foreign' });
    expect((await rest(t, ws.token, 'projects.update', { id: p.id, initiativeId: foreignInit.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'projects.create', { name: 'x', initiativeId: foreignInit.id })).status).toBe(404);
    const still = (await ok(t, ws.token, 'projects.list', { limit: 200 })).items.find((x: { id: string }) => x.id === p.id);
    expect(still).toMatchObject({ name: 'Private', archived: false, initiativeId: null });
    expect((await rest(t, other.token, 'events.recent', { subjectType: 'project', subjectId: p.id })).body.items).toEqual([]);
  });

  it('a project-narrowed key sees and changes only its projects, cannot create, and sees only their events', async () => {
    const a = await ok(t, ws.token, 'projects.create', { name: 'Narrow A' });
    const b = await ok(t, ws.token, 'projects.create', { name: 'Narrow B' });
    const key = await createKey(t, ws, { scopes: ['READ_PROJECTS', 'WRITE_PROJECTS', 'READ_ISSUES'], projects: [a.id] });
    const listed = (await ok(t, key.token, 'projects.list', { limit: 200, includeArchived: true })).items.map((x: { id: string }) => x.id);
    expect(listed).toEqual([a.id]);
    expect((await ok(t, key.token, 'projects.update', { id: a.id, description: 'mine' })).description).toBe('mine');
    expect((await rest(t, key.token, 'projects.update', { id: b.id, name: 'nope' })).status).toBe(404);
    expect((await rest(t, key.token, 'projects.archive', { id: b.id })).status).toBe(404);
    const created = await rest(t, key.token, 'projects.create', { name: 'widen' });
    expect(created.status).toBe(403);
    expect(created.body.error).toBe('narrowing');
    const evs = (await ok(t, key.token, 'events.recent', { limit: 200, subjectType: 'project' })).items.map((e: { subjectId: string }) => e.subjectId);
    expect(evs).toContain(a.id);
    expect(evs).not.toContain(b.id);
    expect((await ok(t, ws.token, 'projects.list', { limit: 200 })).items.find((x: { id: string }) => x.id === b.id).name).toBe('Narrow B');
  });

  it('answers over MCP JSON-RPC too', async () => {
    const r = await rpc(t, ws.token, 'tools/call', { name: 'projects.create', arguments: { name: 'Via RPC' } });
    expect(r.body.result.isError).toBeUndefined();
    expect(r.body.result.structuredContent).toMatchObject({ name: 'Via RPC', archived: false });
    const listed = await rpc(t, ws.token, 'tools/list', {}, '?profile=core');
    const names = listed.body.result.tools.map((x: { name: string }) => x.name);
    expect(names).toEqual(expect.arrayContaining(['projects.list', 'projects.create', 'projects.update', 'projects.archive']));
  });
});

describe('initiatives', () => {
  it('create, get, update, list; INITIATIVE_CREATED / INITIATIVE_UPDATED events', async () => {
    const i = await ok(t, ws.token, 'initiatives.create', { name: 'Q3 reliability', description: 'Fewer pages' });
    expect(i).toMatchObject({ name: 'Q3 reliability', description: 'Fewer pages', archived: false, projectCount: 0, projects: [] });
    const u = await ok(t, ws.token, 'initiatives.update', { id: i.id, description: null });
    expect(u).toMatchObject({ name: 'Q3 reliability', description: null });
    await ok(t, ws.token, 'initiatives.update', { id: i.id, description: null }); // no change, no event
    const evs = await events(ws.token, 'initiative', i.id);
    expect(evs.map((e) => e.kind)).toEqual(['INITIATIVE_UPDATED', 'INITIATIVE_CREATED']);
    expect(evs[0]!.payload).toMatchObject({ initiativeId: i.id, changes: ['description'] });
    expect(await ok(t, ws.token, 'initiatives.get', { id: i.id })).toMatchObject({ id: i.id, projects: [] });
    const listed = await ok(t, ws.token, 'initiatives.list', { limit: 200 });
    expect(listed.items.map((x: { id: string }) => x.id)).toContain(i.id);
    expect(listed.items[0]).not.toHaveProperty('projects');
  });

  it('linkProject / unlinkProject set and clear initiativeId, idempotently, with PROJECT_UPDATED', async () => {
    const i = await ok(t, ws.token, 'initiatives.create', { name: 'Linking' });
    const j = await ok(t, ws.token, 'initiatives.create', { name: 'Other initiative' });
    const p = await ok(t, ws.token, 'projects.create', { name: 'Linked project' });
    const linked = await ok(t, ws.token, 'initiatives.linkProject', { initiativeId: i.id, projectId: p.id });
    expect(linked).toMatchObject({ id: p.id, initiativeId: i.id, initiative: { id: i.id, name: 'Linking' } });
    await ok(t, ws.token, 'initiatives.linkProject', { initiativeId: i.id, projectId: p.id });
    const got = await ok(t, ws.token, 'initiatives.get', { id: i.id });
    expect(got).toMatchObject({ projectCount: 1, projects: [{ id: p.id, name: 'Linked project', archived: false }] });
    let evs = await events(ws.token, 'project', p.id);
    expect(evs.map((e) => e.kind)).toEqual(['PROJECT_UPDATED', 'PROJECT_CREATED']);
    expect(evs[0]!.payload).toMatchObject({ initiativeId: i.id });

    const wrong = await rest(t, ws.token, 'initiatives.unlinkProject', { projectId: p.id, initiativeId: j.id });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error).toBe('not_linked');
    const unlinked = await ok(t, ws.token, 'initiatives.unlinkProject', { projectId: p.id, initiativeId: i.id });
    expect(unlinked).toMatchObject({ initiativeId: null, initiative: null });
    await ok(t, ws.token, 'initiatives.unlinkProject', { projectId: p.id });
    evs = await events(ws.token, 'project', p.id);
    expect(evs.map((e) => e.kind)).toEqual(['PROJECT_UPDATED', 'PROJECT_UPDATED', 'PROJECT_CREATED']);
    expect(evs[0]!.payload).toMatchObject({ initiativeId: null });
    // Moving between initiatives via projects.update works too.
    await ok(t, ws.token, 'projects.update', { id: p.id, initiativeId: j.id });
    expect((await ok(t, ws.token, 'initiatives.get', { id: j.id })).projects.map((x: { id: string }) => x.id)).toEqual([p.id]);
  });

  it('rejects bad input with 400 and unknown ids with 404', async () => {
    const i = await ok(t, ws.token, 'initiatives.create', { name: 'Valid' });
    expect400(await rest(t, ws.token, 'initiatives.create', {}), 'name');
    expect400(await rest(t, ws.token, 'initiatives.create', { name: 'x', extra: true }), 'extra');
    expect400(await rest(t, ws.token, 'initiatives.get', { id: '12' }), 'id');
    expect400(await rest(t, ws.token, 'initiatives.update', { id: i.id, name: '' }), 'name');
    expect400(await rest(t, ws.token, 'initiatives.linkProject', { initiativeId: i.id }), 'projectId');
    expect400(await rest(t, ws.token, 'initiatives.unlinkProject', { projectId: 'x' }), 'projectId');
    expect((await rest(t, ws.token, 'initiatives.get', { id: crypto.randomUUID() })).status).toBe(404);
    const missing = await rest(t, ws.token, 'initiatives.linkProject', { initiativeId: i.id, projectId: crypto.randomUUID() });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Project not found');
  });

  it('another workspace: 404 everywhere, nothing changed', async () => {
    const i = await ok(t, ws.token, 'initiatives.create', { name: 'Mine' });
    const p = await ok(t, ws.token, 'projects.create', { name: 'Mine too' });
    const foreignInit = await ok(t, other.token, 'initiatives.create', { name: 'Theirs' });
    const foreignProject = await ok(t, other.token, 'projects.create', { name: 'Theirs too' });
    expect((await rest(t, other.token, 'initiatives.get', { id: i.id })).status).toBe(404);
    expect((await rest(t, other.token, 'initiatives.update', { id: i.id, name: 'x' })).status).toBe(404);
    expect((await rest(t, other.token, 'initiatives.linkProject', { initiativeId: foreignInit.id, projectId: p.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'initiatives.linkProject', { initiativeId: i.id, projectId: foreignProject.id })).status).toBe(404);
    expect((await rest(t, other.token, 'initiatives.unlinkProject', { projectId: p.id })).status).toBe(404);
    expect((await ok(t, other.token, 'initiatives.list', { limit: 200 })).items.map((x: { id: string }) => x.id)).not.toContain(i.id);
    expect(await ok(t, ws.token, 'initiatives.get', { id: i.id })).toMatchObject({ name: 'Mine', projects: [] });
  });

  it('an initiative-narrowed key sees only its initiatives and their events, cannot create or poach projects', async () => {
    const mine = await ok(t, ws.token, 'initiatives.create', { name: 'Narrowed in' });
    const theirs = await ok(t, ws.token, 'initiatives.create', { name: 'Narrowed out' });
    const p = await ok(t, ws.token, 'projects.create', { name: 'In theirs', initiativeId: theirs.id });
    const free = await ok(t, ws.token, 'projects.create', { name: 'Free project' });
    const key = await createKey(t, ws, { scopes: ['READ_PROJECTS', 'WRITE_PROJECTS', 'READ_ISSUES'], initiatives: [mine.id] });
    expect((await ok(t, key.token, 'initiatives.list', { limit: 200 })).items.map((x: { id: string }) => x.id)).toEqual([mine.id]);
    expect((await rest(t, key.token, 'initiatives.get', { id: theirs.id })).status).toBe(404);
    expect((await rest(t, key.token, 'initiatives.update', { id: theirs.id, name: 'x' })).status).toBe(404);
    expect((await rest(t, key.token, 'initiatives.linkProject', { initiativeId: theirs.id, projectId: free.id })).status).toBe(404);
    const poach = await rest(t, key.token, 'initiatives.linkProject', { initiativeId: mine.id, projectId: p.id });
    expect(poach.status).toBe(403);
    expect(poach.body.error).toBe('narrowing');
    expect((await rest(t, key.token, 'initiatives.unlinkProject', { projectId: p.id })).status).toBe(403);
    const create = await rest(t, key.token, 'initiatives.create', { name: 'widen' });
    expect(create.status).toBe(403);
    expect(create.body.error).toBe('narrowing');
    expect((await ok(t, key.token, 'initiatives.linkProject', { initiativeId: mine.id, projectId: free.id })).initiativeId).toBe(mine.id);
    const evs = (await ok(t, key.token, 'events.recent', { limit: 200, subjectType: 'initiative' })).items.map((e: { subjectId: string }) => e.subjectId);
    expect(evs).toContain(mine.id);
    expect(evs).not.toContain(theirs.id);
    expect((await ok(t, ws.token, 'projects.list', { limit: 200 })).items.find((x: { id: string }) => x.id === p.id).initiativeId).toBe(theirs.id);
    // The project is visible (initiative narrowing does not hide projects), the id of its hidden initiative is not.
    expect(await ok(t, key.token, 'projects.get', { id: p.id })).toMatchObject({ id: p.id, initiativeId: null, initiative: null });
    expect((await ok(t, key.token, 'projects.list', { limit: 200 })).items.find((x: { id: string }) => x.id === p.id))
      .toMatchObject({ initiativeId: null, initiative: null });
    // Nor through the project's events, nor by filtering on the id (404, as for any initiative it cannot see).
    const projectEvents = (await ok(t, key.token, 'events.recent', { subjectType: 'project', subjectId: p.id })).items;
    expect(projectEvents.map((e: any) => [e.kind, e.payload.initiativeId])).toEqual([['PROJECT_CREATED', null]]);
    expect((await ok(t, ws.token, 'events.recent', { subjectType: 'project', subjectId: p.id })).items[0].payload.initiativeId).toBe(theirs.id);
    expect((await rest(t, key.token, 'projects.list', { initiativeId: theirs.id })).status).toBe(404);
    expect((await ok(t, key.token, 'projects.list', { initiativeId: mine.id })).items.map((x: { id: string }) => x.id)).toEqual([free.id]);
    // It reads initiativeId null, so the null filter lists it (as the key sees it, it has no initiative).
    expect((await ok(t, key.token, 'projects.list', { initiativeId: null, limit: 200 })).items.map((x: { id: string }) => x.id)).toContain(p.id);
    expect((await ok(t, ws.token, 'projects.list', { initiativeId: null, limit: 200 })).items.map((x: { id: string }) => x.id)).not.toContain(p.id);
    // GraphQL: test/graphql/tenancy.test.ts.
  });
});
