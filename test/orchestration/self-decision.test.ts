/**
 * From an outside probe of the agents' working day: nobody decides what they asked for or judges their own work,
 * an archived agent's plan steps go to a live crew member, a report on a STALLED run says ACTIVE, and ISSUE_STALLED
 * is not dispatched to an agent that waits on someone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let planner: { id: string }, worker: { id: string }, spare: { id: string }, reviewer: { id: string };
let plannerKey: { token: string }, workerKey: { token: string };
let crewId: string;
let doneStatus: string;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'SLF');
  planner = await createAgent(t, ws, 'planner');
  worker = await createAgent(t, ws, 'worker');
  spare = await createAgent(t, ws, 'spare');
  reviewer = await createAgent(t, ws, 'reviewer');
  plannerKey = await createKey(t, ws, { agent: 'planner' });
  workerKey = await createKey(t, ws, { agent: 'worker' });
  crewId = (await ok(t, ws.token, 'agentCrews.create', { name: 'Crew', members: [
    { agentId: planner.id, role: 'PLANNER' }, { agentId: worker.id, role: 'WORKER' }, { agentId: spare.id, role: 'WORKER' },
    { agentId: reviewer.id, role: 'REVIEWER' }] })).id;
  doneStatus = (await ok(t, ws.token, 'statuses.list', {})).find((s: { category: string }) => s.category === 'DONE').id;
});
afterAll(() => t.close());

/** A goal on a new issue with a DRAFT plan of one step given to `assignee`. */
async function draftPlan(assignee: string) {
  const issue = await ok(t, ws.token, 'issues.create', { title: 'Goal issue' });
  const goal = await ok(t, ws.token, 'goals.create', { title: 'Goal', issueId: issue.id, crewId });
  const plan = await ok(t, ws.token, 'plans.decompose', { goalId: goal.id });
  const { stepIds } = await ok(t, ws.token, 'plans.addSteps', { planId: plan.planId, steps: [{ title: 'Work', assignedAgentId: assignee }] });
  return { issue, goal, planId: plan.planId as string, stepId: stepIds[0] as string };
}

describe('nobody decides their own action request', () => {
  it('a worker cannot accept or resolve the move it asked of itself; it may withdraw it; an OWNER may decide their own', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Self-assigned move' });
    const req = await ok(t, workerKey.token, 'actionRequests.create', {
      title: 'Close it', issueId: issue.id, kind: 'TRANSITION', payload: { statusId: doneStatus }, assignedAgentId: worker.id });
    for (const [tool, args] of [['actionRequests.accept', { id: req.id }], ['actionRequests.decline', { id: req.id }],
      ['actionRequests.transition', { id: req.id, status: 'RESOLVED' }]] as const) {
      const r = await rest(t, workerKey.token, tool, args);
      expect([tool, r.status, r.body.error]).toEqual([tool, 403, 'own_request']);
    }
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).status.category).not.toBe('DONE');
    // The board offers it no buttons (viewerMayDecide), though it is the assignee.
    const mayDecide = async (token: string) => (await gqlOk(t, token,
      'query($id: UUID!) { actionRequests(condition: {rowId: $id}) { nodes { viewerMayDecide } } }', { id: req.id })).actionRequests.nodes[0].viewerMayDecide;
    expect([await mayDecide(workerKey.token), await mayDecide(ws.token)]).toEqual([false, true]);
    expect((await ok(t, workerKey.token, 'actionRequests.transition', { id: req.id, status: 'DISMISSED' })).status).toBe('DISMISSED');
    // A workspace OWNER person decides a request they raised (they could make the change directly).
    const own = await ok(t, ws.token, 'actionRequests.create', { title: 'Mine', issueId: issue.id, kind: 'TRANSITION', payload: { statusId: doneStatus } });
    expect((await ok(t, ws.token, 'actionRequests.accept', { id: own.id })).status).toBe('RESOLVED');
  });

  it('a planner cannot approve its own plan, as a watcher of the goal\'s issue or by activating it; the owner can', async () => {
    const { issue, planId } = await draftPlan(worker.id);
    const { actionRequestId } = await ok(t, plannerKey.token, 'plans.requestApproval', { planId });
    await ok(t, plannerKey.token, 'issues.watch', { issueId: issue.id });
    const accept = await rest(t, plannerKey.token, 'actionRequests.accept', { id: actionRequestId });
    expect([accept.status, accept.body.error]).toEqual([403, 'own_request']);
    const activate = await rest(t, plannerKey.token, 'plans.activate', { planId });
    expect([activate.status, activate.body.error]).toEqual([403, 'own_request']);
    // Nor by moving the plan itself (executionPlans.transition APPROVED or RUNNING).
    for (const status of ['APPROVED', 'RUNNING']) {
      const moved = await rest(t, plannerKey.token, 'executionPlans.transition', { id: planId, status });
      expect([status, moved.status, moved.body.error]).toEqual([status, 403, 'own_request']);
    }
    // Nor once its request is declined, withdrawn or superseded (addSteps) without being accepted.
    for (const end of ['decline', 'withdraw', 'supersede'] as const) {
      const other = await draftPlan(worker.id);
      const asked = await ok(t, plannerKey.token, 'plans.requestApproval', { planId: other.planId });
      if (end === 'decline') await ok(t, ws.token, 'actionRequests.decline', { id: asked.actionRequestId });
      if (end === 'withdraw') await ok(t, plannerKey.token, 'actionRequests.transition', { id: asked.actionRequestId, status: 'DISMISSED' });
      if (end === 'supersede') await ok(t, plannerKey.token, 'plans.addSteps', { planId: other.planId, steps: [{ title: 'More' }] });
      const run = await rest(t, plannerKey.token, 'plans.activate', { planId: other.planId });
      expect([end, run.status]).toEqual([end, 403]);
    }
    // Nor through a worker of the plan it re-points the request at (403 own_plan), whose board shows no buttons.
    await ok(t, plannerKey.token, 'actionRequests.update', { id: actionRequestId, assignedAgentId: worker.id });
    const byWorker = await rest(t, workerKey.token, 'actionRequests.accept', { id: actionRequestId });
    expect([byWorker.status, byWorker.body.error]).toEqual([403, 'own_plan']);
    expect((await gqlOk(t, workerKey.token, 'query($id: UUID!) { actionRequests(condition: {rowId: $id}) { nodes { viewerMayDecide } } }',
      { id: actionRequestId })).actionRequests.nodes[0].viewerMayDecide).toBe(false);
    // A watcher that is not the requester may activate it (it could accept the request); here the owner does.
    expect((await ok(t, ws.token, 'plans.activate', { planId })).ok).toBe(true);
    expect((await ok(t, ws.token, 'actionRequests.get', { id: actionRequestId })).status).toBe('SUPERSEDED');
  });
});

describe('a step\'s worker does not judge its own work', () => {
  it('plans.judge naming itself and REVIEW → DONE by the worker are 403 own_step; the reviewer passes it', async () => {
    const { planId, stepId } = await draftPlan(worker.id);
    await ok(t, ws.token, 'plans.activate', { planId });
    await ok(t, workerKey.token, 'executionPlans.transitionStep', { stepId, status: 'REVIEW' });
    const judge = await rest(t, workerKey.token, 'plans.judge', { stepId, judgeAgentId: worker.id });
    expect([judge.status, judge.body.error]).toEqual([403, 'own_step']);
    const done = await rest(t, workerKey.token, 'executionPlans.transitionStep', { stepId, status: 'DONE' });
    expect([done.status, done.body.error]).toEqual([403, 'own_step']);
    // Nor around the review: back to READY, then DONE (the crew has a REVIEWER, so the plan judges its steps).
    await ok(t, workerKey.token, 'executionPlans.transitionStep', { stepId, status: 'READY' });
    const around = await rest(t, workerKey.token, 'executionPlans.transitionStep', { stepId, status: 'DONE' });
    expect([around.status, around.body.error]).toEqual([403, 'own_step']);
    await ok(t, workerKey.token, 'executionPlans.transitionStep', { stepId, status: 'REVIEW' });
    // Nor does a fellow worker pass it, nor the worker cancel it.
    const spareKey = await createKey(t, ws, { agent: 'spare' });
    const fellow = await rest(t, spareKey.token, 'executionPlans.transitionStep', { stepId, status: 'DONE' });
    expect([fellow.status, fellow.body.error]).toEqual([403, 'not_judge']);
    const cancel = await rest(t, workerKey.token, 'executionPlans.transitionStep', { stepId, status: 'CANCELED' });
    expect([cancel.status, cancel.body.error]).toEqual([403, 'own_step']);
    // Nor does a fellow worker or the planner record its verdict, or choose its judge (one named the worker, who
    // then passed its own step).
    for (const [key, refusal] of [[spareKey, 'own_step'], [plannerKey, 'own_plan']] as const) {
      const verdict = await rest(t, key.token, 'plans.recordVerdict', { stepId, verdict: 'PASS', feedback: 'Looks right to me' });
      expect([verdict.status, verdict.body.error]).toEqual([403, 'not_judge']);
      const named = await rest(t, key.token, 'plans.judge', { stepId, judgeAgentId: worker.id });
      expect([named.status, named.body.error]).toEqual([403, refusal]);
    }
    expect((await ok(t, workerKey.token, 'plans.judge', { stepId })).judgeAgentId).toBe(reviewer.id);
    const reviewerKey = await createKey(t, ws, { agent: 'reviewer' });
    expect((await ok(t, reviewerKey.token, 'plans.recordVerdict', { stepId, verdict: 'PASS', feedback: 'Looks right' })).outcome).toBeTruthy();
  });
});

describe('an agent of a plan moves only its own steps', () => {
  it('a fellow worker does not block, start or send to review another\'s step (403 own_plan); the planner and a person may', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Two workers' });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Two workers', issueId: issue.id, crewId });
    const { planId } = await ok(t, plannerKey.token, 'plans.decompose', { goalId: goal.id });
    const { stepIds: [mine, theirs] } = await ok(t, plannerKey.token, 'plans.addSteps', { planId, steps: [
      { title: 'Mine', assignedAgentId: worker.id }, { title: 'Theirs', assignedAgentId: spare.id }] });
    await ok(t, ws.token, 'plans.activate', { planId });
    // A fellow worker's BLOCKED opened a gate on another's step that only a person could clear.
    for (const status of ['BLOCKED', 'RUNNING', 'REVIEW', 'READY']) {
      const r = await rest(t, workerKey.token, 'executionPlans.transitionStep', { stepId: theirs, status });
      expect([status, r.status, r.body.error]).toEqual([status, 403, 'own_plan']);
    }
    const plan = await ok(t, ws.token, 'executionPlans.get', { id: planId });
    expect([plan.steps.find((s: { id: string }) => s.id === theirs).status, plan.gates]).toEqual(['READY', []]);
    expect((await ok(t, workerKey.token, 'executionPlans.transitionStep', { stepId: mine, status: 'RUNNING' })).step.status).toBe('RUNNING');
    expect((await ok(t, plannerKey.token, 'executionPlans.transitionStep', { stepId: theirs, status: 'RUNNING' })).step.status).toBe('RUNNING');
    expect((await ok(t, ws.token, 'executionPlans.transitionStep', { stepId: theirs, status: 'READY' })).step.status).toBe('READY');
    // Nor does it hold another's step or the plan behind a gate only a person clears; its own step it may.
    for (const [tool, args] of [['reviewGates.open', { planId, stepId: theirs }], ['reviewGates.open', { planId }],
      ['executionPlans.transition', { id: planId, status: 'BLOCKED' }]] as const) {
      const r = await rest(t, workerKey.token, tool, args);
      expect([tool, r.status, r.body.error]).toEqual([tool, 403, 'own_plan']);
    }
    expect((await ok(t, ws.token, 'executionPlans.get', { id: planId })).gates).toEqual([]);
    expect((await ok(t, workerKey.token, 'reviewGates.open', { planId, stepId: mine })).status).toBe('PENDING');
    expect((await ok(t, plannerKey.token, 'reviewGates.open', { planId, stepId: theirs })).status).toBe('PENDING');
  });
});

describe('no agent of a plan ends the work a review gate holds', () => {
  it('a fellow worker, the step\'s worker and the planner do not cancel a blocked step, the plan or the goal; a person does', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Gated goal' });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Gated', issueId: issue.id, crewId });
    const { planId } = await ok(t, plannerKey.token, 'plans.decompose', { goalId: goal.id });
    const { stepIds: [mine, theirs] } = await ok(t, plannerKey.token, 'plans.addSteps', { planId, steps: [
      { title: 'Mine', assignedAgentId: worker.id }, { title: 'Theirs', assignedAgentId: spare.id }] });
    await ok(t, ws.token, 'plans.activate', { planId });
    const spareKey = await createKey(t, ws, { agent: 'spare' });
    const { gateId } = await ok(t, spareKey.token, 'executionPlans.transitionStep', { stepId: theirs, status: 'BLOCKED', note: 'stuck' });
    expect(gateId).toBeTruthy();
    const refused = async (token: string, tool: string, args: object) => {
      const r = await rest(t, token, tool, args);
      return [tool, r.status, r.body.error];
    };
    // A fellow worker canceling the blocked step completed the plan and achieved the goal around the gate.
    expect(await refused(workerKey.token, 'executionPlans.transitionStep', { stepId: theirs, status: 'CANCELED' }))
      .toEqual(['executionPlans.transitionStep', 403, 'own_plan']);
    expect(await refused(spareKey.token, 'executionPlans.transitionStep', { stepId: theirs, status: 'CANCELED' }))
      .toEqual(['executionPlans.transitionStep', 403, 'own_step']);
    // The planner may cancel steps, but not one a pending gate holds: that decides the gate.
    expect(await refused(plannerKey.token, 'executionPlans.transitionStep', { stepId: theirs, status: 'CANCELED' }))
      .toEqual(['executionPlans.transitionStep', 403, 'own_plan']);
    for (const key of [workerKey, spareKey, plannerKey]) {
      expect(await refused(key.token, 'executionPlans.transition', { id: planId, status: 'CANCELED' })).toEqual(['executionPlans.transition', 403, 'own_plan']);
      expect(await refused(key.token, 'goals.abandon', { id: goal.id })).toEqual(['goals.abandon', 403, 'own_plan']);
      expect(await refused(key.token, 'plans.decompose', { goalId: goal.id })).toEqual(['plans.decompose', 403, 'own_plan']);
    }
    const held = await ok(t, ws.token, 'executionPlans.get', { id: planId });
    expect([held.status, held.gates.map((g: { status: string }) => g.status)]).toEqual(['RUNNING', ['PENDING']]);
    // A person cancels the step (and its gate); the plan runs on with the other step.
    const canceled = await ok(t, ws.token, 'executionPlans.transitionStep', { stepId: theirs, status: 'CANCELED' });
    expect([canceled.step.status, canceled.planStatus, canceled.goalStatus]).toEqual(['CANCELED', 'RUNNING', 'ACTIVE']);
    // With no gate pending, a worker still does not end the plan; its planner may.
    expect(await refused(workerKey.token, 'executionPlans.transition', { id: planId, status: 'CANCELED' })).toEqual(['executionPlans.transition', 403, 'own_plan']);
    expect(await refused(workerKey.token, 'executionPlans.transitionStep', { stepId: mine, status: 'CANCELED' })).toEqual(['executionPlans.transitionStep', 403, 'own_step']);
    expect((await ok(t, plannerKey.token, 'executionPlans.transition', { id: planId, status: 'CANCELED' })).status).toBe('CANCELED');
  });

  it('nor around the rules: a worker changes no crew of its live plan, and an agent key mints no plugin key to act as a person', async () => {
    const { planId } = await draftPlan(worker.id);
    await ok(t, ws.token, 'plans.activate', { planId });
    const crew = await ok(t, ws.token, 'agentCrews.get', { id: crewId });
    const reviewerMember = crew.members.find((m: { agentId: string }) => m.agentId === reviewer.id);
    // Removing or demoting the REVIEWER made the plan stop judging its steps, and the worker passed its own.
    for (const [tool, args] of [['agentCrews.removeMember', { memberId: reviewerMember.id }], ['agentCrews.setMemberRole', { memberId: reviewerMember.id, role: 'WORKER' }],
      ['agentCrews.addMember', { crewId, agentId: planner.id, role: 'WORKER' }], ['agentCrews.archive', { id: crewId }]] as const) {
      const r = await rest(t, workerKey.token, tool, args);
      expect([tool, r.status, r.body.error]).toEqual([tool, 403, 'own_plan']);
    }
    // An agent's key (made for the OWNER, every scope) created a plugin and issued itself its key: a key with no agent.
    const made = await gql(t, workerKey.token, 'mutation { pluginsCreate(input: {name: "Mine", scopes: [FULL]}) { pluginInfo { rowId } } }');
    expect(made.errors?.[0]?.extensions).toMatchObject({ code: 'user_key_required', status: 403 });
    const plugin = (await gqlOk(t, ws.token, 'mutation { pluginsCreate(input: {name: "Theirs", scopes: [READ_ISSUES]}) { pluginInfo { rowId } } }')).pluginsCreate.pluginInfo;
    const issued = await gql(t, workerKey.token, `mutation { pluginIssueApiKey(input: {pluginId: "${plugin.rowId}", scopes: [READ_ISSUES]}) { clientMutationId } }`);
    expect(issued.errors?.[0]?.extensions).toMatchObject({ code: 'user_key_required', status: 403 });
    // A person's archive of the crew is not undone by a worker of its live plan either.
    await ok(t, ws.token, 'agentCrews.archive', { id: crewId });
    const back = await rest(t, workerKey.token, 'agentCrews.unarchive', { id: crewId });
    expect([back.status, back.body.error]).toEqual([403, 'own_plan']);
    await ok(t, ws.token, 'agentCrews.unarchive', { id: crewId });
  });
});

describe('steps given by the crew', () => {
  it('go to the worker with the fewest open runs: root steps at positions 0 and 2 do not both go to the first of two', async () => {
    const [one, two] = [await createAgent(t, ws, 'spread-one'), await createAgent(t, ws, 'spread-two')];
    const crew = (await ok(t, ws.token, 'agentCrews.create', { name: 'Spread', members: [
      { agentId: one.id, role: 'WORKER' }, { agentId: two.id, role: 'WORKER' }] })).id;
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Spread goal' });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Spread', issueId: issue.id, crewId: crew });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id, steps: [
      { title: 'Root A' }, { title: 'After A', dependsOnStepIndexes: [0] }, { title: 'Root B' }] });
    await ok(t, ws.token, 'plans.activate', { planId: plan.id });
    const steps = (await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).steps;
    const given = steps.filter((x: { status: string }) => x.status === 'READY').map((x: { assignedAgentId: string }) => x.assignedAgentId);
    expect(given.sort()).toEqual([one.id, two.id].sort());
  });

  it('count the steps given to a member too: a goal without an issue opens no step runs, and both roots went to one', async () => {
    const [one, two] = [await createAgent(t, ws, 'spread-three'), await createAgent(t, ws, 'spread-four')];
    const crew = (await ok(t, ws.token, 'agentCrews.create', { name: 'Spread, no issue', members: [
      { agentId: one.id, role: 'WORKER' }, { agentId: two.id, role: 'WORKER' }] })).id;
    const goal = await ok(t, ws.token, 'goals.create', { title: 'No issue', crewId: crew });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id, steps: [
      { title: 'Root A' }, { title: 'After A', dependsOnStepIndexes: [0] }, { title: 'Root B' }] });
    await ok(t, ws.token, 'plans.activate', { planId: plan.id });
    const steps = (await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).steps;
    const given = steps.filter((x: { status: string }) => x.status === 'READY').map((x: { assignedAgentId: string }) => x.assignedAgentId);
    expect(given.sort()).toEqual([one.id, two.id].sort());
  });
});

describe('archiving an agent', () => {
  it('passes its READY and RUNNING plan steps to a live crew member in their role, with a new run and EXECUTION_STEP_READY', async () => {
    const temp = await createAgent(t, ws, 'temp');
    await ok(t, ws.token, 'agentCrews.addMember', { crewId, agentId: temp.id, role: 'WORKER' });
    const ready = await draftPlan(temp.id);
    await ok(t, ws.token, 'plans.activate', { planId: ready.planId });
    const running = await draftPlan(temp.id);
    await ok(t, ws.token, 'plans.activate', { planId: running.planId });
    await ok(t, ws.token, 'executionPlans.transitionStep', { stepId: running.stepId, status: 'RUNNING' });
    await admin(t, 'archive-agent', { workspace: ws.key, agent: 'temp', json: true });
    for (const { planId, stepId } of [ready, running]) {
      const step = (await ok(t, ws.token, 'executionPlans.get', { id: planId })).steps.find((s: { id: string }) => s.id === stepId);
      expect(step.status).toBe('READY');
      expect([worker.id, spare.id]).toContain(step.assignedAgentId);
      const runs = (await t.pools.owner.query('select agent_id, status from app_public.agent_runs where step_id = $1 order by started_at', [stepId])).rows;
      expect(runs).toEqual([{ agent_id: temp.id, status: 'ABANDONED' }, { agent_id: step.assignedAgentId, status: 'ACTIVE' }]);
      const { rows } = await t.pools.owner.query(
        `select payload->>'assignedAgentId' as agent from app_public.activity_events
          where subject_id = $1 and kind = 'EXECUTION_STEP_READY' order by seq desc limit 1`, [stepId]);
      expect(rows[0].agent).toBe(step.assignedAgentId);
    }
  });
});

describe('runs', () => {
  it('a report on a STALLED run answers ACTIVE, and its AGENT_RUN_UPDATED says ACTIVE after the move back', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Stalls' });
    const run = (await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: worker.id })).currentRun;
    await t.pools.owner.query(`update app_public.agent_runs set status = 'STALLED' where id = $1`, [run.id]);
    const seq = Number((await t.pools.owner.query('select max(seq) s from app_public.activity_events')).rows[0].s);
    const reported = await ok(t, workerKey.token, 'runs.recordUsage', { runId: run.id, tokensIn: 7, currentStep: 'still working' });
    expect(reported.status).toBe('ACTIVE');
    const { rows } = await t.pools.owner.query(
      `select kind, payload->>'to' as "to", payload->>'status' as status from app_public.activity_events
        where workspace_id = $1 and seq > $2 order by seq`, [ws.id, seq]);
    expect(rows).toEqual([{ kind: 'AGENT_RUN_STATUS_CHANGED', to: 'ACTIVE', status: null }, { kind: 'AGENT_RUN_UPDATED', to: null, status: 'ACTIVE' }]);
  });

  it('ISSUE_STALLED is written but not dispatched to an agent whose run waits on someone', async () => {
    const hooked = await createAgent(t, ws, 'hooked', { 'webhook-url': 'http://127.0.0.1:9/hook' });
    const hookedKey = await createKey(t, ws, { agent: 'hooked' });
    await admin(t, 'update-workspace', { workspace: ws.key, 'assignment-sla-minutes': '1', json: true });
    const waiting = await ok(t, ws.token, 'issues.create', { title: 'Waits on a person' });
    const run = (await ok(t, ws.token, 'issues.assign', { id: waiting.id, agentId: hooked.id })).currentRun;
    await ok(t, hookedKey.token, 'runs.setWaiting', { runId: run.id, reason: 'asked the owner' });
    const working = await ok(t, ws.token, 'issues.create', { title: 'Works on it' });
    await ok(t, ws.token, 'issues.assign', { id: working.id, agentId: hooked.id });
    await t.pools.owner.query(`select app_private.watchdog_sweep(now() + interval '10 minutes')`);
    const { rows } = await t.pools.owner.query(
      `select e.subject_id, (select count(*)::int from app_public.webhook_deliveries d where d.event_id = e.id and d.agent_id = $2) as sent
         from app_public.activity_events e where e.workspace_id = $1 and e.kind = 'ISSUE_STALLED' and e.subject_id = any($3)`,
      [ws.id, hooked.id, [waiting.id, working.id]]);
    expect(Object.fromEntries(rows.map((r) => [r.subject_id, r.sent]))).toEqual({ [waiting.id]: 0, [working.id]: 1 });
  });
});
