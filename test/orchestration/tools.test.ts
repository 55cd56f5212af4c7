/** Every tool of spec 4.11 and 4.12 answers over MCP (tools/call) and REST; bad input, missing scope, another workspace, narrowed keys. */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/catalog.ts';
import { createAgent, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

const NAMESPACES = ['actionRequests', 'goals', 'plans', 'executionPlans', 'agentCrews', 'reviewGates'];
let t: TestApp;
let ws: Workspace;
let other: Workspace;
let agentId: string;

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'OTL');
  other = await createWorkspace(t, 'OTM');
  agentId = (await createAgent(t, ws, 'bot')).id;
});
afterAll(() => t.close());

/** Calls a tool over REST or JSON-RPC and returns its output (asserting success). */
async function call(via: 'rest' | 'mcp', name: string, args: object) {
  if (via === 'rest') return ok(t, ws.token, name, args);
  const r = await rpc(t, ws.token, 'tools/call', { name, arguments: args }, '?profile=full');
  expect(r.body.result?.isError, `${name}: ${JSON.stringify(r.body)}`).toBeFalsy();
  return JSON.parse(r.body.result.content[0].text);
}

describe('every tool of 4.11 and 4.12', () => {
  for (const via of ['rest', 'mcp'] as const) {
    it(`answers over ${via === 'rest' ? 'REST (POST /api/mcp/<tool>)' : 'MCP JSON-RPC tools/call'}`, async () => {
      const called = new Set<string>();
      const c = async (name: string, args: object) => { called.add(name); return call(via, name, args); };
      const issue = await ok(t, ws.token, 'issues.create', { title: `Tools over ${via}` });
      const crew = await c('agentCrews.create', { name: `Crew ${via}` });
      await c('agentCrews.update', { id: crew.id, description: 'does things', maxParallel: 2 });
      const member = await c('agentCrews.addMember', { crewId: crew.id, agentId, role: 'WORKER' });
      await c('agentCrews.setMemberRole', { memberId: member.id, role: 'REVIEWER' });
      await c('agentCrews.removeMember', { memberId: member.id });
      await c('agentCrews.list', {});
      await c('agentCrews.get', { id: crew.id });
      await c('agentCrews.archive', { id: crew.id });
      await c('agentCrews.unarchive', { id: crew.id });

      const goal = await c('goals.create', { title: `Goal ${via}`, issueId: issue.id });
      await c('goals.list', {});
      const dec = await c('plans.decompose', { goalId: goal.id, plannerAgentId: agentId });
      await c('plans.addSteps', { planId: dec.planId, steps: [{ title: 'one' }, { title: 'two', dependsOnStepIndexes: [0] }] });
      const appr = await c('plans.requestApproval', { planId: dec.planId });
      await c('actionRequests.decline', { id: appr.actionRequestId });
      await c('executionPlans.transition', { id: dec.planId, status: 'APPROVED' });
      await c('plans.activate', { planId: dec.planId });
      const plan = await c('executionPlans.get', { id: dec.planId });
      await c('executionPlans.list', { goalId: goal.id });
      await c('executionPlans.transitionStep', { stepId: plan.steps[0].id, status: 'REVIEW' });
      await c('plans.judge', { stepId: plan.steps[0].id, judgeAgentId: agentId });
      await c('plans.recordVerdict', { stepId: plan.steps[0].id, verdict: 'PASS', feedback: 'ok' });
      const gate = await c('reviewGates.open', { planId: dec.planId, stepId: plan.steps[1].id });
      await c('reviewGates.list', { planId: dec.planId });
      await c('reviewGates.get', { id: gate.id });
      await c('reviewGates.resolve', { id: gate.id, decision: 'APPROVE' });
      await c('goals.get', { id: goal.id });
      await c('goals.update', { id: goal.id, description: 'the why' });
      await c('goals.abandon', { id: goal.id, reason: 'done testing' });
      const second = await c('goals.create', { title: `Second ${via}` });
      await c('executionPlans.create', { goalId: second.id, steps: [{ title: 'x' }] });

      const req = await c('actionRequests.create', { title: 'Poll', options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
      await c('actionRequests.vote', { id: req.id, optionKey: 'b' });
      await c('actionRequests.results', { id: req.id });
      await c('actionRequests.get', { id: req.id });
      await c('actionRequests.update', { id: req.id, title: 'Poll (renamed)' });
      await c('actionRequests.closeVoting', { id: req.id });
      await c('actionRequests.transition', { id: req.id, status: 'SNOOZED' });
      await c('actionRequests.accept', { id: req.id });
      await c('actionRequests.list', {});

      const expected = TOOLS.filter((x) => NAMESPACES.includes(x.namespace)).map((x) => x.name).sort();
      expect([...called].sort()).toEqual(expected);
      expect(expected).toHaveLength(10 + 5 + 6 + 5 + 9 + 4);
    });
  }

  it('bad input is a 400 naming the field; a dependency cycle is a 400', async () => {
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Cycles' });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id });
    const cycle = await rest(t, ws.token, 'plans.addSteps', { planId: plan.id, steps: [
      { title: 'a', dependsOnStepIndexes: [2] }, { title: 'b', dependsOnStepIndexes: [0] }, { title: 'c', dependsOnStepIndexes: [1] }, { title: 'd' }] });
    expect([cycle.status, cycle.body.issues]).toEqual([400, { 'steps.0.dependsOnStepIndexes': 'the dependencies make a cycle (steps 0, 1, 2)' }]);
    const self = await rest(t, ws.token, 'plans.addSteps', { planId: plan.id, steps: [{ title: 'a', dependsOnStepIndexes: [0] }] });
    expect(Object.keys(self.body.issues)).toEqual(['steps.0.dependsOnStepIndexes']);
    const range = await rest(t, ws.token, 'plans.addSteps', { planId: plan.id, steps: [{ title: 'a' }, { title: 'b', dependsOnStepIndexes: [5] }] });
    expect(Object.keys(range.body.issues)).toEqual(['steps.1.dependsOnStepIndexes']);
    // A 404 says which input named the missing record.
    const nobody = await rest(t, ws.token, 'plans.addSteps', { planId: plan.id, steps: [{ title: 'a' }, { title: 'b', assignedAgentId: crypto.randomUUID() }] });
    expect([nobody.status, nobody.body.field]).toEqual([404, 'steps.1.assignedAgentId']);
    expect((await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).steps).toEqual([]);  // nothing was added
    // An index listed twice is one dependency, not a cycle.
    const twicePlan = await ok(t, ws.token, 'executionPlans.create', { goalId: (await ok(t, ws.token, 'goals.create', { title: 'Twice' })).id });
    const twice = await ok(t, ws.token, 'plans.addSteps', { planId: twicePlan.id, steps: [
      { title: 'a' }, { title: 'b', dependsOnStepIndexes: [0, 0] }, { title: 'c', dependsOnStepIndexes: [0, 1, 0] }] });
    const [a, b] = twice.stepIds;
    expect((await ok(t, ws.token, 'executionPlans.get', { id: twicePlan.id })).steps.map((s: { dependsOnStepIds: string[] }) => s.dependsOnStepIds.sort()))
      .toEqual([[], [a], [a, b].sort()]);
    for (const [tool, args, field] of [
      ['goals.create', { title: '' }, 'title'],
      ['goals.create', { title: 'x', maxTotalCostUsd: -1 }, 'maxTotalCostUsd'],
      ['goals.get', { id: 'nope' }, 'id'],
      ['plans.recordVerdict', { stepId: plan.id, verdict: 'MAYBE', feedback: '' }, 'verdict'],
      // A FAIL with no feedback sent its worker back with nothing to act on; a note on a move other than BLOCKED was dropped.
      ['plans.recordVerdict', { stepId: plan.id, verdict: 'FAIL', feedback: '  ' }, 'feedback'],
      ['plans.recordVerdict', { stepId: plan.id, verdict: 'FAIL', feedback: '\u00a0\u200b' }, 'feedback'],
      ['executionPlans.transitionStep', { stepId: plan.id, status: 'RUNNING', note: 'started' }, 'note'],
      ['executionPlans.transition', { id: plan.id, status: 'TODO' }, 'status'],
      ['agentCrews.create', { name: 'x', members: [{ agentId, role: 'BOSS' }] }, 'members.0.role'],
      ['reviewGates.resolve', { id: plan.id, decision: 'MAYBE' }, 'decision'],
      ['goals.list', { statusX: 'OPEN' }, 'statusX'],
    ] as const) {
      const r = await rest(t, ws.token, tool, args);
      expect([tool, r.status, Object.keys(r.body.issues ?? {})]).toEqual([tool, 400, [field]]);
    }
    // Illegal moves are 409.
    for (const status of ['BLOCKED', 'COMPLETED']) {
      // A DRAFT plan is not completed: said as an illegal move, not as "steps still open".
      const r = await rest(t, ws.token, 'executionPlans.transition', { id: plan.id, status });
      expect([status, r.status, r.body.error]).toEqual([status, 409, 'illegal_transition']);
    }
    expect((await rest(t, ws.token, 'plans.activate', { planId: plan.id })).body.error).toBe('plan_empty');
  });

  it('missing scope: 403 scope_required (ADMIN for crew changes, WRITE_ISSUES for loop mutations)', async () => {
    const writer = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const reader = await createKey(t, ws, { scopes: ['READ_PROJECTS'] });
    for (const [key, tool, args, scope] of [
      [writer, 'agentCrews.create', { name: 'x' }, 'ADMIN'],
      [writer, 'agentCrews.archive', { id: agentId }, 'ADMIN'],
      [reader, 'goals.create', { title: 'x' }, 'WRITE_ISSUES'],
      [reader, 'goals.list', {}, 'READ_ISSUES'],
      [reader, 'reviewGates.resolve', { id: agentId, decision: 'APPROVE' }, 'WRITE_ISSUES'],
      [reader, 'actionRequests.list', {}, 'READ_ISSUES'],
    ] as const) {
      const r = await rest(t, key.token, tool, args);
      expect([tool, r.status, r.body.error, r.body.scope]).toEqual([tool, 403, 'scope_required', scope]);
    }
    expect((await ok(t, writer.token, 'agentCrews.list', {})).items).toBeDefined();
  });

  it('goals.update changes title and description with GOAL_UPDATED; no change, no event; a closed goal is 409 goal_closed', async () => {
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Ship it', description: 'draft' });
    const u = await ok(t, ws.token, 'goals.update', { id: goal.id, title: 'Ship it well', description: null });
    expect(u).toMatchObject({ id: goal.id, title: 'Ship it well', description: null, status: 'OPEN' });
    const events = async () => (await ok(t, ws.token, 'events.recent', { subjectType: 'goal', subjectId: goal.id })).items;
    expect((await events()).map((e: any) => [e.kind, e.payload.changes])).toEqual([['GOAL_UPDATED', ['title', 'description']], ['GOAL_CREATED', undefined]]);
    await ok(t, ws.token, 'goals.update', { id: goal.id, title: 'Ship it well' });
    expect(await events()).toHaveLength(2);
    expect((await rest(t, ws.token, 'goals.update', { id: goal.id, title: '  ' })).body.issues).toHaveProperty('title');
    await ok(t, ws.token, 'goals.abandon', { id: goal.id });
    const closed = await rest(t, ws.token, 'goals.update', { id: goal.id, title: 'Revived' });
    expect([closed.status, closed.body.error]).toEqual([409, 'goal_closed']);
    // GOAL_UPDATED is the goals trigger's alone: a review gate written without a status move records nothing.
    const other = await ok(t, ws.token, 'goals.create', { title: 'Gated' });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: other.id, steps: [{ title: 's' }] });
    await ok(t, ws.token, 'executionPlans.transition', { id: plan.id, status: 'APPROVED' });
    await ok(t, ws.token, 'plans.activate', { planId: plan.id });
    const gate = await ok(t, ws.token, 'reviewGates.open', { planId: plan.id });
    const before = (await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id;
    await t.pools.owner.query('update app_public.review_gates set status = status, title = title where id = $1', [gate.id]);
    expect((await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id).toBe(before);
  });

  it('another workspace sees nothing and reaches nothing (404)', async () => {
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Private goal' });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id, steps: [{ title: 's' }] });
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Private crew' });
    for (const [tool, args] of [
      ['goals.get', { id: goal.id }], ['goals.abandon', { id: goal.id }], ['goals.update', { id: goal.id, title: 'theirs' }],
      ['plans.decompose', { goalId: goal.id }],
      ['plans.addSteps', { planId: plan.id, steps: [{ title: 'x' }] }], ['executionPlans.get', { id: plan.id }],
      ['executionPlans.transitionStep', { stepId: plan.steps[0].id, status: 'DONE' }], ['reviewGates.open', { planId: plan.id }],
      ['agentCrews.update', { id: crew.id, name: 'mine' }], ['goals.create', { title: 'x', crewId: crew.id }],
    ] as const) {
      const r = await rest(t, other.token, tool, args);
      expect([tool, r.status]).toEqual([tool, 404]);
    }
    for (const tool of ['goals.list', 'executionPlans.list', 'reviewGates.list', 'agentCrews.list']) {
      expect((await ok(t, other.token, tool, {})).items).toEqual([]);
    }
    // A list filtered by an id of another workspace (or of none) is 404 on that field, as every list's filter by id,
    // not an empty page (a typo looked like "nothing yet").
    await ok(t, ws.token, 'goals.list', { crewId: crew.id });
    for (const id of [crew.id, crypto.randomUUID()]) {
      const r = await rest(t, other.token, 'goals.list', { crewId: id });
      expect([r.status, r.body.field]).toEqual([404, 'crewId']);
    }
    for (const [tool, field, id] of [['executionPlans.list', 'goalId', goal.id], ['reviewGates.list', 'goalId', goal.id],
                                     ['reviewGates.list', 'planId', plan.id]] as const) {
      for (const value of [id, crypto.randomUUID()]) {
        const r = await rest(t, other.token, tool, { [field]: value });
        expect([tool, r.status, r.body.field]).toEqual([tool, 404, field]);
      }
      await ok(t, ws.token, tool, { [field]: id }); // its own workspace's key lists by it
    }
    const events = await ok(t, other.token, 'events.recent', { limit: 200 });
    expect(events.items.filter((e: any) => e.subjectId === goal.id)).toEqual([]);
  });

  it('narrowed keys: a goal follows its issue; goals without an issue are workspace-wide (hidden, 403 to create)', async () => {
    const label = await ok(t, ws.token, 'labels.create', { name: 'team-a' });
    const seen = await ok(t, ws.token, 'issues.create', { title: 'Seen', labelIds: [label.id] });
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden' });
    const gSeen = await ok(t, ws.token, 'goals.create', { title: 'On seen', issueId: seen.id });
    const gHidden = await ok(t, ws.token, 'goals.create', { title: 'On hidden', issueId: hidden.id });
    const gNone = await ok(t, ws.token, 'goals.create', { title: 'No issue' });
    const narrowed = await createKey(t, ws, { labels: [label.id], scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const ids = (await ok(t, narrowed.token, 'goals.list', { limit: 200 })).items.map((g: any) => g.id);
    expect(ids).toContain(gSeen.id);
    expect(ids).not.toContain(gHidden.id);
    expect(ids).not.toContain(gNone.id);
    expect((await rest(t, narrowed.token, 'goals.get', { id: gHidden.id })).status).toBe(404);
    expect((await rest(t, narrowed.token, 'goals.update', { id: gHidden.id, title: 'x' })).status).toBe(404);
    expect((await ok(t, narrowed.token, 'goals.update', { id: gSeen.id, title: 'On seen, renamed' })).title).toBe('On seen, renamed');
    expect((await rest(t, narrowed.token, 'plans.decompose', { goalId: gNone.id })).status).toBe(404);
    expect((await rest(t, narrowed.token, 'goals.create', { title: 'x' })).body.error).toBe('narrowing');
    expect((await rest(t, narrowed.token, 'goals.create', { title: 'x', issueId: hidden.id })).status).toBe(404);
    const dec = await ok(t, narrowed.token, 'plans.decompose', { goalId: gSeen.id });
    expect(dec.status).toBe('PLANNING');
    const ev = await ok(t, narrowed.token, 'events.recent', { limit: 200 });
    const subjects = new Set(ev.items.map((e: any) => e.subjectId));
    expect(subjects.has(gSeen.id)).toBe(true);
    expect(subjects.has(gHidden.id)).toBe(false);
    expect(subjects.has(gNone.id)).toBe(false);
    // Crews serve every goal, hidden ones included: a narrowed key may read them, not change them (even with ADMIN).
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Narrowing crew' });
    const admin = await createKey(t, ws, { labels: [label.id], scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'ADMIN'] });
    expect((await ok(t, admin.token, 'agentCrews.get', { id: crew.id })).name).toBe('Narrowing crew');
    const crewAgent = await createAgent(t, ws, 'crew-narrowing');
    const member = await ok(t, ws.token, 'agentCrews.addMember', { crewId: crew.id, agentId: crewAgent.id, role: 'WORKER' });
    for (const [tool, input] of [['agentCrews.create', { name: 'x' }], ['agentCrews.update', { id: crew.id, name: 'x' }],
      ['agentCrews.archive', { id: crew.id }], ['agentCrews.unarchive', { id: crew.id }],
      ['agentCrews.addMember', { crewId: crew.id, agentId: crewAgent.id, role: 'REVIEWER' }],
      ['agentCrews.setMemberRole', { memberId: member.id, role: 'OBSERVER' }], ['agentCrews.removeMember', { memberId: member.id }]] as const) {
      const r = await rest(t, admin.token, tool, input);
      expect([tool, r.status, r.body.error]).toEqual([tool, 403, 'narrowing']);
    }
    expect((await ok(t, ws.token, 'agentCrews.get', { id: crew.id })).name).toBe('Narrowing crew');
    // Adds of one agent at once: one lands, every other is already_member (losers of the race got the generic 409).
    const racer = await createAgent(t, ws, 'crew-racer');
    const adds = await Promise.all(Array.from({ length: 6 }, () => rest(t, ws.token, 'agentCrews.addMember', { crewId: crew.id, agentId: racer.id, role: 'WORKER' })));
    expect(adds.map((r) => r.status === 200 ? 'added' : r.body.error).sort()).toEqual(['added', ...Array(5).fill('already_member')]);
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await rpc(t, admin.token, 'tools/list', cursor ? { cursor } : {}, '?profile=full')).body.result;
      listed.push(...page.tools.map((x: { name: string }) => x.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed).toContain('agentCrews.get');
    expect(listed).not.toContain('agentCrews.create');
  });
});
