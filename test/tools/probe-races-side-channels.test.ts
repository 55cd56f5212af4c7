/**
 * From outside probes: races decided by locks (each test holds the other side's lock in a transaction of its own,
 * so the order is forced, not hoped for) and side channels past a narrowed key or across workspaces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { admin, createAgent, createKey, createWorkspace, insertLabel, insertProject, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
});
afterAll(() => t.close());

/** Runs `hold` in a transaction of the owner pool and keeps it open until the returned release is called. */
async function holding(hold: (c: pg.PoolClient) => Promise<void>): Promise<{ commit(): Promise<void> }> {
  const c = await t.pools.owner.connect();
  await c.query('begin');
  await hold(c);
  return { async commit() { try { await c.query('commit'); } finally { c.release(); } } };
}
/** Whether a promise is still pending after `ms`. */
const stillPending = async (p: Promise<unknown>, ms = 300) =>
  Promise.race([p.then(() => false, () => false), new Promise<boolean>((r) => setTimeout(() => r(true), ms))]);
const userId = async (email: string) => (await t.pools.owner.query('select id from app_public.users where lower(email) = lower($1)', [email])).rows[0].id as string;

describe('races', () => {
  it('two owners demoting each other at once: the second waits and is refused (no longer an owner: 403); the workspace keeps an OWNER', async () => {
    const w = await createWorkspace(t);
    await admin(t, 'add-member', { workspace: w.key, email: `second-${w.key.toLowerCase()}@example.com`, role: 'OWNER', json: true });
    const first = await userId(w.ownerEmail);
    const second = await userId(`second-${w.key.toLowerCase()}@example.com`);
    const secondKey = await createKey(t, w, { user: `second-${w.key.toLowerCase()}@example.com` });
    // The first owner's demotion of the second, not committed yet.
    const tx = await holding((c) => c.query(`select app_private.set_member_role($1, $2, 'MEMBER')`, [w.id, second]).then(() => undefined));
    const demoteFirst = gql(t, secondKey.token, `mutation($u: UUID!) { membersSetRole(input: {userId: $u, role: MEMBER}) { membership { role } } }`, { u: first });
    expect(await stillPending(demoteFirst)).toBe(true);
    await tx.commit();
    const r = await demoteFirst;
    // Judged on what the first change left: its caller is a MEMBER now (and the first owner the last one).
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'admin_required', status: 403 });
    const owners = await t.pools.owner.query(`select count(*)::int as n from app_public.memberships where workspace_id = $1 and role = 'OWNER'`, [w.id]);
    expect(owners.rows[0].n).toBe(1);
  });

  it("an ADMIN's change to a member being promoted to OWNER waits and is judged on the new role (403 owner_required)", async () => {
    const w = await createWorkspace(t);
    const adminEmail = `admin-${w.key.toLowerCase()}@example.com`;
    const memberEmail = `member-${w.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: w.key, email: adminEmail, role: 'ADMIN', json: true });
    await admin(t, 'add-member', { workspace: w.key, email: memberEmail, role: 'MEMBER', json: true });
    const adminKey = await createKey(t, w, { user: adminEmail });
    const member = await userId(memberEmail);
    // The owner's promotion of the member, not committed yet.
    const tx = await holding((c) => c.query(`select app_private.set_member_role($1, $2, 'OWNER')`, [w.id, member]).then(() => undefined));
    const remove = gql(t, adminKey.token, `mutation($u: UUID!) { membersRemove(input: {userId: $u}) { membership { role } } }`, { u: member });
    expect(await stillPending(remove)).toBe(true);
    await tx.commit();
    expect((await remove).errors?.[0]?.extensions).toMatchObject({ code: 'owner_required', status: 403 });
    expect((await t.pools.owner.query('select role from app_public.memberships where workspace_id = $1 and user_id = $2', [w.id, member])).rows[0].role).toBe('OWNER');
  });

  it('two adds of one new email to one workspace: the second waits and is 409 already_member (it changed the role)', async () => {
    const w = await createWorkspace(t);
    const email = `twice-${w.key.toLowerCase()}@example.com`;
    const tx = await holding(async (c) => {
      await c.query('select app_private.lock_owners($1)', [w.id]);
      await c.query(`select app_private.add_member($1, $2, 'OWNER')`, [w.id, email]);
    });
    const add = gql(t, w.token, `mutation($e: String!) { membersAdd(input: {email: $e, role: MEMBER}) { membership { role } } }`, { e: email });
    expect(await stillPending(add)).toBe(true);
    await tx.commit();
    expect((await add).errors?.[0]?.extensions).toMatchObject({ code: 'already_member', status: 409 });
    expect((await t.pools.owner.query(`select m.role from app_public.memberships m join app_public.users u on u.id = m.user_id
      where m.workspace_id = $1 and u.email = $2`, [w.id, email])).rows[0].role).toBe('OWNER');
  });

  it('two workspaces adding the same new person at once both succeed', async () => {
    const email = `new-person-${Date.now()}@example.com`;
    const tx = await holding((c) => c.query('select app_private.add_member($1, $2, $3)', [other.id, email, 'MEMBER']).then(() => undefined));
    const add = gql(t, ws.token, `mutation($e: String!) { membersAdd(input: {email: $e, role: MEMBER}) { membership { role } } }`, { e: email });
    expect(await stillPending(add)).toBe(true);
    await tx.commit();
    const r = await add;
    expect(r.errors).toBeUndefined();
    expect(r.data.membersAdd.membership.role).toBe('MEMBER');
    const memberships = await t.pools.owner.query('select count(*)::int as n from app_public.memberships m join app_public.users u on u.id = m.user_id where lower(u.email) = $1', [email]);
    expect(memberships.rows[0].n).toBe(2);
  });

  it('a sub-issue created under a parent being deleted waits and is refused (404 parentId)', async () => {
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Parent deleted meanwhile' });
    const tx = await holding((c) => c.query('update app_public.issues set deleted_at = now() where id = $1', [parent.id]).then(() => undefined));
    const create = rest(t, ws.token, 'issues.create', { title: 'Child', parentId: parent.id });
    expect(await stillPending(create)).toBe(true);
    await tx.commit();
    const r = await create;
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'not_found', field: 'parentId' });
    // And moving an existing issue under it: the same.
    const loose = await ok(t, ws.token, 'issues.create', { title: 'Loose' });
    expect((await rest(t, ws.token, 'issues.update', { id: loose.id, parentId: parent.id })).status).toBe(404);
  });

  it('deleting a parent while a sub-issue is being created under it waits, then detaches that sub-issue too', async () => {
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Parent with a child on the way' });
    const childId = crypto.randomUUID();
    const tx = await holding((c) => c.query(`insert into app_public.issues (id, workspace_id, title, status_id, parent_id)
      select $1, $2, 'Child on the way', s.id, $3 from app_public.statuses s where s.workspace_id = $2 and s.is_default`, [childId, ws.id, parent.id]).then(() => undefined));
    const del = rest(t, ws.token, 'issues.delete', { id: parent.id });
    expect(await stillPending(del)).toBe(true);
    await tx.commit();
    expect((await del).status).toBe(200);
    const child = await ok(t, ws.token, 'issues.get', { id: childId });
    expect(child.parentId).toBeNull();
  });
});

describe('crews and labels changed at the same moment', () => {
  it('a goal created for a crew being archived waits, then is refused (409 crew_archived on crewId): no OPEN goal of an archived crew', async () => {
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Archived meanwhile' });
    const tx = await holding((c) => c.query(`update app_public.agent_crews set archived_at = now() where id = $1`, [crew.id]).then(() => undefined));
    const create = rest(t, ws.token, 'goals.create', { title: 'Run by a crew being archived', crewId: crew.id });
    expect(await stillPending(create)).toBe(true);
    await tx.commit();
    const r = await create;
    expect([r.status, r.body]).toEqual([409, expect.objectContaining({ error: 'crew_archived', field: 'crewId' })]);
    const goals = await t.pools.owner.query('select count(*)::int as n from app_public.goals where crew_id = $1', [crew.id]);
    expect(goals.rows[0].n).toBe(0);
    // Archived already: the same answer on the same field, for goals.create and addMember.
    const again = await rest(t, ws.token, 'goals.create', { title: 'Run by an archived crew', crewId: crew.id });
    expect([again.status, again.body]).toEqual([409, expect.objectContaining({ error: 'crew_archived', field: 'crewId' })]);
    const agent = await createAgent(t, ws, 'joins-archived');
    const join = await rest(t, ws.token, 'agentCrews.addMember', { crewId: crew.id, agentId: agent.id, role: 'WORKER' });
    expect([join.status, join.body]).toEqual([409, expect.objectContaining({ error: 'crew_archived', field: 'crewId' })]);
  });

  it('a crew member removed by a concurrent call is a 404 on memberId, not a second ok', async () => {
    const agent = await createAgent(t, ws, 'removed-twice');
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Removed twice' });
    const member = await ok(t, ws.token, 'agentCrews.addMember', { crewId: crew.id, agentId: agent.id, role: 'WORKER' });
    const tx = await holding((c) => c.query('delete from app_public.agent_crew_members where id = $1', [member.id]).then(() => undefined));
    const remove = rest(t, ws.token, 'agentCrews.removeMember', { memberId: member.id });
    expect(await stillPending(remove)).toBe(true);
    await tx.commit();
    const r = await remove;
    expect([r.status, r.body]).toEqual([404, expect.objectContaining({ error: 'not_found', field: 'memberId' })]);
    const setRole = await rest(t, ws.token, 'agentCrews.setMemberRole', { memberId: member.id, role: 'REVIEWER' });
    expect([setRole.status, setRole.body.field]).toEqual([404, 'memberId']);
  });

  it('an issue labelled with a label being deleted waits, then is a 404 naming the label field', async () => {
    const label = await insertLabel(t, ws, 'deleted-meanwhile');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Labelled meanwhile' });
    const tx = await holding((c) => c.query('delete from app_public.labels where id = $1', [label]).then(() => undefined));
    const update = rest(t, ws.token, 'issues.update', { id: issue.id, labelIds: [label] });
    expect(await stillPending(update)).toBe(true);
    await tx.commit();
    const r = await update;
    expect([r.status, r.body]).toEqual([404, expect.objectContaining({ error: 'not_found', field: expect.stringMatching(/^labelIds?$/) })]);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).labelIds).toEqual([]);
  });
});

describe('a unique value taken by a concurrent call', () => {
  it("is a 409 naming the field, as the sequential check's answer does", async () => {
    const agent = await createAgent(t, ws, 'renamed-meanwhile');
    // Another agent takes the profile key in a transaction not committed yet: the update's own check cannot see it.
    const tx = await holding((c) => c.query(`insert into app_public.agents (workspace_id, profile_key, name) values ($1, 'taken-meanwhile', 'x')`, [ws.id]).then(() => undefined));
    const update = gql(t, ws.token, `mutation($a: UUID!) { agentsUpdate(input: {agentId: $a, profileKey: "taken-meanwhile"}) { agent { profileKey } } }`, { a: agent.id });
    expect(await stillPending(update)).toBe(true);
    await tx.commit();
    const e = (await update).errors?.[0];
    expect(e?.extensions).toMatchObject({ code: 'conflict', status: 409, field: 'profileKey' });
    expect(e?.message).toBe('profileKey is already taken');
  });
});

describe('side channels', () => {
  let p1: string;
  let p2: string;
  let narrowed: string;

  beforeAll(async () => {
    p1 = await insertProject(t, ws, 'Seen');
    p2 = await insertProject(t, ws, 'Hidden');
    narrowed = (await createKey(t, ws, { projects: [p1] })).token;
  });

  it("a narrowed key's search ranks only issues it sees: hidden matches neither take the ranked places nor show in the cursor", async () => {
    const older = await ok(t, ws.token, 'issues.create', { title: 'zebraword seen one', projectId: p1 });
    await ok(t, ws.token, 'issues.create', { title: 'zebraword seen two', projectId: p1 });
    // 200 newer hidden matches: the ranked window is the newest 200 matches.
    await t.pools.owner.query(`insert into app_public.issues (workspace_id, title, status_id, project_id)
      select $1, 'zebraword hidden ' || g, s.id, $2 from app_public.statuses s, generate_series(1, 200) g
      where s.workspace_id = $1 and s.is_default`, [ws.id, p2]);
    const page = await ok(t, narrowed, 'issues.list', { query: 'zebraword', limit: 1 });
    expect(page.items).toHaveLength(1);
    const token = Buffer.from(page.nextCursor, 'base64url').toString('utf8');
    // Ranked (rank ≥ 0), as for a key that sees only these two: not pushed out of the window by hidden issues.
    expect(token).toMatch(/^issues-search:0\.\d+:\d+:\d+:[0-9a-f]{8}$/);
    const rest2 = await ok(t, narrowed, 'issues.list', { query: 'zebraword', limit: 5, cursor: page.nextCursor });
    expect(rest2.items.map((i: { id: string }) => i.id)).toContain(older.id);
    expect(rest2.nextCursor).toBeNull();
  });

  it("a link's event reaches a narrowed key only when it sees both issues", async () => {
    const seen = await ok(t, ws.token, 'issues.create', { title: 'Seen end', projectId: p1 });
    const seen2 = await ok(t, ws.token, 'issues.create', { title: 'Seen other end', projectId: p1 });
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden end', projectId: p2 });
    await ok(t, ws.token, 'relations.add', { fromIssueId: hidden.id, toIssueId: seen.id, kind: 'DUPLICATES' });
    await ok(t, ws.token, 'relations.add', { fromIssueId: seen2.id, toIssueId: seen.id, kind: 'BLOCKS' });
    const relationEvents = async (token: string) =>
      (await ok(t, token, 'events.recent', { subjectType: 'issue', subjectId: seen.id })).items
        .filter((e: { payload: { relationId?: string } }) => e.payload.relationId);
    const full = await relationEvents(ws.token);
    expect(full.map((e: { payload: { relatedIssueId: string } }) => e.payload.relatedIssueId).sort()).toEqual([hidden.id, seen2.id].sort());
    const mine = await relationEvents(narrowed);
    expect(mine).toHaveLength(1);
    expect(mine[0].payload).toMatchObject({ relatedIssueId: seen2.id, relationKind: 'BLOCKED_BY', relationChange: 'added' });
    const history = (await ok(t, narrowed, 'issues.history', { id: seen.id })).items.filter((e: { payload: { relationId?: string } }) => e.payload.relationId);
    expect(history).toHaveLength(1);
  });

  it("an issue coming into a project-narrowed key's view from no project does not show it where it was (no before)", async () => {
    const label = await insertLabel(t, ws, 'seen-before-moving');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'From no project', labelIds: [label] });
    await ok(t, ws.token, 'issues.update', { id: issue.id, projectId: p1, labelIds: [] });
    const moved = (await ok(t, narrowed, 'events.recent', { subjectType: 'issue', subjectId: issue.id })).items
      .filter((e: { kind: string; payload: { changes?: string[] } }) => e.kind === 'ISSUE_UPDATED' && e.payload.changes?.includes('projectId'));
    expect(moved).toHaveLength(1);
    expect(moved[0].payload.before).toBeUndefined();
    // An unnarrowed key reads where it was.
    const full = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id })).items
      .find((e: { id: string }) => e.id === moved[0].id);
    expect(full.payload.before).toMatchObject({ projectId: null, labelIds: [label] });
  });

  it('when a person signed up is not in GraphQL', async () => {
    expect((await gqlError(t, ws.token, '{ memberships { nodes { user { createdAt } } } }')).message).toMatch(/createdAt/);
  });

  it('a webhook that is not there is a 404 naming the field, on every webhook tool and mutation', async () => {
    const missing = crypto.randomUUID();
    for (const [tool, input, field] of [
      ['webhooks.get', { id: missing }, 'id'], ['webhooks.update', { id: missing, active: false }, 'id'],
      ['webhooks.delete', { id: missing }, 'id'], ['webhooks.rotateSecret', { id: missing }, 'id'],
      ['webhooks.test', { id: missing }, 'id'], ['webhooks.listDeliveries', { webhookId: missing }, 'webhookId'],
    ] as const) {
      const r = await rest(t, ws.token, tool, input);
      expect([tool, r.status, r.body]).toEqual([tool, 404, expect.objectContaining({ error: 'not_found', field })]);
    }
    const g = await gqlError(t, ws.token, `mutation($w: UUID!) { webhooksUpdate(input: {webhookId: $w, active: false}) { result } }`, { w: missing });
    expect(g).toMatchObject({ code: 'not_found', field: 'webhookId' });
    const d = await gqlError(t, ws.token, `mutation($d: UUID!) { webhookDeliveriesRetry(input: {deliveryId: $d}) { result } }`, { d: missing });
    expect(d).toMatchObject({ code: 'not_found', field: 'deliveryId' });
  });
});
