import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, createAgent, createKey, createWorkspace, ok, rest, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

const today = () => new Date().toISOString().slice(0, 10);
const addDays = (isoDate: string, n: number) => {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

async function statusId(w: Workspace, category: string): Promise<string> {
  return (await ok(t, w.token, 'statuses.list', { category }))[0].id;
}
async function settings(w: Workspace, length: number, cooldown: number) {
  await t.pools.owner.query('update app_public.workspaces set cycle_length_days = $2, cycle_cooldown_days = $3 where id = $1', [w.id, length, cooldown]);
}
const issueEvents = async (token: string, issueId: string) =>
  (await ok(t, token, 'events.recent', { subjectType: 'issue', subjectId: issueId })).items as Array<{ kind: string; payload: any }>;

beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces()));
afterAll(() => t.close());

describe('cycles.create / update / get / list / current', () => {
  it('creates from the workspace length and cooldown, numbers them, writes CYCLE_CREATED', async () => {
    const w = await createWorkspace(t);
    expect(await ok(t, w.token, 'cycles.current', {})).toBeNull();
    const first = await ok(t, w.token, 'cycles.create', {});
    // It starts today: it is the current sprint at once (decisions.md "Cycle status").
    expect(first).toMatchObject({ number: 1, name: 'Sprint 1', startsOn: today(), endsOn: addDays(today(), 13), status: 'ACTIVE', issueCount: 0 });
    expect(await ok(t, w.token, 'cycles.current', {})).toMatchObject({ id: first.id, status: 'ACTIVE' });
    await settings(w, 7, 2);
    const second = await ok(t, w.token, 'cycles.create', { name: 'Hardening' });
    expect(second).toMatchObject({ number: 2, name: 'Hardening', startsOn: addDays(first.endsOn, 3), endsOn: addDays(first.endsOn, 9) });
    const evs = (await ok(t, w.token, 'events.recent', { subjectType: 'cycle' })).items;
    expect(evs.map((e: { kind: string }) => e.kind)).toEqual(['CYCLE_CREATED', 'CYCLE_CREATED']);
    expect(evs[0].payload).toMatchObject({ cycleId: second.id, number: 2, status: 'PLANNED' });
  });

  it('activate: true makes it current; a second active cycle is 409; dates may not overlap or run backwards', async () => {
    const w = await createWorkspace(t);
    const c = await ok(t, w.token, 'cycles.create', { startsOn: '2030-01-01', endsOn: '2030-01-14', activate: true });
    expect(c.status).toBe('ACTIVE');
    const current = await ok(t, w.token, 'cycles.current', {});
    expect(current).toMatchObject({ id: c.id, status: 'ACTIVE', issues: [] });
    const dup = await rest(t, w.token, 'cycles.create', { startsOn: '2030-02-01', activate: true });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('active_cycle_exists');
    const overlap = await rest(t, w.token, 'cycles.create', { startsOn: '2030-01-10', endsOn: '2030-01-20' });
    expect(overlap.status).toBe(409);
    expect(overlap.body.error).toBe('cycle_overlap');
    expect400(await rest(t, w.token, 'cycles.create', { startsOn: '2030-03-10', endsOn: '2030-03-01' }), 'endsOn');
    expect((await ok(t, w.token, 'cycles.list', {})).items).toHaveLength(1);
  });

  it('update renames and re-dates (CYCLE_UPDATED), a no-op writes nothing, overlaps are refused', async () => {
    const w = await createWorkspace(t);
    const a = await ok(t, w.token, 'cycles.create', { startsOn: '2031-01-01', endsOn: '2031-01-14' });
    const b = await ok(t, w.token, 'cycles.create', { startsOn: '2031-01-15', endsOn: '2031-01-28' });
    const u = await ok(t, w.token, 'cycles.update', { id: a.id, name: 'Kickoff', endsOn: '2031-01-10' });
    expect(u).toMatchObject({ name: 'Kickoff', startsOn: '2031-01-01', endsOn: '2031-01-10' });
    await ok(t, w.token, 'cycles.update', { id: a.id, name: 'Kickoff' });
    const evs = (await ok(t, w.token, 'events.recent', { subjectType: 'cycle', subjectId: a.id })).items;
    expect(evs.map((e: { kind: string }) => e.kind)).toEqual(['CYCLE_UPDATED', 'CYCLE_CREATED']);
    expect(evs[0].payload.changes.sort()).toEqual(['endsOn', 'name']);
    const clash = await rest(t, w.token, 'cycles.update', { id: b.id, startsOn: '2031-01-05' });
    expect(clash.status).toBe(409);
    expect400(await rest(t, w.token, 'cycles.update', { id: b.id, endsOn: '2031-01-01' }), 'endsOn');
    expect400(await rest(t, w.token, 'cycles.update', { id: b.id, startsOn: '2099-01-01' }), 'startsOn'); // after its own end
    expect(await ok(t, w.token, 'cycles.get', { id: b.id })).toMatchObject({ startsOn: '2031-01-15', endsOn: '2031-01-28', issues: [] });
  });

  it('an ended cycle keeps its dates (409 cycle_closed; renaming stays allowed); no cycle spans today beside one activated early', async () => {
    const w = await createWorkspace(t);
    const past = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -20), endsOn: addDays(today(), -6) });
    const redated = await rest(t, w.token, 'cycles.update', { id: past.id, startsOn: addDays(today(), 40), endsOn: addDays(today(), 50) });
    expect(redated.status).toBe(409);
    expect(redated.body.error).toBe('cycle_closed');
    expect(await ok(t, w.token, 'cycles.update', { id: past.id, name: 'Archive' })).toMatchObject({ name: 'Archive', status: 'COMPLETED', endsOn: addDays(today(), -6) });
    // Nor does a live cycle become history by a typo: it could never be re-dated back.
    const live = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 60), endsOn: addDays(today(), 70) });
    expect400(await rest(t, w.token, 'cycles.update', { id: live.id, startsOn: addDays(today(), -5), endsOn: addDays(today(), -1) }), 'endsOn');

    // Activated early (no cycle runs today), then a cycle spanning today, created or re-dated into it: refused.
    const early = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 10), endsOn: addDays(today(), 20), activate: true });
    expect(early.status).toBe('ACTIVE');
    const spanning = await rest(t, w.token, 'cycles.create', { startsOn: addDays(today(), -2), endsOn: addDays(today(), 5) });
    expect(spanning.status).toBe(409);
    expect(spanning.body.error).toBe('active_cycle_exists');
    const later = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 30), endsOn: addDays(today(), 35) });
    expect((await rest(t, w.token, 'cycles.update', { id: later.id, startsOn: today(), endsOn: addDays(today(), 3) })).body.error).toBe('active_cycle_exists');
    expect((await ok(t, w.token, 'cycles.list', { status: 'ACTIVE' })).items.map((c: { id: string }) => c.id)).toEqual([early.id]);
    // Nor may one run by the calendar later but before the early one starts (both would be ACTIVE tomorrow).
    expect((await rest(t, w.token, 'cycles.create', { startsOn: addDays(today(), 1), endsOn: addDays(today(), 3) })).body.error).toBe('active_cycle_exists');
    // The early one itself may be re-dated, even to start today.
    expect(await ok(t, w.token, 'cycles.update', { id: early.id, startsOn: today() })).toMatchObject({ status: 'ACTIVE', startsOn: today() });

    // The other way round: a planned cycle before it blocks an early activation.
    const w2 = await createWorkspace(t);
    await ok(t, w2.token, 'cycles.create', { startsOn: addDays(today(), 5), endsOn: addDays(today(), 8) });
    expect((await rest(t, w2.token, 'cycles.create', { startsOn: addDays(today(), 20), endsOn: addDays(today(), 30), activate: true })).body.error).toBe('active_cycle_exists');
  });

  it('lists latest start first, pages with a cursor, filters by status', async () => {
    const w = await createWorkspace(t);
    for (let m = 1; m <= 5; m++) await ok(t, w.token, 'cycles.create', { startsOn: `2032-0${m}-01`, endsOn: `2032-0${m}-10` });
    const starts: string[] = (await allPages(t, w.token, 'cycles.list', {}, 2)).map((c: { startsOn: string }) => c.startsOn);
    expect(starts).toEqual(['2032-05-01', '2032-04-01', '2032-03-01', '2032-02-01', '2032-01-01']);
    expect((await ok(t, w.token, 'cycles.list', { status: 'ACTIVE' })).items).toEqual([]);
    expect((await ok(t, w.token, 'cycles.list', { status: 'PLANNED' })).items).toHaveLength(5);
  });

  it('status follows the calendar: started is ACTIVE and current, ended is COMPLETED, later is PLANNED', async () => {
    const w = await createWorkspace(t);
    const past = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -20), endsOn: addDays(today(), -6) });
    const now = await ok(t, w.token, 'cycles.create', { name: 'Now', startsOn: addDays(today(), -5), endsOn: addDays(today(), 8) });
    const later = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 9), endsOn: addDays(today(), 22) });
    expect([past.status, now.status, later.status]).toEqual(['COMPLETED', 'ACTIVE', 'PLANNED']);
    expect((await ok(t, w.token, 'cycles.current', {})).id).toBe(now.id);
    expect((await ok(t, w.token, 'cycles.list', { status: 'ACTIVE' })).items.map((c: { id: string }) => c.id)).toEqual([now.id]);
    expect((await ok(t, w.token, 'cycles.list', { status: 'COMPLETED' })).items.map((c: { id: string }) => c.id)).toEqual([past.id]);
    const late = await ok(t, w.token, 'issues.create', { title: 'late' });
    const closed = await rest(t, w.token, 'cycles.addIssue', { cycleId: past.id, issueId: late.id });
    expect(closed.body.error).toBe('cycle_closed');
    // issues.update and updateMany keep the same rule.
    expect((await rest(t, w.token, 'issues.update', { id: late.id, cycleId: past.id })).body.error).toBe('cycle_closed');
    expect((await rest(t, w.token, 'issues.updateMany', { items: [{ id: late.id, cycleId: past.id }] })).body.error).toBe('cycle_closed');
    expect((await ok(t, w.token, 'issues.update', { id: late.id, cycleId: later.id })).cycleId).toBe(later.id);
    // activate: true cannot make a second current sprint while one runs.
    expect((await rest(t, w.token, 'cycles.create', { startsOn: addDays(today(), 30), activate: true })).body.error).toBe('active_cycle_exists');

    // Rollover moves the unfinished issues of the running sprint to the next; the running one stays current.
    const open = await ok(t, w.token, 'issues.create', { title: 'open' });
    const done = await ok(t, w.token, 'issues.create', { title: 'done', statusId: await statusId(w, 'DONE') });
    await ok(t, w.token, 'cycles.plan', { cycleId: now.id, add: [open.id, done.id] });
    const r = await ok(t, w.token, 'cycles.rollover', {});
    expect(r).toMatchObject({ completed: null, current: { id: later.id, status: 'PLANNED' }, movedIssueIds: [open.id], createdNext: false });
    expect(await ok(t, w.token, 'cycles.current', {})).toMatchObject({ id: now.id, status: 'ACTIVE' });
    expect((await ok(t, w.token, 'issues.get', { id: done.id })).cycleId).toBe(now.id);
  });

  it('rollover follows the calendar: the running sprint stays current and ACTIVE, later ones stay PLANNED, repeating it is harmless', async () => {
    const w = await createWorkspace(t);
    const c1 = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -3), endsOn: addDays(today(), 10) });
    const c2 = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 11), endsOn: addDays(today(), 24) });
    const c3 = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 25), endsOn: addDays(today(), 38) });
    const open = await ok(t, w.token, 'issues.create', { title: 'open' });
    const done = await ok(t, w.token, 'issues.create', { title: 'done', statusId: await statusId(w, 'DONE') });
    await ok(t, w.token, 'cycles.plan', { cycleId: c1.id, add: [open.id, done.id] });
    const cycleEventsBefore = (await ok(t, w.token, 'events.recent', { subjectType: 'cycle', kinds: ['CYCLE_UPDATED'] })).items;

    const r1 = await ok(t, w.token, 'cycles.rollover', {});
    expect(r1).toMatchObject({ completed: null, current: { id: c2.id, status: 'PLANNED' }, movedIssueIds: [open.id], createdNext: false });
    expect((await issueEvents(w.token, open.id))[0]).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['cycleId'] } });
    // A second rollover the same day: nothing unfinished is left in C1, C3 is not touched.
    const r2 = await ok(t, w.token, 'cycles.rollover', {});
    expect(r2).toMatchObject({ completed: null, current: { id: c2.id, status: 'PLANNED' }, movedIssueIds: [], createdNext: false });
    // An issue added to the running sprint afterwards moves on the next rollover, to the same next cycle.
    const late = await ok(t, w.token, 'issues.create', { title: 'late' });
    await ok(t, w.token, 'cycles.addIssue', { cycleId: c1.id, issueId: late.id });
    expect(await ok(t, w.token, 'cycles.rollover', {})).toMatchObject({ current: { id: c2.id }, movedIssueIds: [late.id] });

    expect(await ok(t, w.token, 'cycles.current', {})).toMatchObject({ id: c1.id, status: 'ACTIVE', issues: [{ id: done.id }] });
    const statuses = Object.fromEntries((await ok(t, w.token, 'cycles.list', {})).items.map((c: { id: string; status: string }) => [c.id, c.status]));
    expect(statuses).toEqual({ [c1.id]: 'ACTIVE', [c2.id]: 'PLANNED', [c3.id]: 'PLANNED' });
    expect((await ok(t, w.token, 'cycles.get', { id: c2.id })).issues.map((i: { id: string }) => i.id)).toEqual([open.id, late.id]);
    // No cycle changed status: no CYCLE_UPDATED.
    expect((await ok(t, w.token, 'events.recent', { subjectType: 'cycle', kinds: ['CYCLE_UPDATED'] })).items).toEqual(cycleEventsBefore);
    // The upcoming cycle is still plannable (it was not activated).
    expect((await ok(t, w.token, 'cycles.plan', { remove: [late.id] })).cycle.id).toBe(c2.id);
  });

  it("CYCLE_UPDATED names the status cycles.get shows: a running sprint's rename says ACTIVE (it was stored PLANNED), a later one re-dated stays PLANNED", async () => {
    const w = await createWorkspace(t);
    const running = await ok(t, w.token, 'cycles.create', {});
    expect(running.status).toBe('ACTIVE');
    await ok(t, w.token, 'cycles.update', { id: running.id, name: 'Renamed sprint' });
    const later = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 30) });
    await ok(t, w.token, 'cycles.update', { id: later.id, startsOn: addDays(today(), 20) });
    const events = (await ok(t, w.token, 'events.recent', { subjectType: 'cycle', kinds: ['CYCLE_UPDATED'] })).items.reverse();
    expect(events.map((e: { subjectId: string; payload: any }) => [e.subjectId, e.payload.changes, e.payload.previousStatus, e.payload.status])).toEqual([
      [running.id, ['name'], 'ACTIVE', 'ACTIVE'],
      [later.id, ['startsOn'], 'PLANNED', 'PLANNED'],
    ]);
  });

  it('rollover with no running sprint finishes the last one that ended without a rollover', async () => {
    const w = await createWorkspace(t);
    const ended = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -15), endsOn: addDays(today(), -2) });
    const left = await ok(t, w.token, 'issues.create', { title: 'left over' });
    await t.pools.owner.query('update app_public.issues set cycle_id = $2 where id = $1', [left.id, ended.id]);
    expect(await ok(t, w.token, 'cycles.current', {})).toBeNull();
    const r = await ok(t, w.token, 'cycles.rollover', {});
    // The new cycle starts today (never in the past), so the calendar makes it the current one.
    expect(r).toMatchObject({ completed: { id: ended.id, status: 'COMPLETED' }, createdNext: true, movedIssueIds: [left.id], current: { startsOn: today(), status: 'ACTIVE' } });
    expect((await ok(t, w.token, 'cycles.current', {})).id).toBe(r.current.id);
    // The ended cycle is remembered as rolled over (stored COMPLETED): the next rollover does not pick it again.
    const cycleEvents = (await ok(t, w.token, 'events.recent', { subjectType: 'cycle', kinds: ['CYCLE_UPDATED'] })).items;
    // Its event says so, with the status cycles.get shows before and after (it had ended: COMPLETED on the calendar).
    expect(cycleEvents.map((e: { subjectId: string; payload: any }) => [e.subjectId, e.payload.changes, e.payload.previousStatus, e.payload.status]))
      .toEqual([[ended.id, ['rolledOver'], 'COMPLETED', 'COMPLETED']]);
    // Again the same day: the sprint it started (today) keeps its issues; nothing is created (it emptied the running
    // sprint into a new one).
    expect(await ok(t, w.token, 'cycles.rollover', {})).toMatchObject({ completed: null, createdNext: false, movedIssueIds: [], current: { id: r.current.id } });
    expect((await ok(t, w.token, 'issues.get', { id: left.id })).cycleId).toBe(r.current.id);
    expect((await ok(t, w.token, 'cycles.list', {})).items).toHaveLength(2);
  });

  it('rollover of a sprint activated before its dates moves its unfinished issues on, as of any running sprint', async () => {
    const w = await createWorkspace(t);
    const early = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 2), endsOn: addDays(today(), 15), activate: true });
    expect((await ok(t, w.token, 'cycles.current', {})).id).toBe(early.id);
    const open = await ok(t, w.token, 'issues.create', { title: 'still open' });
    await ok(t, w.token, 'cycles.addIssue', { cycleId: early.id, issueId: open.id });
    const r = await ok(t, w.token, 'cycles.rollover', {});
    expect(r.movedIssueIds).toEqual([open.id]);
    expect(r.current.id).not.toBe(early.id);
  });

  it('CYCLE_UPDATED for an attachment carries the calendar\'s status, as cycles.get shows it', async () => {
    const w = await createWorkspace(t);
    const running = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -3), endsOn: addDays(today(), 10) });
    await ok(t, w.token, 'attachments.attachLink', { targetType: 'cycle', targetId: running.id, externalUrl: 'https://example.com/plan', linkTitle: 'Plan' });
    const [e] = (await ok(t, w.token, 'events.recent', { subjectType: 'cycle', subjectId: running.id, kinds: ['CYCLE_UPDATED'] })).items;
    expect(e.payload).toMatchObject({ changes: ['attachments'], status: 'ACTIVE', previousStatus: 'ACTIVE' });
  });

  it('rollover on a sprint\'s first day moves the unfinished issues of the sprint that just ended into it', async () => {
    const w = await createWorkspace(t);
    const ended = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -14), endsOn: addDays(today(), -1) });
    const running = await ok(t, w.token, 'cycles.create', { startsOn: today(), endsOn: addDays(today(), 13) });
    const left = await ok(t, w.token, 'issues.create', { title: 'left over' });
    const planned = await ok(t, w.token, 'issues.create', { title: 'planned for this sprint' });
    await t.pools.owner.query('update app_public.issues set cycle_id = $2 where id = $1', [left.id, ended.id]);
    await t.pools.owner.query('update app_public.issues set cycle_id = $2 where id = $1', [planned.id, running.id]);
    const r = await ok(t, w.token, 'cycles.rollover', {});
    expect(r).toMatchObject({ completed: { id: ended.id }, createdNext: false, movedIssueIds: [left.id], current: { id: running.id, status: 'ACTIVE' } });
    expect((await ok(t, w.token, 'issues.get', { id: planned.id })).cycleId).toBe(running.id);
  });

  it('rollover with no running sprint and an upcoming one does not activate it early', async () => {
    const w = await createWorkspace(t);
    const ended = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -15), endsOn: addDays(today(), -2) });
    const next = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), 3), endsOn: addDays(today(), 16) });
    const left = await ok(t, w.token, 'issues.create', { title: 'left over' });
    await t.pools.owner.query('update app_public.issues set cycle_id = $2 where id = $1', [left.id, ended.id]);
    const r = await ok(t, w.token, 'cycles.rollover', {});
    expect(r).toMatchObject({ completed: { id: ended.id, status: 'COMPLETED' }, createdNext: false, movedIssueIds: [left.id], current: { id: next.id, status: 'PLANNED' } });
    expect(await ok(t, w.token, 'cycles.current', {})).toBeNull();
    // Again the same day: nothing left to roll over, nothing changes.
    expect(await ok(t, w.token, 'cycles.rollover', {})).toMatchObject({ completed: null, createdNext: false, movedIssueIds: [], current: { id: next.id, status: 'PLANNED' } });
    expect((await ok(t, w.token, 'cycles.list', {})).items.map((c: { status: string }) => c.status)).toEqual(['PLANNED', 'COMPLETED']);
  });

  it('rejects bad input with 400', async () => {
    expect400(await rest(t, ws.token, 'cycles.get', { id: 'x' }), 'id');
    expect400(await rest(t, ws.token, 'cycles.create', { startsOn: 'tomorrow' }), 'startsOn');
    expect400(await rest(t, ws.token, 'cycles.create', { name: '' }), 'name');
    expect400(await rest(t, ws.token, 'cycles.create', { status: 'ACTIVE' }), 'status');
    expect400(await rest(t, ws.token, 'cycles.update', { name: 'x' }), 'id');
    expect400(await rest(t, ws.token, 'cycles.list', { status: 'NOPE' }), 'status');
    expect400(await rest(t, ws.token, 'cycles.current', { x: 1 }), 'x');
    expect400(await rest(t, ws.token, 'cycles.plan', { add: Array.from({ length: 101 }, (_, i) => `X-${i}`) }), 'add');
    expect400(await rest(t, ws.token, 'cycles.addIssue', { cycleId: crypto.randomUUID() }), 'issueId');
    expect400(await rest(t, ws.token, 'cycles.rollover', { force: true }), 'force');
    expect((await rest(t, ws.token, 'cycles.get', { id: crypto.randomUUID() })).status).toBe(404);
  });

  it('a default date past 9999-12-31 (after a cycle ending then) is a 400, not a date the tools refuse back', async () => {
    const last = await createWorkspace(t, 'CYEND');
    await ok(t, last.token, 'cycles.create', { startsOn: '9999-12-20', endsOn: '9999-12-31' });
    expect400(await rest(t, last.token, 'cycles.create', {}), 'startsOn');
    // The end was computed from startsOn, the field sent: the refusal names it (it named endsOn, never sent).
    expect400(await rest(t, last.token, 'cycles.create', { startsOn: '9999-12-31' }), 'startsOn');
    expect((await ok(t, last.token, 'cycles.list', {})).items).toHaveLength(1);
  });
});

describe('issues in cycles', () => {
  it('addIssue / removeIssue move one issue, idempotently, writing ISSUE_UPDATED (cycleId)', async () => {
    const w = await createWorkspace(t);
    const a = await ok(t, w.token, 'cycles.create', {});
    const b = await ok(t, w.token, 'cycles.create', {});
    const issue = await ok(t, w.token, 'issues.create', { title: 'Sprint work' });
    const added = await ok(t, w.token, 'cycles.addIssue', { cycleId: a.id, issueId: issue.key });
    expect(added).toMatchObject({ id: issue.id, cycleId: a.id });
    await ok(t, w.token, 'cycles.addIssue', { cycleId: a.id, issueId: issue.id });
    let evs = await issueEvents(w.token, issue.id);
    expect(evs.map((e) => e.kind)).toEqual(['ISSUE_UPDATED', 'ISSUE_CREATED']);
    expect(evs[0]!.payload.changes).toEqual(['cycleId']);
    expect(await ok(t, w.token, 'cycles.get', { id: a.id })).toMatchObject({ issueCount: 1, openIssueCount: 1, issues: [{ id: issue.id }] });

    expect((await ok(t, w.token, 'cycles.removeIssue', { cycleId: b.id, issueId: issue.id })).cycleId).toBe(a.id);
    expect((await ok(t, w.token, 'cycles.removeIssue', { cycleId: a.id, issueId: issue.id })).cycleId).toBeNull();
    expect((await ok(t, w.token, 'cycles.removeIssue', { cycleId: a.id, issueId: issue.id })).cycleId).toBeNull();
    evs = await issueEvents(w.token, issue.id);
    expect(evs.map((e) => e.kind)).toEqual(['ISSUE_UPDATED', 'ISSUE_UPDATED', 'ISSUE_CREATED']);
    expect((await ok(t, w.token, 'issues.list', { cycleId: a.id })).items).toEqual([]);
  });

  it('a cycle shows its first 100 issues by number, issueCount all of them (a sprint of 5,392 answered 4.5 MB)', async () => {
    const w = await createWorkspace(t);
    const sprint = await ok(t, w.token, 'cycles.create', {});
    const made = await ok(t, w.token, 'issues.createMany', { items: Array.from({ length: 100 }, (_, i) => ({ title: `Sprint item ${i}` })) });
    const more = await ok(t, w.token, 'issues.createMany', { items: Array.from({ length: 5 }, (_, i) => ({ title: `More ${i}` })) });
    const ids = [...made.items, ...more.items].map((i: { id: string }) => i.id);
    const into = (some: string[]) => ok(t, w.token, 'issues.updateMany', { items: some.map((id) => ({ id, cycleId: sprint.id })) });
    await into(ids.slice(0, 100));
    await into(ids.slice(100));
    const got = await ok(t, w.token, 'cycles.get', { id: sprint.id });
    expect(got.issueCount).toBe(105);
    expect(got.issues).toHaveLength(100);
    const numbers = got.issues.map((i: { number: number }) => i.number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(got.issues[0]).toMatchObject({ status: { category: 'TODO' }, cycleId: sprint.id });
    expect(await allPages(t, w.token, 'issues.list', { cycleId: sprint.id }, 50)).toHaveLength(105);
  });

  it('a completed cycle keeps the issues finished in it; unfinished ones move on (a reports probe: its done count shrank for good)', async () => {
    const w = await createWorkspace(t);
    const past = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -20), endsOn: addDays(today(), -6) });
    const statuses: Array<{ id: string; category: string }> = await ok(t, w.token, 'statuses.list', {});
    const done = statuses.find((x) => x.category === 'DONE')!.id;
    const todo = statuses.find((x) => x.category === 'TODO')!.id;
    const finished = await ok(t, w.token, 'issues.create', { title: 'Shipped in the sprint' });
    const unfinished = await ok(t, w.token, 'issues.create', { title: 'Left over' });
    // Planned while the sprint ran (an ended cycle takes no issue through the tools).
    await t.pools.owner.query('update app_public.issues set cycle_id = $1 where id = any($2)', [past.id, [finished.id, unfinished.id]]);
    await ok(t, w.token, 'issues.transition', { id: finished.id, statusId: done });
    for (const [tool, input] of [['cycles.removeIssue', { cycleId: past.id, issueId: finished.id }], ['issues.update', { id: finished.id, cycleId: null }],
      ['issues.updateMany', { items: [{ id: finished.id, cycleId: null }] }]] as const) {
      const r = await rest(t, w.token, tool, input);
      expect([r.status, r.body.error], tool).toEqual([409, 'cycle_closed']);
    }
    expect(await ok(t, w.token, 'cycles.get', { id: past.id })).toMatchObject({ issueCount: 2, doneIssueCount: 1 });
    // Unfinished work moves on; reopened work too.
    expect((await ok(t, w.token, 'cycles.removeIssue', { cycleId: past.id, issueId: unfinished.id })).cycleId).toBeNull();
    await ok(t, w.token, 'issues.transition', { id: finished.id, statusId: todo });
    expect((await ok(t, w.token, 'issues.update', { id: finished.id, cycleId: null })).cycleId).toBeNull();
  });

  it('plan adds and removes in bulk for the upcoming cycle, all or nothing', async () => {
    const w = await createWorkspace(t);
    const noUpcoming = await rest(t, w.token, 'cycles.plan', { add: [] });
    expect(noUpcoming.status).toBe(409);
    expect(noUpcoming.body.error).toBe('no_upcoming_cycle');
    const current = await ok(t, w.token, 'cycles.create', { activate: true });
    const upcoming = await ok(t, w.token, 'cycles.create', {});
    const [i1, i2, i3] = [await ok(t, w.token, 'issues.create', { title: 'one' }), await ok(t, w.token, 'issues.create', { title: 'two' }),
      await ok(t, w.token, 'issues.create', { title: 'three' })];
    await ok(t, w.token, 'cycles.addIssue', { cycleId: current.id, issueId: i3.id });

    const planned = await ok(t, w.token, 'cycles.plan', { add: [i1.key, i2.id, i3.id] });
    expect(planned.cycle).toMatchObject({ id: upcoming.id, issueCount: 3 });
    expect(planned.added).toEqual([i1.id, i2.id, i3.id]);
    expect(planned.removed).toEqual([]);
    const again = await ok(t, w.token, 'cycles.plan', { add: [i1.id], remove: [i2.key] });
    expect(again).toMatchObject({ added: [], removed: [i2.id] });
    expect(again.cycle.issues.map((i: { id: string }) => i.id)).toEqual([i1.id, i3.id]);

    const before = await ok(t, w.token, 'events.recent', { limit: 1 });
    const bad = await rest(t, w.token, 'cycles.plan', { add: [i2.id, `${w.key}-999`] });
    expect(bad.status).toBe(404);
    expect(bad.body.message).toBe('Issue not found');
    expect400(await rest(t, w.token, 'cycles.plan', { add: [i2.id], remove: [i2.key] }), 'remove');
    expect400(await rest(t, w.token, 'cycles.plan', { add: [i2.id, i2.key] }), 'add.1');
    expect400(await rest(t, w.token, 'cycles.plan', {}), 'add');
    expect((await ok(t, w.token, 'events.recent', { limit: 1 })).items[0].id).toBe(before.items[0].id);
    expect((await ok(t, w.token, 'issues.get', { id: i2.id })).cycleId).toBeNull();

    // Planning into the active cycle by id works, also after a rollover (it stays current); into a completed one it does not.
    expect((await ok(t, w.token, 'cycles.plan', { cycleId: current.id, add: [i2.id] })).added).toEqual([i2.id]);
    // (A sprint that began today is not rolled over: it began a day ago here.)
    await t.pools.owner.query("update app_public.cycles set starts_on = starts_on - 1 where id = $1", [current.id]);
    expect((await ok(t, w.token, 'cycles.rollover', {})).movedIssueIds).toEqual([i2.id]);
    expect((await ok(t, w.token, 'cycles.plan', { cycleId: current.id, add: [i2.id] })).added).toEqual([i2.id]);
    const past = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -20), endsOn: addDays(today(), -6) });
    const closed = await rest(t, w.token, 'cycles.plan', { cycleId: past.id, add: [i1.id] });
    expect(closed.status).toBe(409);
    expect(closed.body.error).toBe('cycle_closed');
    expect((await rest(t, w.token, 'cycles.addIssue', { cycleId: past.id, issueId: i1.id })).body.error).toBe('cycle_closed');
  });

  it('rollover moves unfinished issues to a newly created next cycle; the current one stays current until it ends', async () => {
    const w = await createWorkspace(t);
    await settings(w, 10, 1);
    const cur = await ok(t, w.token, 'cycles.create', { startsOn: addDays(today(), -13), endsOn: today(), activate: true });
    const done = await ok(t, w.token, 'issues.create', { title: 'done', statusId: await statusId(w, 'DONE') });
    const canceled = await ok(t, w.token, 'issues.create', { title: 'canceled', statusId: await statusId(w, 'CANCELED') });
    const todo = await ok(t, w.token, 'issues.create', { title: 'todo' });
    const doing = await ok(t, w.token, 'issues.create', { title: 'doing', statusId: await statusId(w, 'IN_PROGRESS') });
    const gone = await ok(t, w.token, 'issues.create', { title: 'deleted' });
    await ok(t, w.token, 'cycles.plan', { cycleId: cur.id, add: [done.id, canceled.id, todo.id, doing.id, gone.id] });
    await ok(t, w.token, 'issues.delete', { id: gone.id });

    const r = await ok(t, w.token, 'cycles.rollover', {});
    expect(r.createdNext).toBe(true);
    // The current cycle's last day is today: it still runs, so completed is null and it stays current.
    expect(r.completed).toBeNull();
    expect(await ok(t, w.token, 'cycles.get', { id: cur.id })).toMatchObject({ status: 'ACTIVE', issueCount: 2, doneIssueCount: 1 });
    // The next one starts after the current one and the cooldown; it is PLANNED until then.
    expect(r.current).toMatchObject({ number: 2, name: 'Sprint 2', status: 'PLANNED', startsOn: addDays(today(), 2), endsOn: addDays(today(), 11), issueCount: 2 });
    expect([...r.movedIssueIds].sort()).toEqual([todo.id, doing.id].sort());
    expect((await ok(t, w.token, 'cycles.current', {})).id).toBe(cur.id);
    expect((await ok(t, w.token, 'issues.get', { id: done.id })).cycleId).toBe(cur.id);
    const evs = await issueEvents(w.token, todo.id);
    expect(evs[0]).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['cycleId'] } });
    expect((await ok(t, w.token, 'events.recent', { subjectType: 'cycle', kinds: ['CYCLE_UPDATED'] })).items).toEqual([]);

    // Next time the upcoming cycle exists: it is used, not created, and nothing is left to move.
    const planned = await ok(t, w.token, 'cycles.create', {});
    expect(planned.startsOn).toBe(addDays(r.current.endsOn, 2));
    const r2 = await ok(t, w.token, 'cycles.rollover', {});
    expect(r2).toMatchObject({ createdNext: false, completed: null, movedIssueIds: [], current: { id: r.current.id, status: 'PLANNED' } });
  });

  it('rollover with no cycle at all creates the next one (starting today, so current by the calendar) and moves nothing', async () => {
    const w = await createWorkspace(t);
    const r = await ok(t, w.token, 'cycles.rollover', {});
    expect(r).toMatchObject({ completed: null, createdNext: true, movedIssueIds: [], current: { number: 1, status: 'ACTIVE', startsOn: today() } });
  });

  it('another workspace: 404 for its cycles and issues, nothing moves', async () => {
    const mine = await ok(t, ws.token, 'cycles.create', {});
    const issue = await ok(t, ws.token, 'issues.create', { title: 'home' });
    const theirs = await ok(t, other.token, 'cycles.create', {});
    const theirIssue = await ok(t, other.token, 'issues.create', { title: 'away' });
    expect((await rest(t, other.token, 'cycles.get', { id: mine.id })).status).toBe(404);
    expect((await rest(t, other.token, 'cycles.update', { id: mine.id, name: 'x' })).status).toBe(404);
    expect((await rest(t, other.token, 'cycles.addIssue', { cycleId: theirs.id, issueId: issue.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'cycles.addIssue', { cycleId: theirs.id, issueId: issue.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'cycles.addIssue', { cycleId: mine.id, issueId: theirIssue.id })).status).toBe(404);
    expect((await rest(t, other.token, 'cycles.plan', { cycleId: mine.id, add: [theirIssue.id] })).status).toBe(404);
    expect((await rest(t, other.token, 'cycles.removeIssue', { cycleId: mine.id, issueId: issue.id })).status).toBe(404);
    expect((await ok(t, other.token, 'cycles.list', { limit: 200 })).items.map((c: { id: string }) => c.id)).not.toContain(mine.id);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).cycleId).toBeNull();
    expect((await ok(t, other.token, 'issues.get', { id: theirIssue.id })).cycleId).toBeNull();
    expect((await ok(t, ws.token, 'cycles.get', { id: mine.id })).name).toBe(mine.name);
  });

  it('a narrowed key plans only issues it can see and cannot reschedule the workspace', async () => {
    const w = await createWorkspace(t);
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [w.id, 'Visible']);
    const projectId = rows[0].id;
    const visible = await ok(t, w.token, 'issues.create', { title: 'visible', projectId });
    const hidden = await ok(t, w.token, 'issues.create', { title: 'hidden' });
    const c = await ok(t, w.token, 'cycles.create', { activate: true });
    await ok(t, w.token, 'cycles.addIssue', { cycleId: c.id, issueId: hidden.id });
    const key = await createKey(t, w, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectId] });

    expect((await ok(t, key.token, 'cycles.addIssue', { cycleId: c.id, issueId: visible.id })).cycleId).toBe(c.id);
    expect((await rest(t, key.token, 'cycles.addIssue', { cycleId: c.id, issueId: hidden.id })).status).toBe(404);
    expect((await rest(t, key.token, 'cycles.removeIssue', { cycleId: c.id, issueId: hidden.id })).status).toBe(404);
    expect((await rest(t, key.token, 'cycles.plan', { cycleId: c.id, remove: [hidden.id] })).status).toBe(404);
    const seen = await ok(t, key.token, 'cycles.current', {});
    expect(seen).toMatchObject({ id: c.id, issueCount: 1, issues: [{ id: visible.id }] });
    for (const [tool, input] of [['cycles.create', {}], ['cycles.update', { id: c.id, name: 'x' }], ['cycles.rollover', {}]] as const) {
      const r = await rest(t, key.token, tool, input);
      expect(r.status, tool).toBe(403);
      expect(r.body.error).toBe('narrowing');
    }
    expect((await ok(t, w.token, 'cycles.current', {})).issueCount).toBe(2);
  });

  it('an agent in a RESEARCH run may not move its issue between cycles (run-mode gating)', async () => {
    const w = await createWorkspace(t);
    await createAgent(t, w, 'researcher');
    const agentKey = await createKey(t, w, { agent: 'researcher', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const issue = await ok(t, w.token, 'issues.create', { title: 'investigate' });
    await ok(t, w.token, 'issues.assign', { id: issue.id, profileKey: 'researcher', mode: 'RESEARCH' });
    const c = await ok(t, w.token, 'cycles.create', {});
    const r = await rest(t, agentKey.token, 'cycles.addIssue', { cycleId: c.id, issueId: issue.id });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('run_mode_gated');
    expect((await ok(t, w.token, 'cycles.addIssue', { cycleId: c.id, issueId: issue.id })).cycleId).toBe(c.id);
  });

  it('cycles.current over MCP: null is plain text without structuredContent', async () => {
    const w = await createWorkspace(t);
    const r = await rpc(t, w.token, 'tools/call', { name: 'cycles.current', arguments: {} });
    expect(r.body.result.content[0].text).toBe('null');
    expect(r.body.result).not.toHaveProperty('structuredContent');
    const listed = await rpc(t, w.token, 'tools/list', {}, '?profile=planning');
    expect(listed.body.result.tools.map((x: { name: string }) => x.name)).toEqual(expect.arrayContaining(['cycles.plan', 'cycles.rollover', 'initiatives.linkProject']));
  });
});
