/** analytics.summary and standup.draft: coarse figures over the issues a key can see. Time is moved in the data, never slept. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let projectId: string;
const issues: Record<string, any> = {};

const statusOf = async (w: Workspace, category: string) =>
  (await ok(t, w.token, 'statuses.list', {})).find((s: any) => s.category === category).id;
const ago = (issueId: string, column: string, hours: number) =>
  t.pools.owner.query(`update app_public.issues set ${column} = now() - make_interval(hours => $2) where id = $1`, [issueId, hours]);

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  projectId = (await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [ws.id, 'Stand P'])).rows[0].id;
  const done = await statusOf(ws, 'DONE');
  const started = await statusOf(ws, 'IN_PROGRESS');
  for (const name of ['old', 'doneToday', 'doneLastWeek', 'startedToday', 'blocker', 'blocked', 'inProject']) {
    issues[name] = await ok(t, ws.token, 'issues.create', { title: `${name} title`, ...(name === 'inProject' ? { projectId } : {}) });
  }
  for (const name of ['old', 'doneToday', 'doneLastWeek', 'startedToday', 'blocker', 'blocked']) await ago(issues[name].id, 'created_at', 24 * 10);
  await ok(t, ws.token, 'issues.transition', { id: issues.doneToday.id, statusId: done });
  await ok(t, ws.token, 'issues.transition', { id: issues.doneLastWeek.id, statusId: done });
  await ago(issues.doneLastWeek.id, 'completed_at', 24 * 6);
  await ok(t, ws.token, 'issues.transition', { id: issues.startedToday.id, statusId: started });
  await ok(t, ws.token, 'relations.add', { fromIssueId: issues.blocker.id, toIssueId: issues.blocked.id, kind: 'BLOCKS' });
  await ok(t, ws.token, 'issues.transition', { id: issues.inProject.id, statusId: done });
});
afterAll(() => t.close());

describe('standup.draft', () => {
  it('groups what moved in the window (done, started, opened, blocked) with counts and chat markdown', async () => {
    const d = await ok(t, ws.token, 'standup.draft', {});
    expect(d).toMatchObject({ sinceHours: 24, workspaceKey: ws.key, counts: { done: 2, started: 1, opened: 1, blocked: 1 } });
    const keys = (g: string) => d.groups[g].map((r: any) => r.key).sort();
    expect(keys('done')).toEqual([issues.doneToday.key, issues.inProject.key].sort());
    expect(keys('started')).toEqual([issues.startedToday.key]);
    expect(keys('opened')).toEqual([issues.inProject.key]);
    expect(keys('blocked')).toEqual([issues.blocked.key]);
    expect(d.groups.done[0]).toEqual({ id: expect.any(String), number: expect.any(Number), key: expect.any(String), title: expect.any(String) });
    expect(d.markdown).toContain(`**Standup — ${ws.key} — last 24 h**`);
    expect(d.markdown).toContain(`*Done (2)*`);
    expect(d.markdown).toContain(`• \`${issues.blocked.key}\` blocked title`);

    const week = await ok(t, ws.token, 'standup.draft', { sinceHours: 168 });
    expect(week.counts.done).toBe(3);
  });

  it('one day in a time zone: a person\'s day, not UTC\'s (a reports probe: "yesterday in Tokyo" could not be asked for)', async () => {
    const w = await createWorkspace(t);
    // Opened at 23:30 UTC on 30 November: 08:30 on 1 December in Tokyo, 15:30 on 30 November in Los Angeles.
    const late = await ok(t, w.token, 'issues.create', { title: 'Late in UTC' });
    await t.pools.owner.query(`update app_public.issues set created_at = '2026-11-30T23:30:00Z' where id = $1`, [late.id]);
    const opened = async (input: object) => (await ok(t, w.token, 'standup.draft', input)).groups.opened.map((r: { id: string }) => r.id);
    expect(await opened({ day: '2026-12-01', timezone: 'Asia/Tokyo' })).toEqual([late.id]);
    expect(await opened({ day: '2026-11-30', timezone: 'Asia/Tokyo' })).toEqual([]);
    expect(await opened({ day: '2026-11-30', timezone: 'America/Los_Angeles' })).toEqual([late.id]);
    expect(await opened({ day: '2026-11-30' })).toEqual([late.id]); // the person's zone: UTC unless they set one
    await t.pools.owner.query(`update app_public.users set timezone = 'Asia/Tokyo' where email = $1`, [w.ownerEmail]);
    const mine = await ok(t, w.token, 'standup.draft', { day: '2026-12-01' });
    expect(mine).toMatchObject({ day: '2026-12-01', timezone: 'Asia/Tokyo', sinceHours: null, since: '2026-11-30T15:00:00+00:00', until: '2026-12-01T15:00:00+00:00' });
    expect(mine.groups.opened.map((r: { id: string }) => r.id)).toEqual([late.id]);
    expect(mine.markdown).toContain(`**Standup — ${w.key} — 2026-12-01 (Asia/Tokyo)**`);
    // day with sinceHours, or a zone without a day, is a 400 naming the field; so is a zone that is none.
    for (const [input, field] of [[{ day: '2026-12-01', sinceHours: 24 }, 'day'], [{ timezone: 'Asia/Tokyo' }, 'timezone'],
      [{ day: '2026-12-01', timezone: 'UTC+14' }, 'timezone'], [{ day: '2026-13-01' }, 'day']] as const) {
      const r = await rest(t, w.token, 'standup.draft', input);
      expect([r.status, Object.keys(r.body.issues ?? {})], JSON.stringify(input)).toEqual([400, [field]]);
    }
  });

  it('sinceHours above 168 (or below 1) is 400; needs READ_ISSUES and READ_ANALYTICS', async () => {
    for (const sinceHours of [169, 0, 1.5]) {
      const r = await rest(t, ws.token, 'standup.draft', { sinceHours });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.issues)).toEqual(['sinceHours']);
    }
    for (const [scopes, missing] of [[['READ_ISSUES'], 'READ_ANALYTICS'], [['READ_ANALYTICS'], 'READ_ISSUES']] as const) {
      const key = await createKey(t, ws, { scopes: [...scopes] });
      const r = await rest(t, key.token, 'standup.draft', {});
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: 'scope_required', scope: missing });
    }
  });

  it('another workspace and a narrowed key see only their own issues', async () => {
    const o = await ok(t, other.token, 'standup.draft', {});
    expect(o.counts).toEqual({ done: 0, started: 0, opened: 0, blocked: 0 });
    expect(o.markdown).toContain('_nothing_');
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_ANALYTICS'], projects: [projectId] });
    const n = await ok(t, key.token, 'standup.draft', {});
    expect(n.counts).toEqual({ done: 1, started: 0, opened: 1, blocked: 0 });
  });
});

describe('analytics.summary', () => {
  it('counts by category and status, throughput per day, open breaches', async () => {
    await t.pools.owner.query(`select app_private.record_event($1, k, 'issue', i, '{}')
      from (values ('ISSUE_SLA_BREACH', $2::uuid), ('ISSUE_STALLED', $3::uuid), ('ISSUE_STALLED', $2::uuid)) v(k, i)`,
    [ws.id, issues.blocked.id, issues.doneToday.id]);
    const s = await ok(t, ws.token, 'analytics.summary', {});
    expect(s.workspaceKey).toBe(ws.key);
    expect(s.counts).toMatchObject({ total: 7, open: 4, byCategory: { DONE: 3, IN_PROGRESS: 1, TODO: 3, BACKLOG: 0, IN_REVIEW: 0, CANCELED: 0 } });
    expect(s.counts.byStatus.find((x: any) => x.category === 'DONE')).toMatchObject({ name: 'Done', count: 3 });
    expect(s.throughput).toMatchObject({ windowDays: 14, total: 3 });
    expect(s.throughput.perDay).toHaveLength(14);
    expect(s.throughput.perDay.at(-1).done).toBe(2);
    expect(s.breaches).toEqual({ open: 1, byKind: { ISSUE_SLA_BREACH: 1, ISSUE_STALLED: 1, AGENT_NOACK: 0 } });
    const short = await ok(t, ws.token, 'analytics.summary', { windowDays: 3 });
    expect(short.throughput).toMatchObject({ windowDays: 3, total: 2 });
  });

  it('bad input 400, READ_ANALYTICS required, other workspace empty, narrowed key narrowed; over JSON-RPC', async () => {
    const r = await rest(t, ws.token, 'analytics.summary', { windowDays: 91 });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.issues)).toEqual(['windowDays']);
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, reader.token, 'analytics.summary', {})).body).toMatchObject({ error: 'scope_required', scope: 'READ_ANALYTICS' });
    expect((await ok(t, other.token, 'analytics.summary', {})).counts.total).toBe(0);
    const key = await createKey(t, ws, { scopes: ['READ_ANALYTICS'], projects: [projectId] });
    expect((await ok(t, key.token, 'analytics.summary', {})).counts).toMatchObject({ total: 1, open: 0 });
    const viaRpc = await rpc(t, ws.token, 'tools/call', { name: 'analytics.summary', arguments: {} });
    expect(viaRpc.body.result.structuredContent.counts.total).toBe(7);
    const standup = await rpc(t, ws.token, 'tools/call', { name: 'standup.draft', arguments: { sinceHours: 48 } });
    expect(standup.body.result.structuredContent.sinceHours).toBe(48);
  });
});
