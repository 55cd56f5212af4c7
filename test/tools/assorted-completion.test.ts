/**
 * The catalog's completion, assorted namespaces: cycles.delete, projects.summary, initiatives.summary, time.get,
 * relations.list, members.get, notification.resetPreference, repohost.unlink, events.kinds,
 * workspace.updateSettings, agents.workload, labels.merge. Each: what it allows, what it refuses (another
 * workspace 404, missing scope 403, narrowed keys), 400s naming the field, and the events it writes.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../src/events/kinds.ts';
import { findTool } from '../../src/tools/catalog.ts';
import {
  admin, allPages, createAgent, createKey, insertLabel, insertProject, ok as okRaw, rest, rpc, startWithWorkspaces, subjectEvents, type TestApp, type Workspace,
} from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

const MINE = new Set(['cycles.delete', 'projects.summary', 'initiatives.summary', 'time.get', 'relations.list', 'members.get',
  'notification.resetPreference', 'repohost.unlink', 'events.kinds', 'workspace.updateSettings', 'agents.workload', 'labels.merge']);
/** ok(), and for the tools of this file: the output matches the schema the tool advertises (MCP clients validate it). */
async function ok<T = any>(app: TestApp, token: string, tool: string, input?: unknown): Promise<T> {
  const out = await okRaw<T>(app, token, tool, input);
  if (MINE.has(tool)) {
    const parsed = findTool(tool)!.output.safeParse(out);
    expect(parsed.success, `${tool}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  }
  return out;
}

let t: TestApp;
let ws: Workspace;
let other: Workspace;
const statusOf: Record<string, string> = {};

beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces());
  for (const s of await ok(t, ws.token, 'statuses.list', {})) statusOf[s.category] ??= s.id;
});
afterAll(() => t.close());

const uuid = () => crypto.randomUUID();
const today = () => new Date().toISOString().slice(0, 10);
const daysFromNow = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
async function expect403(r: { status: number; body: any }, error: string, scope?: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(403);
  expect(r.body.error).toBe(error);
  if (scope) expect(r.body.scope).toBe(scope);
}
const memberId = async (email: string) =>
  (await allPages(t, ws.token, 'members.list', {}, 100)).find((m: any) => m.user.email === email)!.userId as string;

/**
 * Runs `calls` while an owner transaction holds what `hold` locks, waits until `waiters` of the calls wait for a
 * lock (gives up after 3 s: a call that does not wait simply runs on), runs `then` in that transaction, commits,
 * and returns the calls' answers.
 */
async function whileLocked(hold: string, args: unknown[], calls: () => Promise<{ status: number; body: any }>[],
  waiters: number, then?: { sql: string; args: unknown[] }) {
  const client = await t.pools.owner.connect();
  try {
    await client.query('begin');
    await client.query(hold, args);
    const pending = calls();
    for (let i = 0; i < 60; i++) {
      const { rows: [r] } = await t.pools.owner.query(
        `select count(distinct l.pid)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
         where not l.granted and a.datname = current_database()`);
      if (r.n >= waiters) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (then) await client.query(then.sql, then.args);
    await client.query('commit');
    return await Promise.all(pending);
  } finally {
    await client.query('rollback').catch(() => {});
    client.release();
  }
}

describe('members.get', () => {
  it('one member with their role; non-members and other workspaces 404; READ_USERS', async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'get.me@example.com', role: 'ADMIN' });
    const userId = await memberId('get.me@example.com');
    expect(await ok(t, ws.token, 'members.get', { userId })).toMatchObject({
      userId, role: 'ADMIN', user: { id: userId, email: 'get.me@example.com' }, createdAt: expect.any(String),
    });
    const ownerId = await memberId(ws.ownerEmail);
    expect((await ok(t, ws.token, 'members.get', { userId: ownerId })).role).toBe('OWNER');
    // A member of this workspace is nobody in another one.
    expect((await rest(t, other.token, 'members.get', { userId })).status).toBe(404);
    expect((await rest(t, ws.token, 'members.get', { userId: uuid() })).status).toBe(404);
    expect400(await rest(t, ws.token, 'members.get', { userId: 'me' }), 'userId');
    expect400(await rest(t, ws.token, 'members.get', {}), 'userId');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_ISSUES'] })).token, 'members.get', { userId }), 'scope_required', 'READ_USERS');
    // Narrowing restricts issues, not people.
    const narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Members narrowed')] });
    expect((await ok(t, narrowed.token, 'members.get', { userId })).userId).toBe(userId);
    const r = await rpc(t, ws.token, 'tools/call', { name: 'members.get', arguments: { userId } });
    expect(r.body.result.structuredContent.role).toBe('ADMIN');
  });
});

describe('time.get', () => {
  it('one entry as time.list shows it (anyone\'s on visible issues); 404 outside; time tracking off is 403', async () => {
    const inside = await insertProject(t, ws, 'Time inside');
    const outside = await insertProject(t, ws, 'Time outside');
    const a = await ok(t, ws.token, 'issues.create', { title: 'Timed', projectId: inside });
    const b = await ok(t, ws.token, 'issues.create', { title: 'Timed elsewhere', projectId: outside });
    const mine = await ok(t, ws.token, 'time.log', { issueId: a.id, durationMin: 30, note: 'pairing' });
    expect(await ok(t, ws.token, 'time.get', { id: mine.id })).toEqual(mine);
    // An entry records time already spent: a start in the future is a 400 on startedAt, in log and in update.
    expect400(await rest(t, ws.token, 'time.log', { issueId: a.id, durationMin: 30, startedAt: '2030-01-01T10:00:00Z' }), 'startedAt');
    expect400(await rest(t, ws.token, 'time.update', { id: mine.id, startedAt: '2030-01-01T10:00:00Z' }), 'startedAt');
    expect((await ok(t, ws.token, 'time.get', { id: mine.id })).startedAt).toBe(mine.startedAt);
    // Another person's entry is readable, as time.list lists it.
    await admin(t, 'add-member', { workspace: ws.key, email: 'timer@example.com', role: 'MEMBER' });
    const colleague = await createKey(t, ws, { user: 'timer@example.com' });
    const theirs = await ok(t, colleague.token, 'time.log', { issueId: b.id, durationMin: 15 });
    expect(await ok(t, ws.token, 'time.get', { id: theirs.id })).toEqual(theirs);
    expect((await ok(t, ws.token, 'time.list', { issueId: b.id })).items.map((e: any) => e.id)).toEqual([theirs.id]);
    // Narrowed: entries on issues outside the key's projects are 404 (the same as for time.list).
    const narrowed = await createKey(t, ws, { projects: [inside] });
    expect((await ok(t, narrowed.token, 'time.get', { id: mine.id })).id).toBe(mine.id);
    expect((await rest(t, narrowed.token, 'time.get', { id: theirs.id })).status).toBe(404);
    expect((await rest(t, other.token, 'time.get', { id: mine.id })).status).toBe(404);
    // On a deleted issue: 404.
    await ok(t, colleague.token, 'issues.delete', { id: b.id });
    expect((await rest(t, ws.token, 'time.get', { id: theirs.id })).status).toBe(404);
    expect400(await rest(t, ws.token, 'time.get', { id: 'x' }), 'id');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['WRITE_ISSUES'] })).token, 'time.get', { id: mine.id }), 'scope_required', 'READ_ISSUES');
    // workspace.updateSettings turns time tracking off: every time tool is 403 then.
    await ok(t, ws.token, 'workspace.updateSettings', { timeTrackingEnabled: false });
    try {
      await expect403(await rest(t, ws.token, 'time.get', { id: mine.id }), 'time_tracking_disabled');
    } finally {
      await ok(t, ws.token, 'workspace.updateSettings', { timeTrackingEnabled: true });
    }
  });
});

describe('notification.resetPreference', () => {
  it('removes the own setting so the next rule applies; idempotent; other workspaces untouched; WRITE_USERS', async () => {
    await ok(t, ws.token, 'notification.setPreference', { eventKind: 'ISSUE_ASSIGNED', enabled: false });
    await ok(t, ws.token, 'notification.setPreference', { eventKind: 'ISSUE_ASSIGNED', enabled: false, delivery: 'INBOX_AND_DIGEST', scope: 'global' });
    // The same person in another workspace keeps that workspace's setting.
    await admin(t, 'add-member', { workspace: other.key, email: ws.ownerEmail, role: 'MEMBER' });
    const there = await createKey(t, other, { user: ws.ownerEmail });
    await ok(t, there.token, 'notification.setPreference', { eventKind: 'ISSUE_ASSIGNED', enabled: false });

    expect(await ok(t, ws.token, 'notification.resetPreference', { eventKind: 'ISSUE_ASSIGNED' })).toEqual({
      eventKind: 'ISSUE_ASSIGNED', scope: 'workspace', removed: true,
      effective: { eventKind: 'ISSUE_ASSIGNED', enabled: false, delivery: 'INBOX_AND_DIGEST', source: 'global' },
    });
    expect((await ok(t, ws.token, 'notification.resetPreference', { eventKind: 'ISSUE_ASSIGNED' })).removed).toBe(false);
    expect(await ok(t, ws.token, 'notification.resetPreference', { eventKind: 'ISSUE_ASSIGNED', scope: 'global' })).toMatchObject({
      scope: 'global', removed: true, effective: { enabled: true, delivery: 'INBOX_ONLY', source: 'default' },
    });
    const prefs = await ok(t, ws.token, 'notification.getPreferences', { eventKinds: ['ISSUE_ASSIGNED'] });
    expect(prefs.preferences).toEqual([]);
    const elsewhere = await ok(t, there.token, 'notification.getPreferences', { eventKinds: ['ISSUE_ASSIGNED'] });
    expect(elsewhere.effective).toEqual([{ eventKind: 'ISSUE_ASSIGNED', enabled: false, delivery: 'INBOX_ONLY', source: 'workspace' }]);
    // Another user's rows are never touched: the other workspace's owner resets their (absent) setting.
    expect((await ok(t, other.token, 'notification.resetPreference', { eventKind: 'ISSUE_ASSIGNED' })).removed).toBe(false);
    expect((await ok(t, there.token, 'notification.getPreferences', { eventKinds: ['ISSUE_ASSIGNED'] })).preferences).toHaveLength(1);

    expect400(await rest(t, ws.token, 'notification.resetPreference', { eventKind: 'NOPE' }), 'eventKind');
    expect400(await rest(t, ws.token, 'notification.resetPreference', { eventKind: 'ISSUE_ASSIGNED', scope: 'team' }), 'scope');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_USERS'] })).token, 'notification.resetPreference', { eventKind: 'ISSUE_ASSIGNED' }),
      'scope_required', 'WRITE_USERS');
    // Personal settings write no workspace event.
    expect((await ok(t, ws.token, 'events.recent', { limit: 5 })).items.map((e: any) => e.kind)).not.toContain('NOTIFICATION_PREFERENCE');
  });
});

describe('repohost.unlink', () => {
  /** A resource of a mapped repository linked to the issue, as repohost.link leaves it (inserted directly: no host here). */
  async function link(w: Workspace, issueId: string, n: number) {
    const { rows: [r] } = await t.pools.owner.query(
      `insert into app_public.external_resources (workspace_id, repo_full_name, type, number, url, title, state)
       values ($1, 'acme/widgets', 'issue', $2, $3, 'Upstream', 'open') returning id`, [w.id, n, `https://github.com/acme/widgets/issues/${n}`]);
    const { rows: [l] } = await t.pools.owner.query(
      `insert into app_public.external_links (workspace_id, issue_id, resource_id, kind) values ($1, $2, $3, 'IMPLEMENTS') returning id`,
      [w.id, issueId, r.id]);
    return { linkId: l.id as string, resourceId: r.id as string };
  }

  it('removes a link of an issue the key may change, with ISSUE_UPDATED externalResources; the snapshot stays', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Linked' });
    const { linkId, resourceId } = await link(ws, issue.id, 101);
    expect((await ok(t, ws.token, 'repohost.listLinked', { issueId: issue.id })).map((l: any) => l.id)).toEqual([linkId]);
    expect((await rest(t, other.token, 'repohost.unlink', { id: linkId })).status).toBe(404);
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_ISSUES'] })).token, 'repohost.unlink', { id: linkId }), 'scope_required', 'WRITE_ISSUES');
    const narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Repo narrowed')] });
    expect((await rest(t, narrowed.token, 'repohost.unlink', { id: linkId })).status).toBe(404);

    const before = (await subjectEvents(t, ws.token, 'issue', issue.id)).length;
    expect(await ok(t, ws.token, 'repohost.unlink', { id: linkId })).toEqual({
      id: linkId, issueId: issue.id, issueKey: issue.key, resourceId, kind: 'IMPLEMENTS', removed: true,
    });
    expect(await ok(t, ws.token, 'repohost.listLinked', { issueId: issue.id })).toEqual([]);
    const events = await subjectEvents(t, ws.token, 'issue', issue.id);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['externalResources'], externalLinkId: linkId, linkKind: 'IMPLEMENTS' } });
    const { rows } = await t.pools.owner.query('select 1 from app_public.external_resources where id = $1', [resourceId]);
    expect(rows).toHaveLength(1);
    expect((await rest(t, ws.token, 'repohost.unlink', { id: linkId })).status).toBe(404);
    expect400(await rest(t, ws.token, 'repohost.unlink', { id: 'link-1' }), 'id');
  });

  it('a link of a deleted issue is 404; an agent in a REVIEW run on the issue is gated', async () => {
    const gone = await ok(t, ws.token, 'issues.create', { title: 'Linked then deleted' });
    const { linkId } = await link(ws, gone.id, 102);
    await ok(t, ws.token, 'issues.delete', { id: gone.id });
    expect((await rest(t, ws.token, 'repohost.unlink', { id: linkId })).status).toBe(404);

    const reviewed = await ok(t, ws.token, 'issues.create', { title: 'Under review' });
    const { linkId: l2 } = await link(ws, reviewed.id, 103);
    const agent = await createAgent(t, ws, 'unlink-reviewer');
    await ok(t, ws.token, 'issues.assign', { id: reviewed.id, agentId: agent.id, mode: 'REVIEW' });
    const agentKey = await createKey(t, ws, { agent: agent.profileKey });
    await expect403(await rest(t, agentKey.token, 'repohost.unlink', { id: l2 }), 'run_mode_gated');
  });

  it('of two concurrent calls for one link, one removes it and the other is 404 without an event', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Unlinked twice at once' });
    const { linkId } = await link(ws, issue.id, 104);
    const before = (await subjectEvents(t, ws.token, 'issue', issue.id)).length;
    // Both calls have read the link and wait for the issue's row lock (held here as an issue write would).
    const answers = await whileLocked('select 1 from app_public.issues where id = $1 for update', [issue.id],
      () => [rest(t, ws.token, 'repohost.unlink', { id: linkId }), rest(t, ws.token, 'repohost.unlink', { id: linkId })], 2);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(answers.find((a) => a.status === 200)!.body).toMatchObject({ id: linkId, removed: true });
    const events = await subjectEvents(t, ws.token, 'issue', issue.id);
    expect(events).toHaveLength(before + 1);
  });
});

describe('relations.list', () => {
  it('the workspace\'s relations as stored, oldest first, paged; kind and issueId filters; only visible, live issues', async () => {
    const inside = await insertProject(t, ws, 'Rel inside');
    const A = await ok(t, ws.token, 'issues.create', { title: 'A', projectId: inside });
    const B = await ok(t, ws.token, 'issues.create', { title: 'B', projectId: inside });
    const C = await ok(t, ws.token, 'issues.create', { title: 'C' });
    const D = await ok(t, ws.token, 'issues.create', { title: 'D', projectId: inside });
    const ab = await ok(t, ws.token, 'relations.add', { fromIssueId: A.id, toIssueId: B.id, kind: 'BLOCKS' });
    // BLOCKED_BY is stored the other way round: C BLOCKS B.
    const bc = await ok(t, ws.token, 'relations.add', { fromIssueId: B.key, toIssueId: C.key, kind: 'BLOCKED_BY' });
    const ac = await ok(t, ws.token, 'relations.add', { fromIssueId: A.id, toIssueId: C.id, kind: 'RELATES_TO' });
    const ad = await ok(t, ws.token, 'relations.add', { fromIssueId: A.id, toIssueId: D.id, kind: 'DUPLICATES' });

    const all = await ok(t, ws.token, 'relations.list', {});
    expect(all.items.map((r: any) => [r.id, r.fromIssueId, r.kind, r.toIssueId])).toEqual([
      [ab.id, A.id, 'BLOCKS', B.id], [bc.id, C.id, 'BLOCKS', B.id], [ac.id, A.id, 'RELATES_TO', C.id], [ad.id, A.id, 'DUPLICATES', D.id],
    ]);
    expect(all.items[0]).toMatchObject({ fromIssue: { id: A.id, key: A.key, title: 'A', status: { category: 'TODO' } }, toIssue: { key: B.key }, createdAt: expect.any(String) });
    expect(all.nextCursor).toBeNull();
    expect((await allPages(t, ws.token, 'relations.list', {}, 1)).map((r: any) => r.id)).toEqual([ab.id, bc.id, ac.id, ad.id]);
    expect((await ok(t, ws.token, 'relations.list', { kind: 'BLOCKS' })).items.map((r: any) => r.id)).toEqual([ab.id, bc.id]);
    // A block is stored one way: BLOCKED_BY asks for the same stored links (it was a 400).
    expect((await ok(t, ws.token, 'relations.list', { kind: 'BLOCKED_BY' })).items.map((r: any) => r.id)).toEqual([ab.id, bc.id]);
    expect((await ok(t, ws.token, 'relations.list', { issueId: C.key })).items.map((r: any) => r.id)).toEqual([bc.id, ac.id]);
    expect((await ok(t, ws.token, 'relations.list', { issueId: B.id, kind: 'RELATES_TO' })).items).toEqual([]);

    // Narrowed to the project of A, B and D: links to C are left out, and C itself is 404.
    const narrowed = await createKey(t, ws, { projects: [inside] });
    expect((await ok(t, narrowed.token, 'relations.list', {})).items.map((r: any) => r.id)).toEqual([ab.id, ad.id]);
    expect((await rest(t, narrowed.token, 'relations.list', { issueId: C.id })).status).toBe(404);
    // A deleted issue takes its links out of the list.
    await ok(t, ws.token, 'issues.delete', { id: D.id });
    expect((await ok(t, ws.token, 'relations.list', {})).items.map((r: any) => r.id)).toEqual([ab.id, bc.id, ac.id]);
    // Another workspace sees none of them.
    expect((await ok(t, other.token, 'relations.list', {})).items).toEqual([]);
    expect((await rest(t, other.token, 'relations.list', { issueId: A.id })).status).toBe(404);

    expect400(await rest(t, ws.token, 'relations.list', { kind: 'BLOCKED' }), 'kind');
    expect400(await rest(t, ws.token, 'relations.list', { cursor: 'garbage' }), 'cursor');
    expect400(await rest(t, ws.token, 'relations.list', { limit: 201 }), 'limit');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['WRITE_ISSUES'] })).token, 'relations.list', {}), 'scope_required', 'READ_ISSUES');
  });
});

describe('projects.summary and initiatives.summary', () => {
  it('progress of a project: counts by category and priority, % complete, overdue, estimates; narrowed keys count what they see', async () => {
    const label = await ok(t, ws.token, 'labels.create', { name: 'summary-visible' });
    const p = await ok(t, ws.token, 'projects.create', { name: 'Progress' });
    const mk = (title: string, extra: object = {}) => ok(t, ws.token, 'issues.create', { title, projectId: p.id, ...extra });
    await mk('backlog', { statusId: statusOf.BACKLOG, priority: 'LOW' });
    await mk('todo overdue', { statusId: statusOf.TODO, priority: 'URGENT', dueDate: daysFromNow(-3), estimate: 3, labelIds: [label.id] });
    await mk('todo due later', { statusId: statusOf.TODO, priority: 'URGENT', dueDate: daysFromNow(3) });
    await mk('doing', { statusId: statusOf.IN_PROGRESS, priority: 'HIGH', estimate: 2 });
    await mk('done', { statusId: statusOf.DONE, priority: 'HIGH', dueDate: daysFromNow(-10), estimate: 5, labelIds: [label.id] });
    await mk('done too', { statusId: statusOf.DONE });
    await mk('canceled', { statusId: statusOf.CANCELED, estimate: 8 });
    const deleted = await mk('deleted');
    await ok(t, ws.token, 'issues.delete', { id: deleted.id });
    await ok(t, ws.token, 'issues.create', { title: 'not in the project' });

    const s = await ok(t, ws.token, 'projects.summary', { id: p.id });
    expect(s).toMatchObject({
      project: { id: p.id, name: 'Progress' },
      total: 7, open: 4, done: 2, canceled: 1, percentComplete: 33, overdue: 1, unassignedOpen: 4,
      byCategory: { BACKLOG: 1, TODO: 2, IN_PROGRESS: 1, IN_REVIEW: 0, DONE: 2, CANCELED: 1 },
      openByPriority: { URGENT: 2, HIGH: 1, MEDIUM: 0, LOW: 1, NONE: 0 },
      estimate: { total: 10, done: 5 },
      lastCompletedAt: expect.any(String), generatedAt: expect.any(String),
    });
    // Archived projects still have a summary; an empty one has no percentage.
    const empty = await ok(t, ws.token, 'projects.create', { name: 'Empty' });
    await ok(t, ws.token, 'projects.archive', { id: empty.id });
    expect(await ok(t, ws.token, 'projects.summary', { id: empty.id })).toMatchObject({ total: 0, percentComplete: null, lastCompletedAt: null, project: { archived: true } });

    // A label-narrowed key sees the project's issues carrying its label only.
    const byLabel = await createKey(t, ws, { labels: [label.id] });
    expect(await ok(t, byLabel.token, 'projects.summary', { id: p.id })).toMatchObject({ total: 2, open: 1, done: 1, overdue: 1, percentComplete: 50 });
    const byProject = await createKey(t, ws, { projects: [empty.id] });
    expect((await rest(t, byProject.token, 'projects.summary', { id: p.id })).status).toBe(404);
    expect((await rest(t, other.token, 'projects.summary', { id: p.id })).status).toBe(404);
    expect400(await rest(t, ws.token, 'projects.summary', { id: 'p' }), 'id');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_PROJECTS'] })).token, 'projects.summary', { id: p.id }), 'scope_required', 'READ_ISSUES');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_ISSUES'] })).token, 'projects.summary', { id: p.id }), 'scope_required', 'READ_PROJECTS');
  });

  it('initiatives.summary rolls the projects up, archived ones included; a row per project', async () => {
    const init = await ok(t, ws.token, 'initiatives.create', { name: 'Rollup' });
    const p1 = await ok(t, ws.token, 'projects.create', { name: 'Rollup one', initiativeId: init.id });
    const p2 = await ok(t, ws.token, 'projects.create', { name: 'Rollup two', initiativeId: init.id });
    await ok(t, ws.token, 'projects.create', { name: 'Unlinked' });
    for (const [projectId, statusId] of [[p1.id, statusOf.DONE], [p1.id, statusOf.TODO], [p2.id, statusOf.DONE], [p2.id, statusOf.DONE]]) {
      await ok(t, ws.token, 'issues.create', { title: 'rollup issue', projectId, statusId });
    }
    await ok(t, ws.token, 'projects.archive', { id: p2.id });
    const s = await ok(t, ws.token, 'initiatives.summary', { id: init.id });
    expect(s).toMatchObject({ initiative: { id: init.id, name: 'Rollup' }, total: 4, open: 1, done: 3, percentComplete: 75, byCategory: { DONE: 3, TODO: 1 } });
    expect(s.projects).toEqual([
      { id: p1.id, name: 'Rollup one', archived: false, total: 2, open: 1, done: 1, canceled: 0, percentComplete: 50, overdue: 0 },
      { id: p2.id, name: 'Rollup two', archived: true, total: 2, open: 0, done: 2, canceled: 0, percentComplete: 100, overdue: 0 },
    ]);
    // A project-narrowed key counts its projects only; an initiative-narrowed key does not see other initiatives.
    const byProject = await createKey(t, ws, { projects: [p1.id] });
    const narrowed = await ok(t, byProject.token, 'initiatives.summary', { id: init.id });
    expect(narrowed).toMatchObject({ total: 2, done: 1 });
    expect(narrowed.projects.map((x: any) => x.id)).toEqual([p1.id]);
    const elsewhere = await ok(t, ws.token, 'initiatives.create', { name: 'Elsewhere' });
    const byInitiative = await createKey(t, ws, { initiatives: [elsewhere.id] });
    expect((await rest(t, byInitiative.token, 'initiatives.summary', { id: init.id })).status).toBe(404);
    expect(await ok(t, byInitiative.token, 'initiatives.summary', { id: elsewhere.id })).toMatchObject({ total: 0, projects: [], percentComplete: null });
    expect((await rest(t, other.token, 'initiatives.summary', { id: init.id })).status).toBe(404);
    expect400(await rest(t, ws.token, 'initiatives.summary', { id: 42 }), 'id');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_ISSUES'] })).token, 'initiatives.summary', { id: init.id }), 'scope_required', 'READ_PROJECTS');
    const r = await rpc(t, ws.token, 'tools/call', { name: 'initiatives.summary', arguments: { id: init.id } });
    expect(r.body.result.structuredContent.total).toBe(4);
  });
});

describe('labels.merge', () => {
  it('issues carrying from get into, from is deleted; one ISSUE_UPDATED labelIds per issue that carried it', async () => {
    const from = await ok(t, ws.token, 'labels.create', { name: 'bug-old' });
    const into = await ok(t, ws.token, 'labels.create', { name: 'bug' });
    const x = await ok(t, ws.token, 'issues.create', { title: 'X', labelIds: [from.id] });
    const y = await ok(t, ws.token, 'issues.create', { title: 'Y', labelIds: [into.id, from.id] });
    const z = await ok(t, ws.token, 'issues.create', { title: 'Z', labelIds: [into.id] });

    expect((await rest(t, other.token, 'labels.merge', { fromId: from.id, intoId: into.id })).status).toBe(404);
    const foreign = await ok(t, other.token, 'labels.create', { name: 'foreign' });
    expect((await rest(t, ws.token, 'labels.merge', { fromId: from.id, intoId: foreign.id })).status).toBe(404);
    const narrowed = await createKey(t, ws, { labels: [from.id] });
    await expect403(await rest(t, narrowed.token, 'labels.merge', { fromId: from.id, intoId: into.id }), 'narrowing');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_ISSUES'] })).token, 'labels.merge', { fromId: from.id, intoId: into.id }), 'scope_required', 'WRITE_ISSUES');
    expect400(await rest(t, ws.token, 'labels.merge', { fromId: from.id, intoId: from.id }), 'intoId');
    expect400(await rest(t, ws.token, 'labels.merge', { fromId: 'bug', intoId: into.id }), 'fromId');
    expect400(await rest(t, ws.token, 'labels.merge', { fromId: from.id }), 'intoId');

    const merged = await ok(t, ws.token, 'labels.merge', { fromId: from.id, intoId: into.id });
    expect(merged).toMatchObject({ ok: true, fromId: from.id, fromName: 'bug-old', into: { id: into.id, name: 'bug' }, issueCount: 2, addedToIssues: 1 });
    expect((await ok(t, ws.token, 'issues.get', { id: x.id })).labelIds).toEqual([into.id]);
    expect((await ok(t, ws.token, 'issues.get', { id: y.id })).labelIds).toEqual([into.id]);
    expect((await rest(t, ws.token, 'labels.get', { id: from.id })).status).toBe(404);
    for (const issue of [x, y]) {
      const kinds = (await subjectEvents(t, ws.token, 'issue', issue.id)).map((e) => [e.kind, e.payload.changes]);
      expect(kinds).toEqual([['ISSUE_CREATED', undefined], ['ISSUE_UPDATED', ['labelIds']]]);
    }
    expect((await subjectEvents(t, ws.token, 'issue', z.id)).map((e) => e.kind)).toEqual(['ISSUE_CREATED']);
    // Done once: from is gone.
    expect((await rest(t, ws.token, 'labels.merge', { fromId: from.id, intoId: into.id })).status).toBe(404);
  });
});

describe('a label dispatch rules route by', () => {
  it('is deleted or merged away only by a workspace admin\'s key (its rules go with it); a MEMBER\'s key gets 403 and nothing changes', async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'rules-member@example.com', role: 'MEMBER', json: true });
    const member = await createKey(t, ws, { user: 'rules-member@example.com' });
    await createAgent(t, ws, 'routed');
    const routed = await ok(t, ws.token, 'labels.create', { name: 'routed' });
    const plain = await ok(t, ws.token, 'labels.create', { name: 'plain' });
    const other2 = await ok(t, ws.token, 'labels.create', { name: 'other-routed' });
    await admin(t, 'create-dispatch-rule', { workspace: ws.key, target: 'routed', label: routed.id, json: true });
    const rules = async () => (await t.pools.owner.query('select count(*)::int as n from app_public.dispatch_rules where label_id = $1', [routed.id])).rows[0].n;
    for (const [tool, args] of [['labels.delete', { id: routed.id }], ['labels.merge', { fromId: routed.id, intoId: other2.id }]] as const) {
      const r = await rest(t, member.token, tool, args);
      expect([r.status, r.body.error], tool).toEqual([403, 'admin_required']);
      expect(r.body.message).toContain('routed');
    }
    // A narrowed key sees no rules (they name what it may not see); the label is not free of them for it either.
    const initiative = await ok(t, ws.token, 'initiatives.create', { name: 'Rules initiative' });
    const narrowedMember = await createKey(t, ws, { user: 'rules-member@example.com', initiatives: [initiative.id] });
    const narrowedDelete = await rest(t, narrowedMember.token, 'labels.delete', { id: routed.id });
    expect([narrowedDelete.status, narrowedDelete.body.error]).toEqual([403, 'admin_required']);
    expect(await rules()).toBe(1);
    expect((await ok(t, ws.token, 'labels.get', { id: routed.id })).id).toBe(routed.id);
    // A label no rule uses is the member's to delete, as before.
    expect((await ok(t, member.token, 'labels.delete', { id: plain.id })).ok).toBe(true);
    // The owner may; the rule goes with the label.
    expect((await ok(t, ws.token, 'labels.delete', { id: routed.id })).ok).toBe(true);
    expect(await rules()).toBe(0);
  });
});

describe('cycles.delete', () => {
  it('a PLANNED cycle goes; its issues lose the cycle (ISSUE_UPDATED cycleId), CYCLE_DELETED, pins on it go', async () => {
    const cycle = await ok(t, ws.token, 'cycles.create', { name: 'Never ran', startsOn: daysFromNow(400), endsOn: daysFromNow(413) });
    const a = await ok(t, ws.token, 'issues.create', { title: 'Planned A' });
    const b = await ok(t, ws.token, 'issues.create', { title: 'Planned B' });
    await ok(t, ws.token, 'cycles.plan', { cycleId: cycle.id, add: [a.id, b.id] });
    await ok(t, ws.token, 'issues.delete', { id: b.id });
    const ownerId = await memberId(ws.ownerEmail);
    await t.pools.owner.query(`insert into app_public.pins (workspace_id, user_id, target_type, target_id) values ($1, $2, 'CYCLE', $3)`, [ws.id, ownerId, cycle.id]);

    expect((await rest(t, other.token, 'cycles.delete', { id: cycle.id })).status).toBe(404);
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_ISSUES'] })).token, 'cycles.delete', { id: cycle.id }), 'scope_required', 'WRITE_ISSUES');
    const narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Cycle narrowed')] });
    await expect403(await rest(t, narrowed.token, 'cycles.delete', { id: cycle.id }), 'narrowing');
    expect400(await rest(t, ws.token, 'cycles.delete', { id: 'sprint-1' }), 'id');

    const before = (await subjectEvents(t, ws.token, 'issue', a.id)).length;
    expect(await ok(t, ws.token, 'cycles.delete', { id: cycle.id })).toEqual({
      ok: true, id: cycle.id, number: cycle.number, name: 'Never ran', status: 'PLANNED', detachedIssueIds: [a.id],
    });
    expect((await ok(t, ws.token, 'issues.get', { id: a.id })).cycleId).toBeNull();
    const events = await subjectEvents(t, ws.token, 'issue', a.id);
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['cycleId'] } });
    const cycleEvents = await subjectEvents(t, ws.token, 'cycle', cycle.id);
    expect(cycleEvents.map((e) => e.kind)).toEqual(['CYCLE_CREATED', 'CYCLE_DELETED']);
    expect(cycleEvents[1]!.payload).toMatchObject({ cycleId: cycle.id, name: 'Never ran', status: 'PLANNED' });
    expect((await rest(t, ws.token, 'cycles.get', { id: cycle.id })).status).toBe(404);
    const { rows } = await t.pools.owner.query(`select 1 from app_public.pins where target_id = $1`, [cycle.id]);
    expect(rows).toEqual([]);
    // The deleted issue lost the cycle too (nothing points at the deleted cycle).
    const { rows: [deletedIssue] } = await t.pools.owner.query('select cycle_id from app_public.issues where id = $1', [b.id]);
    expect(deletedIssue.cycle_id).toBeNull();
    expect((await rest(t, ws.token, 'cycles.delete', { id: cycle.id })).status).toBe(404);
  });

  it('a running or ended sprint with issues is history (409 cycle_started); an empty one goes; attachments keep a cycle', async () => {
    const running = await ok(t, ws.token, 'cycles.create', { name: 'Running', startsOn: today(), endsOn: daysFromNow(6) });
    expect(running.status).toBe('ACTIVE');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'In the running sprint' });
    await ok(t, ws.token, 'cycles.addIssue', { cycleId: running.id, issueId: issue.id });
    const refused = await rest(t, ws.token, 'cycles.delete', { id: running.id });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('cycle_started');
    await ok(t, ws.token, 'cycles.removeIssue', { cycleId: running.id, issueId: issue.id });
    // A sprint that never held an issue is not history.
    expect((await ok(t, ws.token, 'cycles.delete', { id: running.id })).status).toBe('ACTIVE');

    const ended = await ok(t, ws.token, 'cycles.create', { name: 'Ended', startsOn: '2020-01-01', endsOn: '2020-01-14' });
    expect(ended.status).toBe('COMPLETED');
    await t.pools.owner.query('update app_public.issues set cycle_id = $1 where id = $2', [ended.id, issue.id]);
    expect((await rest(t, ws.token, 'cycles.delete', { id: ended.id })).body.error).toBe('cycle_started');

    const withFile = await ok(t, ws.token, 'cycles.create', { name: 'With a link', startsOn: daysFromNow(500), endsOn: daysFromNow(510) });
    const att = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'cycle', targetId: withFile.id, externalUrl: 'https://example.com/plan', linkTitle: 'Plan' });
    const kept = await rest(t, ws.token, 'cycles.delete', { id: withFile.id });
    expect(kept.status).toBe(409);
    expect(kept.body.error).toBe('cycle_has_attachments');
    await ok(t, ws.token, 'attachments.delete', { id: att.id });
    expect((await ok(t, ws.token, 'cycles.delete', { id: withFile.id })).ok).toBe(true);
  });

  it('attaching to a cycle waits for a delete under way and is then 404: no attachment is left on a deleted cycle', async () => {
    const doomed = await ok(t, ws.token, 'cycles.create', { name: 'Deleted while attached to', startsOn: daysFromNow(600), endsOn: daysFromNow(610) });
    // cycles.delete holds the cycle's row lock from its attachment check to the delete.
    const [answer] = await whileLocked('select 1 from app_public.cycles where id = $1 for update', [doomed.id],
      () => [rest(t, ws.token, 'attachments.attachLink', { targetType: 'cycle', targetId: doomed.id, externalUrl: 'https://example.com/late' })],
      1, { sql: 'delete from app_public.cycles where id = $1', args: [doomed.id] });
    expect(answer!.status, JSON.stringify(answer!.body)).toBe(404);
    const { rows } = await t.pools.owner.query('select 1 from app_public.attachments where target_id = $1', [doomed.id]);
    expect(rows).toEqual([]);
  });
});

describe('workspace.updateSettings', () => {
  it('changes the settings given (ADMIN scope, OWNER/ADMIN, no narrowing); other workspaces untouched', async () => {
    const { caller, ...before } = await ok(t, ws.token, 'workspace.get', {});
    // Who the key acts as: the ids other tools filter by (a person's key could learn its user id only from a write).
    expect(caller).toEqual({ keyId: expect.any(String), kind: 'PERSONAL', pluginId: null, userId: expect.any(String), agentId: null, role: 'OWNER',
      scopes: ['FULL'], projectIds: [], labelIds: [], initiativeIds: [] });
    const project = await ok(t, ws.token, 'projects.create', { name: 'Caller narrowing' });
    const narrowedCaller = await createKey(t, ws, { projects: [project.id], scopes: ['READ_ISSUES'] });
    expect((await ok(t, narrowedCaller.token, 'workspace.get', {})).caller).toMatchObject({ projectIds: [project.id], scopes: ['READ_ISSUES'], role: 'OWNER' });
    const updated = await ok(t, ws.token, 'workspace.updateSettings', { cycleLengthDays: 10, autoDispatchMode: 'MANUAL_ONLY', requiredAckSeconds: 300, name: 'Renamed' });
    expect(updated).toEqual({ ...before, cycleLengthDays: 10, autoDispatchMode: 'MANUAL_ONLY', requiredAckSeconds: 300, name: 'Renamed' });
    expect(await ok(t, ws.token, 'workspace.get', {})).toEqual({ ...updated, caller });
    expect(await ok(t, ws.token, 'workspace.updateSettings', {})).toEqual(updated);
    // One WORKSPACE_UPDATED naming what changed; a call that changes nothing writes none.
    const events = (await subjectEvents(t, ws.token, 'workspace', before.id)).filter((e: any) => e.kind === 'WORKSPACE_UPDATED');
    // (Earlier tests of this file turned time tracking off and on again.)
    expect(events.map((e: any) => e.payload.changes)).toEqual([['timeTrackingEnabled'], ['timeTrackingEnabled'], ['autoDispatchMode', 'cycleLengthDays', 'name', 'requiredAckSeconds']]);
    expect((await ok(t, other.token, 'workspace.get', {})).cycleLengthDays).toBe(14);
    // The other workspace's admin changes only their own.
    await ok(t, other.token, 'workspace.updateSettings', { cycleLengthDays: 21 });
    expect((await ok(t, ws.token, 'workspace.get', {})).cycleLengthDays).toBe(10);

    expect400(await rest(t, ws.token, 'workspace.updateSettings', { cycleLengthDays: 0 }), 'cycleLengthDays');
    expect400(await rest(t, ws.token, 'workspace.updateSettings', { autoDispatchMode: 'RANDOM' }), 'autoDispatchMode');
    expect400(await rest(t, ws.token, 'workspace.updateSettings', { name: '  ' }), 'name');
    expect400(await rest(t, ws.token, 'workspace.updateSettings', { agentRunStaleMinutes: 0 }), 'agentRunStaleMinutes');
    expect400(await rest(t, ws.token, 'workspace.updateSettings', { key: 'NEW' }), 'key');
    await expect403(await rest(t, (await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] })).token, 'workspace.updateSettings', { cycleLengthDays: 7 }),
      'scope_required', 'ADMIN');
    await admin(t, 'add-member', { workspace: ws.key, email: 'plain.member@example.com', role: 'MEMBER' });
    const member = await createKey(t, ws, { user: 'plain.member@example.com', scopes: ['ADMIN'] });
    await expect403(await rest(t, member.token, 'workspace.updateSettings', { cycleLengthDays: 7 }), 'admin_required');
    const narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Settings narrowed')] });
    await expect403(await rest(t, narrowed.token, 'workspace.updateSettings', { cycleLengthDays: 7 }), 'narrowing');
    expect((await ok(t, ws.token, 'workspace.get', {})).cycleLengthDays).toBe(10);
    await ok(t, ws.token, 'workspace.updateSettings', { cycleLengthDays: 14, autoDispatchMode: 'ROUND_ROBIN', requiredAckSeconds: 0 });
  });
});

describe('agents.workload', () => {
  it('per live agent: load, runs by status, current run; the pool and the next issue out; what the key sees', async () => {
    const w = await ok(t, other.token, 'workspace.get', {});
    expect(w.autoDispatch).toBe(false); // the pool stays put
    const busy = await createAgent(t, other, 'wl-busy', { 'max-concurrent': '2' });
    const idle = await createAgent(t, other, 'wl-idle', { 'max-concurrent': '0' });
    const gone = await createAgent(t, other, 'wl-archived');
    await admin(t, 'archive-agent', { workspace: other.key, agent: gone.profileKey });
    const projA = await insertProject(t, other, 'Workload A');
    const projB = await insertProject(t, other, 'Workload B');
    const first = await ok(t, other.token, 'issues.create', { title: 'Being researched', projectId: projA });
    const second = await ok(t, other.token, 'issues.create', { title: 'Being built', projectId: projB });
    await ok(t, other.token, 'issues.assign', { id: first.id, agentId: busy.id, mode: 'RESEARCH' });
    await ok(t, other.token, 'issues.assign', { id: second.id, agentId: busy.id });
    const busyKey = await createKey(t, other, { agent: busy.profileKey });
    await ok(t, busyKey.token, 'runs.setWaiting', { runId: (await ok(t, other.token, 'issues.get', { id: first.id, include: { currentRun: true } })).currentRun.id });
    const low = await ok(t, other.token, 'issues.create', { title: 'Queued low', priority: 'LOW', projectId: projB });
    const urgent = await ok(t, other.token, 'issues.create', { title: 'Queued urgent', priority: 'URGENT', projectId: projA });
    await ok(t, other.token, 'issues.queue', { id: low.id });
    await ok(t, other.token, 'issues.queue', { id: urgent.id });

    const wl = await ok(t, other.token, 'agents.workload', {});
    expect(wl).toMatchObject({ autoDispatch: false, autoDispatchMode: expect.any(String), generatedAt: expect.any(String) });
    expect(wl.pool).toEqual({ queued: 2, byPriority: { URGENT: 1, HIGH: 0, MEDIUM: 0, LOW: 1, NONE: 0 },
      next: { id: urgent.id, key: urgent.key, number: urgent.number, title: 'Queued urgent', priority: 'URGENT' } });
    expect(wl.agents.map((a: any) => a.profileKey)).toEqual(['wl-busy', 'wl-idle']);
    expect(wl.agents[0]).toMatchObject({
      id: busy.id, status: 'OFFLINE', maxConcurrent: 2, openAssigned: 2, freeSlots: 0, runs: { active: 1, waiting: 1, stalled: 0 },
      currentRun: { status: 'ACTIVE', engagementMode: 'EXECUTE', currentStep: null, issue: { id: second.id, key: second.key, title: 'Being built' } },
    });
    expect(wl.agents[1]).toMatchObject({ id: idle.id, maxConcurrent: 0, openAssigned: 0, freeSlots: null, runs: { active: 0, waiting: 0, stalled: 0 }, currentRun: null });

    // Narrowed to project A: the issues, runs and pool entries of B are not counted.
    const narrowed = await createKey(t, other, { projects: [projA] });
    const seen = await ok(t, narrowed.token, 'agents.workload', {});
    expect(seen.pool).toMatchObject({ queued: 1, next: { id: urgent.id } });
    expect(seen.agents[0]).toMatchObject({ openAssigned: 1, runs: { active: 0, waiting: 1 }, currentRun: { status: 'WAITING', engagementMode: 'RESEARCH', issue: { id: first.id } } });
    // Its load misses what it cannot see, so it is told no free slot count (1 would overstate: the agent is full).
    expect(seen.agents[0].freeSlots).toBeNull();
    expect(seen.agents[1]).toMatchObject({ maxConcurrent: 0, freeSlots: null });
    const labelNarrowed = await createKey(t, other, { labels: [await insertLabel(t, other, 'wl-label')] });
    expect((await ok(t, labelNarrowed.token, 'agents.workload', {})).agents[0]).toMatchObject({ openAssigned: 0, freeSlots: null });
    // Initiative narrowing does not hide issues: the load is whole.
    const initiativeNarrowed = await createKey(t, other, { initiatives: [(await ok(t, other.token, 'initiatives.create', { name: 'WL initiative' })).id] });
    expect((await ok(t, initiativeNarrowed.token, 'agents.workload', {})).agents[0]).toMatchObject({ openAssigned: 2, freeSlots: 0 });
    // Nothing of another workspace.
    expect((await ok(t, ws.token, 'agents.workload', {})).agents.map((a: any) => a.id)).not.toContain(busy.id);
    expect400(await rest(t, other.token, 'agents.workload', { agentId: busy.id }), 'agentId');
    await expect403(await rest(t, (await createKey(t, other, { scopes: ['READ_ISSUES'] })).token, 'agents.workload', {}), 'scope_required', 'READ_USERS');
    await expect403(await rest(t, (await createKey(t, other, { scopes: ['READ_USERS'] })).token, 'agents.workload', {}), 'scope_required', 'READ_ISSUES');
  });
});

describe('events.kinds', () => {
  it('every event kind with its subject types, meaning and origin; any key; over JSON-RPC too', async () => {
    const kinds = await ok(t, ws.token, 'events.kinds', {});
    expect(kinds.map((k: any) => k.kind)).toEqual([...EVENT_KINDS]);
    for (const k of kinds) {
      expect(k.subjectTypes.length, k.kind).toBeGreaterThan(0);
      expect(k.meaning.length, k.kind).toBeGreaterThan(10);
    }
    expect(kinds.find((k: any) => k.kind === 'CYCLE_DELETED')).toEqual({ kind: 'CYCLE_DELETED', subjectTypes: ['cycle'], meaning: expect.any(String), origin: 'service' });
    expect(kinds.find((k: any) => k.kind === 'AGENT_ASSIGNED')).toMatchObject({ subjectTypes: ['issue'], origin: 'spec' });
    // The subject types are those events carry.
    const { rows } = await t.pools.owner.query('select distinct kind, subject_type from app_public.activity_events');
    for (const r of rows) expect(kinds.find((k: any) => k.kind === r.kind)?.subjectTypes, r.kind).toContain(r.subject_type);
    // events.recent takes exactly those subject types: a typo is a 400 naming the field, not an empty page.
    for (const type of new Set(kinds.flatMap((k: any) => k.subjectTypes as string[]))) await ok(t, ws.token, 'events.recent', { subjectType: type, limit: 1 });
    for (const type of ['bogus', 'Issue', '']) expect400(await rest(t, ws.token, 'events.recent', { subjectType: type }), 'subjectType');
    // No scope needed: it is the vocabulary, not the data.
    const bare = await createKey(t, ws, { scopes: ['READ_USERS'] });
    expect(await ok(t, bare.token, 'events.kinds', {})).toEqual(kinds);
    expect400(await rest(t, ws.token, 'events.kinds', { kind: 'ISSUE_CREATED' }), 'kind');
    const r = await rpc(t, ws.token, 'tools/call', { name: 'events.kinds', arguments: {} });
    expect(r.body.result.structuredContent.items).toEqual(kinds);
  });
});
