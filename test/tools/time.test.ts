import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/catalog.ts';
import { admin, allPages, createKey, createWorkspace, ok, rest, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces()));
afterAll(() => t.close());

/** Moves the caller's running timer back in time, as if it had been running for `minutes`. */
async function backdateRunning(w: Workspace, minutes: number) {
  await t.pools.owner.query(
    `update app_public.time_entries set started_at = now() - make_interval(mins => $2) where workspace_id = $1 and duration_min is null`,
    [w.id, minutes]);
}

describe('timers', () => {
  it('start, running, stop: one timer per user; start stops the running one first; no events', async () => {
    const w = await createWorkspace(t);
    const a = await ok(t, w.token, 'issues.create', { title: 'a' });
    const b = await ok(t, w.token, 'issues.create', { title: 'b' });
    const before = (await ok(t, w.token, 'events.recent', { limit: 1 })).items[0].id;
    expect(await ok(t, w.token, 'time.running', {})).toBeNull();

    const s1 = await ok(t, w.token, 'time.start', { issueId: a.key, note: 'digging' });
    expect(s1).toMatchObject({ stopped: null, entry: { issueId: a.id, issue: { key: a.key }, running: true, durationMin: null, note: 'digging' } });
    const same = await ok(t, w.token, 'time.start', { issueId: a.id });
    expect(same).toMatchObject({ stopped: null, entry: { id: s1.entry.id } });
    await backdateRunning(w, 25);

    const s2 = await ok(t, w.token, 'time.start', { issueId: b.id });
    expect(s2.stopped).toMatchObject({ id: s1.entry.id, running: false, durationMin: 25, endedAt: expect.any(String) });
    expect(s2.entry).toMatchObject({ issueId: b.id, running: true });
    expect(await ok(t, w.token, 'time.running', {})).toMatchObject({ id: s2.entry.id });
    await backdateRunning(w, 90);

    const stopped = await ok(t, w.token, 'time.stop', { note: 'done for today' });
    expect(stopped).toMatchObject({ id: s2.entry.id, durationMin: 90, running: false, note: 'done for today' });
    expect(await ok(t, w.token, 'time.running', {})).toBeNull();
    const none = await rest(t, w.token, 'time.stop', {});
    expect(none.status).toBe(409);
    expect(none.body.error).toBe('no_running_timer');
    expect((await ok(t, w.token, 'events.recent', { limit: 1 })).items[0].id).toBe(before);
  });

  it('concurrent starts on different issues leave one running timer, each call answered (no raw 409)', async () => {
    const w = await createWorkspace(t);
    const issues = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => ok(t, w.token, 'issues.create', { title: `t${n}` })));
    const answers = await Promise.all(issues.map((i) => rest(t, w.token, 'time.start', { issueId: i.id })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const running = await t.pools.owner.query('select count(*)::int n from app_public.time_entries where workspace_id = $1 and duration_min is null', [w.id]);
    expect(running.rows[0].n).toBe(1);
  });

  it('time on a deleted issue is neither listed nor summed', async () => {
    const w = await createWorkspace(t);
    const gone = await ok(t, w.token, 'issues.create', { title: 'gone' });
    const kept = await ok(t, w.token, 'issues.create', { title: 'kept' });
    await ok(t, w.token, 'time.log', { issueId: gone.id, durationMin: 30 });
    await ok(t, w.token, 'time.log', { issueId: kept.id, durationMin: 10 });
    await ok(t, w.token, 'issues.delete', { id: gone.id });
    expect((await ok(t, w.token, 'time.list', {})).items.map((e: { issueId: string }) => e.issueId)).toEqual([kept.id]);
    expect(JSON.stringify(await ok(t, w.token, 'time.summary', {}))).not.toContain(gone.id);
  });

  it('deleting an issue stops the timers running on it (they showed the deleted issue and kept counting)', async () => {
    const w = await createWorkspace(t);
    const gone = await ok(t, w.token, 'issues.create', { title: 'will be deleted' });
    await ok(t, w.token, 'time.start', { issueId: gone.id });
    await backdateRunning(w, 20);
    await ok(t, w.token, 'issues.delete', { id: gone.id });
    expect(await ok(t, w.token, 'time.running', {})).toBeNull();
    const { rows } = await t.pools.owner.query('select duration_min, ended_at from app_public.time_entries where issue_id = $1', [gone.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].duration_min).toBe(20);
    expect(rows[0].ended_at).not.toBeNull();
    // The restored issue's time is back in the lists, stopped where the delete stopped it.
    await ok(t, w.token, 'issues.restore', { id: gone.id });
    expect((await ok(t, w.token, 'time.list', {})).items.map((e: any) => [e.issueId, e.durationMin])).toEqual([[gone.id, 20]]);
  });

  it('each user has their own running timer', async () => {
    const email = `timer-${ws.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: ws.key, email, role: 'MEMBER', json: true });
    const mate = await createKey(t, ws, { user: email, scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'pairing' });
    const mine = await ok(t, ws.token, 'time.start', { issueId: issue.id });
    const theirs = await ok(t, mate.token, 'time.start', { issueId: issue.id });
    expect(theirs.stopped).toBeNull();
    expect((await ok(t, ws.token, 'time.running', {})).id).toBe(mine.entry.id);
    expect((await ok(t, mate.token, 'time.running', {})).id).toBe(theirs.entry.id);
    await ok(t, ws.token, 'time.stop', {});
    expect((await ok(t, mate.token, 'time.running', {})).id).toBe(theirs.entry.id);
    await ok(t, mate.token, 'time.stop', {});
  });
});

describe('log, list, summary', () => {
  it('log records finished entries; list filters by user, issue and day range, paged; summary totals', async () => {
    const w = await createWorkspace(t);
    const email = `logger-${w.key.toLowerCase()}@example.com`;
    const member = await admin(t, 'add-member', { workspace: w.key, email, role: 'MEMBER', json: true });
    const mate = await createKey(t, w, { user: email, scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const a = await ok(t, w.token, 'issues.create', { title: 'a' });
    const b = await ok(t, w.token, 'issues.create', { title: 'b' });

    const e1 = await ok(t, w.token, 'time.log', { issueId: a.id, durationMin: 30, startedAt: '2024-05-01T09:00:00Z', note: 'review' });
    expect(e1).toMatchObject({ issueId: a.id, durationMin: 30, running: false, note: 'review' });
    expect(new Date(e1.endedAt).getTime() - new Date(e1.startedAt).getTime()).toBe(30 * 60_000);
    await ok(t, w.token, 'time.log', { issueId: b.key, durationMin: 45, startedAt: '2024-05-01T23:30:00+00:00' });
    await ok(t, w.token, 'time.log', { issueId: a.id, durationMin: 15, startedAt: '2024-05-02T08:00:00Z' });
    await ok(t, mate.token, 'time.log', { issueId: a.id, durationMin: 60, startedAt: '2024-05-02T10:00:00Z' });
    const fresh = await ok(t, mate.token, 'time.log', { issueId: b.id, durationMin: 5 });
    expect(Math.abs(new Date(fresh.endedAt).getTime() - Date.now())).toBeLessThan(60_000);

    const all = await ok(t, w.token, 'time.list', {});
    expect(all.items).toHaveLength(5);
    expect(all.items[0].id).toBe(fresh.id); // newest start first
    const byMate = await ok(t, w.token, 'time.list', { userId: member.user.id });
    expect(byMate.items.map((e: { durationMin: number }) => e.durationMin)).toEqual([5, 60]);
    const onA = await ok(t, w.token, 'time.list', { issueId: a.key });
    expect(onA.items.map((e: { durationMin: number }) => e.durationMin)).toEqual([60, 15, 30]);
    const may1 = await ok(t, w.token, 'time.list', { from: '2024-05-01', to: '2024-05-01' });
    expect(may1.items.map((e: { durationMin: number }) => e.durationMin)).toEqual([45, 30]);
    const seen: string[] = (await allPages(t, w.token, 'time.list', {}, 2)).map((e: { id: string }) => e.id);
    expect(seen).toEqual(all.items.map((e: { id: string }) => e.id));

    await ok(t, w.token, 'time.start', { issueId: b.id }); // running timers are not summed
    const sum = await ok(t, w.token, 'time.summary', { from: '2024-05-01', to: '2024-05-02' });
    expect(sum).toMatchObject({ totalMin: 150, entryCount: 4 });
    expect(sum.byUser).toEqual(expect.arrayContaining([
      expect.objectContaining({ userId: member.user.id, totalMin: 60 }), expect.objectContaining({ totalMin: 90 })]));
    expect(sum.byIssue).toEqual([
      expect.objectContaining({ issueId: a.id, key: a.key, totalMin: 105 }), expect.objectContaining({ issueId: b.id, totalMin: 45 })]);
    expect(sum.byDay).toEqual([{ day: '2024-05-01', totalMin: 75 }, { day: '2024-05-02', totalMin: 75 }]);
    expect((await ok(t, w.token, 'time.summary', { issueId: b.id })).totalMin).toBe(50);
    expect((await ok(t, w.token, 'time.summary', { userId: member.user.id })).byUser).toEqual([
      expect.objectContaining({ userId: member.user.id, totalMin: 65 })]);
  });

  it('rejects bad input with 400 and unknown issues with 404', async () => {
    const a = await ok(t, ws.token, 'issues.create', { title: 'bad input' });
    expect400(await rest(t, ws.token, 'time.start', {}), 'issueId');
    expect400(await rest(t, ws.token, 'time.log', { issueId: a.id }), 'durationMin');
    expect400(await rest(t, ws.token, 'time.log', { issueId: a.id, durationMin: 0 }), 'durationMin');
    expect400(await rest(t, ws.token, 'time.log', { issueId: a.id, durationMin: 1.5 }), 'durationMin');
    expect400(await rest(t, ws.token, 'time.log', { issueId: a.id, durationMin: 10, startedAt: 'yesterday' }), 'startedAt');
    // An entry records time spent: a week from a minute ago ends next week.
    const aMinuteAgo = new Date(Date.now() - 60_000).toISOString();
    expect400(await rest(t, ws.token, 'time.log', { issueId: a.id, durationMin: 10_080, startedAt: aMinuteAgo }), 'durationMin');
    const spent = await ok(t, ws.token, 'time.log', { issueId: a.id, durationMin: 30 });
    expect400(await rest(t, ws.token, 'time.update', { id: spent.id, durationMin: 10_080 }), 'durationMin');
    // Instants PostgreSQL cannot show as ISO 8601: year 0 in UTC (1 BC), year 10000.
    expect400(await rest(t, ws.token, 'time.log', { issueId: a.id, durationMin: 30, startedAt: '0001-01-01T00:00:00+14:00' }), 'startedAt');
    expect400(await rest(t, ws.token, 'actionRequests.create', { title: 'far', dueAt: '9999-12-31T23:59:59-14:00' }), 'dueAt');
    // A fraction past microseconds is cut, never rounded into the next day.
    const late = await ok(t, ws.token, 'time.log', { issueId: a.id, durationMin: 1, startedAt: '2026-11-28T23:59:59.9999999Z' });
    expect(late.startedAt).toMatch(/^2026-11-28T23:59:59\.999999/);
    expect400(await rest(t, ws.token, 'time.list', { userId: 'me' }), 'userId');
    expect400(await rest(t, ws.token, 'time.list', { from: '2024-13-01' }), 'from');
    expect400(await rest(t, ws.token, 'time.summary', { from: '2024-05-02', to: '2024-05-01' }), 'from');
    expect400(await rest(t, ws.token, 'time.stop', { issueId: a.id }), 'issueId');
    expect((await rest(t, ws.token, 'time.log', { issueId: crypto.randomUUID(), durationMin: 5 })).status).toBe(404);
    expect((await rest(t, ws.token, 'time.list', { issueId: `${ws.key}-4242` })).status).toBe(404);
  });
});

describe('isolation and settings', () => {
  it('another workspace cannot log on these issues or see their time', async () => {
    const a = await ok(t, ws.token, 'issues.create', { title: 'home' });
    await ok(t, ws.token, 'time.log', { issueId: a.id, durationMin: 12 });
    expect((await rest(t, other.token, 'time.start', { issueId: a.id })).status).toBe(404);
    expect((await rest(t, other.token, 'time.log', { issueId: a.id, durationMin: 5 })).status).toBe(404);
    expect((await rest(t, other.token, 'time.list', { issueId: a.id })).status).toBe(404);
    expect((await ok(t, other.token, 'time.list', {})).items).toEqual([]);
    expect((await ok(t, other.token, 'time.summary', {})).totalMin).toBe(0);
    expect(await ok(t, other.token, 'time.running', {})).toBeNull();
    expect((await ok(t, ws.token, 'time.summary', { issueId: a.id })).totalMin).toBe(12);
  });

  it('a narrowed key sees time only on issues within its reach, but always its own running timer', async () => {
    const w = await createWorkspace(t);
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [w.id, 'Time P']);
    const inside = await ok(t, w.token, 'issues.create', { title: 'in', projectId: rows[0].id });
    const outside = await ok(t, w.token, 'issues.create', { title: 'out' });
    await ok(t, w.token, 'time.log', { issueId: inside.id, durationMin: 10 });
    await ok(t, w.token, 'time.log', { issueId: outside.id, durationMin: 20 });
    await ok(t, w.token, 'time.start', { issueId: outside.id });
    const key = await createKey(t, w, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [rows[0].id] });
    expect((await rest(t, key.token, 'time.log', { issueId: outside.id, durationMin: 5 })).status).toBe(404);
    expect((await rest(t, key.token, 'time.list', { issueId: outside.id })).status).toBe(404);
    // The user's own timer (started on an issue outside the key's reach) is still theirs: shown, and stopped by start.
    // Its own timer, on an issue it cannot see: neither the issue nor its id (an outside probe read the id here).
    expect(await ok(t, key.token, 'time.running', {})).toMatchObject({ issueId: null, issue: null, running: true });
    const s = await ok(t, key.token, 'time.start', { issueId: inside.id });
    expect(s.stopped).toMatchObject({ issueId: null, running: false });
    const sum = await ok(t, key.token, 'time.summary', {});
    expect(sum.byIssue.map((x: { issueId: string }) => x.issueId)).toEqual([inside.id]);
    expect(sum.totalMin).toBe(10);
    expect((await ok(t, key.token, 'time.list', {})).items.map((e: { issueId: string }) => e.issueId)).toEqual([inside.id, inside.id]);
    expect((await ok(t, w.token, 'time.summary', {})).byIssue.map((x: { issueId: string }) => x.issueId).sort()).toEqual([inside.id, outside.id].sort());
  });

  it('every time tool answers 403 time_tracking_disabled when the workspace has it off', async () => {
    const w = await createWorkspace(t);
    const a = await ok(t, w.token, 'issues.create', { title: 'x' });
    await t.pools.owner.query('update app_public.workspaces set time_tracking_enabled = false where id = $1', [w.id]);
    const inputs: Record<string, object> = {
      'time.start': { issueId: a.id }, 'time.stop': {}, 'time.log': { issueId: a.id, durationMin: 5 },
      'time.list': {}, 'time.summary': {}, 'time.running': {},
      'time.update': { id: crypto.randomUUID(), note: 'x' }, 'time.delete': { id: crypto.randomUUID() }, 'time.get': { id: crypto.randomUUID() },
    };
    const timeTools = TOOLS.filter((x) => x.namespace === 'time').map((x) => x.name).sort();
    expect(timeTools).toEqual(Object.keys(inputs).sort());
    for (const [tool, input] of Object.entries(inputs)) {
      const r = await rest(t, w.token, tool, input);
      expect(r.status, tool).toBe(403);
      expect(r.body.error).toBe('time_tracking_disabled');
    }
    expect((await t.pools.owner.query('select count(*)::int as n from app_public.time_entries where workspace_id = $1', [w.id])).rows[0].n).toBe(0);
  });

  it('turning time tracking off stops every running timer (time.stop is 403 then, and it would count on)', async () => {
    const w = await createWorkspace(t);
    const a = await ok(t, w.token, 'issues.create', { title: 'timed' });
    await ok(t, w.token, 'time.start', { issueId: a.id });
    await ok(t, w.token, 'workspace.updateSettings', { timeTrackingEnabled: false });
    const { rows } = await t.pools.owner.query('select ended_at, duration_min from app_public.time_entries where workspace_id = $1', [w.id]);
    expect(rows).toMatchObject([{ ended_at: expect.any(Date), duration_min: expect.any(Number) }]);
    await ok(t, w.token, 'workspace.updateSettings', { timeTrackingEnabled: true });
    expect(await ok(t, w.token, 'time.running', {})).toBeNull();
  });
});

describe('update, delete', () => {
  it('corrects a finished entry (endedAt follows), clears its note, deletes it; a running timer keeps its clock times', async () => {
    const w = await createWorkspace(t);
    const a = await ok(t, w.token, 'issues.create', { title: 'fix my time' });
    const logged = await ok(t, w.token, 'time.log', { issueId: a.id, durationMin: 30, startedAt: '2026-03-02T09:00:00Z', note: 'typo' });
    const fixed = await ok(t, w.token, 'time.update', { id: logged.id, durationMin: 45, startedAt: '2026-03-02T08:30:00Z', note: null });
    expect(fixed).toMatchObject({ id: logged.id, durationMin: 45, note: null, running: false });
    expect(Date.parse(fixed.startedAt)).toBe(Date.parse('2026-03-02T08:30:00Z'));
    expect(Date.parse(fixed.endedAt)).toBe(Date.parse('2026-03-02T09:15:00Z'));
    expect((await ok(t, w.token, 'time.summary', { issueId: a.id })).totalMin).toBe(45);

    const running = (await ok(t, w.token, 'time.start', { issueId: a.id })).entry;
    const clock = await rest(t, w.token, 'time.update', { id: running.id, durationMin: 5 });
    expect(clock.status).toBe(409);
    expect(clock.body.error).toBe('timer_running');
    expect(await ok(t, w.token, 'time.update', { id: running.id, note: 'still going' })).toMatchObject({ running: true, note: 'still going' });
    // Deleting the running timer discards it.
    expect(await ok(t, w.token, 'time.delete', { id: running.id })).toEqual({ id: running.id, deleted: true });
    expect(await ok(t, w.token, 'time.running', {})).toBeNull();
    await ok(t, w.token, 'time.delete', { id: logged.id });
    expect((await ok(t, w.token, 'time.list', {})).items).toEqual([]);
    expect((await rest(t, w.token, 'time.delete', { id: logged.id })).status).toBe(404);
    expect400(await rest(t, w.token, 'time.update', { id: 'nope' }), 'id');
    expect400(await rest(t, w.token, 'time.update', { id: logged.id, durationMin: 0 }), 'durationMin');
  });

  it('only your own entries: a teammate, another workspace and a narrowed key outside its reach get 404', async () => {
    const w = await createWorkspace(t);
    const email = `mate-${w.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: w.key, email, role: 'MEMBER', json: true });
    const mate = await createKey(t, w, { user: email, scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [w.id, 'Reach']);
    const outside = await ok(t, w.token, 'issues.create', { title: 'out of reach' });
    const mine = await ok(t, w.token, 'time.log', { issueId: outside.id, durationMin: 20 });
    const narrowed = await createKey(t, w, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [rows[0].id] });
    for (const [who, token] of [['teammate', mate.token], ['other workspace', other.token], ['narrowed', narrowed.token]] as const) {
      expect((await rest(t, token, 'time.update', { id: mine.id, durationMin: 1 })).status, who).toBe(404);
      expect((await rest(t, token, 'time.delete', { id: mine.id })).status, who).toBe(404);
    }
    expect((await ok(t, w.token, 'time.list', {})).items).toEqual([expect.objectContaining({ id: mine.id, durationMin: 20 })]);
    // An entry on a deleted issue is gone with it.
    await ok(t, w.token, 'issues.delete', { id: outside.id });
    expect((await rest(t, w.token, 'time.update', { id: mine.id, note: 'x' })).status).toBe(404);
  });
});
