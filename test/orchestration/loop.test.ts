/** The orchestration loop end to end (spec 3.7-3.9, 4.12, 6.3): goal → decompose → addSteps → requestApproval → accept → steps READY → REVIEW → judge → verdicts → ACHIEVED; the budget stop; gates. */
import { findTool } from '../../src/tools/catalog.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let planner: { id: string }, worker: { id: string }, reviewer: { id: string };
let crewId: string;

/** Every event of the workspace after a sequence number, oldest first. */
async function eventsSince(seq: number) {
  const { rows } = await t.pools.owner.query(
    'select seq, kind, subject_type, subject_id, payload from app_public.activity_events where workspace_id = $1 and seq > $2 order by seq',
    [ws.id, seq]);
  return rows as Array<{ seq: number; kind: string; subject_type: string; subject_id: string; payload: any }>;
}
const lastSeq = async () => Number((await t.pools.owner.query('select coalesce(max(seq), 0) s from app_public.activity_events')).rows[0].s);
/** A tool call over MCP JSON-RPC (tools/call); the structured output. */
async function mcp(token: string, name: string, args: unknown) {
  const r = await rpc(t, token, 'tools/call', { name, arguments: args });
  expect(r.body.result?.isError, JSON.stringify(r.body)).toBeFalsy();
  return JSON.parse(r.body.result.content[0].text);
}

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'ORC');
  planner = await createAgent(t, ws, 'planner');
  worker = await createAgent(t, ws, 'worker', { 'webhook-url': 'http://127.0.0.1:9/hook' });
  reviewer = await createAgent(t, ws, 'reviewer');
  const crew = await ok(t, ws.token, 'agentCrews.create', {
    name: 'Core crew', members: [
      { agentId: planner.id, role: 'PLANNER' }, { agentId: worker.id, role: 'WORKER' }, { agentId: reviewer.id, role: 'REVIEWER' }],
  });
  crewId = crew.id;
  expect(crew.memberCount).toBe(3);
});
afterAll(() => t.close());

describe('the orchestration loop', () => {
  it('goal → decompose → addSteps → requestApproval → accept → READY → REVIEW → judge → FAIL → PASS → ACHIEVED, with the events of 6.3 in order', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Ship the importer' });
    const since = await lastSeq();
    const goal = await mcp(ws.token, 'goals.create', { title: 'Importer shipped', issueId: issue.key, crewId });
    expect(goal).toMatchObject({ status: 'OPEN', issueId: issue.id, crewId, aggregate: { activePlanId: null, totalSteps: 0 } });

    const dec = await mcp(ws.token, 'plans.decompose', { goalId: goal.id });
    expect(dec).toMatchObject({ status: 'PLANNING', plannerAgentId: planner.id, goalId: goal.id });
    const added = await mcp(ws.token, 'plans.addSteps', { planId: dec.planId, steps: [
      { title: 'Write the parser', expectedOutput: 'parser.ts', verification: [{ label: 'tests pass' }] },
      { title: 'Wire the CLI', dependsOnStepIndexes: [0] },
    ] });
    const [a, b] = added.stepIds as string[];
    const appr = await mcp(ws.token, 'plans.requestApproval', { planId: dec.planId });
    const req = (await ok(t, ws.token, 'actionRequests.list', { sourceId: dec.planId })).items[0];
    expect(req).toMatchObject({ id: appr.actionRequestId, kind: 'FREE_FORM', sourceType: 'execution-plan', status: 'OPEN', issueId: issue.id });

    const accepted = await mcp(ws.token, 'actionRequests.accept', { id: appr.actionRequestId });
    expect(accepted).toMatchObject({ status: 'RESOLVED', dispatchResult: { action: 'activate_plan', planId: dec.planId, readyStepIds: [a] } });
    let g = await mcp(ws.token, 'goals.get', { id: goal.id });
    expect(g).toMatchObject({ status: 'ACTIVE', aggregate: { activePlanId: dec.planId, totalSteps: 2, doneSteps: 0 } });
    expect(g.startedAt).toBeTruthy();
    expect(g.activePlan.steps.map((s: any) => [s.title, s.status, s.assignedAgentId])).toEqual([
      ['Write the parser', 'READY', worker.id], ['Wire the CLI', 'TODO', null]]);
    // The READY step opened a run for its worker on the goal's issue, and a dispatch delivery.
    const runRows = (await t.pools.owner.query('select id, agent_id, issue_id, status from app_public.agent_runs where step_id = $1', [a])).rows;
    expect(runRows).toEqual([{ id: expect.any(String), agent_id: worker.id, issue_id: issue.id, status: 'ACTIVE' }]);
    // The run says which step it works on (runs.get; the board's run panel and agents.workload read the same).
    expect(await ok(t, ws.token, 'runs.get', { id: runRows[0].id })).toMatchObject({ currentStep: 'Write the parser', status: 'ACTIVE', stepId: a });
    // What its worker reads tells it to finish the step, not only the run (runs.complete alone left the plan waiting).
    const { rows: [{ p: protocol }] } = await t.pools.owner.query(
      'select app_hidden.run_protocol(r, i) as p from app_public.agent_runs r join app_public.issues i on i.id = r.issue_id where r.id = $1', [runRows[0].id]);
    expect(protocol).toMatchObject({ stepId: a, protocolInstruction: expect.stringContaining(`execution step ${a}: finish it with executionPlans.transitionStep`) });
    const deliveries = (await t.pools.owner.query(
      `select d.channel, e.kind from app_public.webhook_deliveries d join app_public.activity_events e on e.id = d.event_id where d.agent_id = $1`, [worker.id])).rows;
    expect(deliveries).toContainEqual({ channel: `agent:dispatch:${worker.id}`, kind: 'EXECUTION_STEP_READY' });

    const toReview = await mcp(ws.token, 'executionPlans.transitionStep', { stepId: a, status: 'REVIEW' });
    expect(toReview).toMatchObject({ step: { status: 'REVIEW' }, judgeAgentId: reviewer.id });  // the crew has a REVIEWER: auto-judge
    expect(await mcp(ws.token, 'plans.judge', { stepId: a })).toMatchObject({ judgeAgentId: reviewer.id });
    expect(await mcp(ws.token, 'plans.recordVerdict', { stepId: a, verdict: 'FAIL', feedback: 'No tests for empty input', score: 40 }))
      .toMatchObject({ outcome: 'RETRY', retryCount: 1 });
    const plan = await ok(t, ws.token, 'executionPlans.get', { id: dec.planId });
    expect(plan.steps[0]).toMatchObject({ status: 'READY', retryCount: 1, lastFeedback: 'No tests for empty input' });
    await mcp(ws.token, 'executionPlans.transitionStep', { stepId: a, status: 'REVIEW' });
    expect(await mcp(ws.token, 'plans.recordVerdict', { stepId: a, verdict: 'PASS', feedback: 'Good', score: 90 }))
      .toMatchObject({ outcome: 'DONE', retryCount: 1 });
    g = await ok(t, ws.token, 'goals.get', { id: goal.id });
    expect(g.activePlan.steps.map((s: any) => s.status)).toEqual(['DONE', 'READY']);
    await mcp(ws.token, 'executionPlans.transitionStep', { stepId: b, status: 'REVIEW' });
    expect(await mcp(ws.token, 'plans.recordVerdict', { stepId: b, verdict: 'PASS', feedback: 'Ship it' })).toMatchObject({ outcome: 'DONE' });
    g = await ok(t, ws.token, 'goals.get', { id: goal.id });
    expect(g).toMatchObject({ status: 'ACHIEVED', aggregate: { totalSteps: 2, doneSteps: 2, blockedSteps: 0 } });
    expect(g.activePlan.status).toBe('COMPLETED');
    // No step run stays open on the finished plan (they would stall): each step that is DONE completed its runs,
    // with the event saying why.
    const { rows: runs } = await t.pools.owner.query(
      "select r.id, r.status, s.title from app_public.agent_runs r join app_public.execution_steps s on s.id = r.step_id where s.plan_id = $1 order by s.position", [dec.planId]);
    expect(runs.map((r: any) => [r.title, r.status])).toEqual([['Write the parser', 'COMPLETED'], ['Wire the CLI', 'COMPLETED']]);
    const { rows: moves } = await t.pools.owner.query(
      "select payload from app_public.activity_events where kind = 'AGENT_RUN_STATUS_CHANGED' and payload->>'runId' = $1", [runs[0].id]);
    expect(moves.map((m: any) => [m.payload.to, m.payload.reason])).toEqual([['COMPLETED', 'step_done']]);
    // Completed for its agent, it still keeps the run contract version (spec 2.11), as runs.complete writes it.
    expect((await ok(t, ws.token, 'runs.get', { id: runs[0].id })).completionMeta)
      .toMatchObject({ contractVersion: expect.any(String), reason: 'step_done', completedAt: expect.any(String) });

    const spec = new Set(['GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED', 'PLAN_BUDGET_EXCEEDED']);
    const seen = (await eventsSince(since)).filter((e) => spec.has(e.kind)).map((e) => {
      const p = e.payload;
      if (e.kind === 'GOAL_STATUS_CHANGED') return `${e.kind} ${p.from}→${p.to} ${p.planId === dec.planId ? 'plan' : p.planId}`;
      if (e.kind === 'EXECUTION_STEP_READY') return `${e.kind} ${p.title} ${p.phase}${p.phase === 'judge' ? ` ${p.judgeAgentId === reviewer.id}` : ` ${p.assignedAgentId === worker.id} r${p.retryCount}`}`;
      if (e.kind === 'EXECUTION_STEP_JUDGED') return `${e.kind} ${p.verdict} ${p.outcome}`;
      return e.kind;
    });
    expect(seen).toEqual([
      'GOAL_CREATED',
      'GOAL_STATUS_CHANGED OPEN→PLANNING plan',
      'GOAL_STATUS_CHANGED PLANNING→ACTIVE plan',
      'EXECUTION_STEP_READY Write the parser work true r0',
      'EXECUTION_STEP_READY Write the parser judge true',
      'EXECUTION_STEP_READY Write the parser judge true',
      'EXECUTION_STEP_JUDGED FAIL RETRY',
      'EXECUTION_STEP_READY Write the parser work true r1',
      'EXECUTION_STEP_READY Write the parser judge true',
      'EXECUTION_STEP_JUDGED PASS DONE',
      'EXECUTION_STEP_READY Wire the CLI work true r0',
      'EXECUTION_STEP_READY Wire the CLI judge true',
      'EXECUTION_STEP_JUDGED PASS DONE',
      'GOAL_STATUS_CHANGED ACTIVE→ACHIEVED plan',
    ]);
    const all = await eventsSince(since);
    const judged = all.find((e) => e.kind === 'EXECUTION_STEP_JUDGED')!;
    expect(judged.payload).toMatchObject({ planId: dec.planId, verdict: 'FAIL', feedback: 'No tests for empty input', score: 40, outcome: 'RETRY' });
    const judge = all.find((e) => e.kind === 'EXECUTION_STEP_READY' && e.payload.phase === 'judge')!;
    expect(judge.payload.prompt).toContain('plans.recordVerdict');
    // The prompt states the score range the tool takes (a judge following it must not be refused or misread).
    type Range = { shape: { score: { unwrap(): { minValue: number; maxValue: number } } } };
    const score = (findTool('plans.recordVerdict')!.input as unknown as Range).shape.score.unwrap();
    expect(judge.payload.prompt).toContain(`"score": ${score.minValue} to ${score.maxValue}`);
    const ready = all.find((e) => e.kind === 'EXECUTION_STEP_READY')!;
    expect(Object.keys(ready.payload)).toEqual(expect.arrayContaining(
      ['planId', 'stepId', 'title', 'body', 'expectedOutput', 'verification', 'contextSetId', 'assignedAgentId', 'lastFeedback', 'retryCount']));
    // Every plan and step move wrote its status event too.
    expect(all.filter((e) => e.kind === 'EXECUTION_PLAN_STATUS_CHANGED').map((e) => `${e.payload.from}→${e.payload.to}`))
      .toEqual(['null→DRAFT', 'DRAFT→RUNNING', 'RUNNING→COMPLETED']);
  });

  it('a FAIL with no retries left blocks the step and opens a gate; approving makes it READY again, rejecting abandons the goal', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Flaky' });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Flaky fixed', issueId: issue.id, crewId });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id, maxStepRetries: 0, steps: [{ title: 'Fix' }] });
    expect(plan).toMatchObject({ status: 'DRAFT', autoJudge: true, maxStepRetries: 0 });
    await ok(t, ws.token, 'plans.activate', { planId: plan.id });
    const step = plan.steps[0].id;
    await ok(t, ws.token, 'executionPlans.transitionStep', { stepId: step, status: 'REVIEW' });
    expect(await ok(t, ws.token, 'plans.recordVerdict', { stepId: step, verdict: 'FAIL', feedback: 'Still flaky' }))
      .toMatchObject({ outcome: 'BLOCKED', retryCount: 0 });
    const gates = await ok(t, ws.token, 'reviewGates.list', { goalId: goal.id, status: 'PENDING' });
    expect(gates.items).toHaveLength(1);
    expect(gates.items[0]).toMatchObject({ reason: 'STEP_BLOCKED', stepId: step, planId: plan.id });
    expect((await ok(t, ws.token, 'goals.get', { id: goal.id })).aggregate.blockedSteps).toBe(1);
    const approved = await ok(t, ws.token, 'reviewGates.resolve', { id: gates.items[0].id, decision: 'APPROVE', note: 'try again' });
    expect(approved).toMatchObject({ status: 'APPROVED', planStatus: 'RUNNING', goalStatus: 'ACTIVE' });
    expect((await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).steps[0]).toMatchObject({ status: 'READY', retryCount: 0 });

    const gate = await ok(t, ws.token, 'reviewGates.open', { planId: plan.id, note: 'hold on' });
    expect(gate).toMatchObject({ reason: 'MANUAL', status: 'PENDING', stepId: null });
    expect((await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).status).toBe('BLOCKED');
    expect((await rest(t, ws.token, 'executionPlans.transition', { id: plan.id, status: 'RUNNING' })).body.error).toBe('gate_pending');
    const rejected = await ok(t, ws.token, 'reviewGates.resolve', { id: gate.id, decision: 'REJECT' });
    expect(rejected).toMatchObject({ status: 'REJECTED', planStatus: 'CANCELED', goalStatus: 'ABANDONED' });
    const r = await rest(t, ws.token, 'reviewGates.resolve', { id: gate.id, decision: 'APPROVE' });
    expect([r.status, r.body.error]).toEqual([409, 'illegal_transition']);
  });

  it('a budget breach (run usage written by any tool) blocks the RUNNING plan, opens a gate and writes PLAN_BUDGET_EXCEEDED; wall time too', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Costly' });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Cheap enough', issueId: issue.id, crewId, maxTotalCostUsd: 1.5, maxWallTimeMinutes: 60 });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id, steps: [{ title: 'Spend' }, { title: 'Spend more' }] });
    await ok(t, ws.token, 'plans.activate', { planId: plan.id });
    const { rows: [run] } = await t.pools.owner.query('select id from app_public.agent_runs where step_id = $1', [plan.steps[0].id]);
    const since = await lastSeq();
    // Under the cap: nothing happens.
    await t.pools.owner.query('update app_public.agent_runs set cost_usd = 1.0, tokens_in = 1000 where id = $1', [run.id]);
    expect((await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).status).toBe('RUNNING');
    // Past it (as runs.recordUsage would write it).
    await t.pools.owner.query('update app_public.agent_runs set cost_usd = 2.25, tokens_in = 3000 where id = $1', [run.id]);
    const blocked = await ok(t, ws.token, 'executionPlans.get', { id: plan.id });
    expect(blocked.status).toBe('BLOCKED');
    expect(blocked.gates).toMatchObject([{ reason: 'BUDGET_COST', status: 'PENDING', stepId: null }]);
    const ev = (await eventsSince(since)).filter((e) => e.kind === 'PLAN_BUDGET_EXCEEDED');
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ subject_type: 'execution-plan', subject_id: plan.id,
      payload: { totalCostUsd: 2.25, maxTotalCostUsd: 1.5, maxWallTimeMinutes: 60, reason: 'cost' } });
    expect((await ok(t, ws.token, 'goals.get', { id: goal.id })).totalCostUsd).toBe(2.25);
    // Steps do not move while the plan is blocked.
    const r = await rest(t, ws.token, 'executionPlans.transitionStep', { stepId: plan.steps[0].id, status: 'DONE' });
    expect([r.status, r.body.error]).toEqual([409, 'plan_not_running']);
    // The worker that spent it does not approve its own budget, ADMIN scope or not (the step is its: 403 own_plan).
    const stepWorker = (await t.pools.owner.query('select a.profile_key from app_public.agents a join app_public.agent_runs r on r.agent_id = a.id where r.id = $1', [run.id])).rows[0].profile_key;
    const workerAdmin = await createKey(t, ws, { agent: stepWorker, scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'ADMIN'] });
    const own = await rest(t, workerAdmin.token, 'reviewGates.resolve', { id: blocked.gates[0].id, decision: 'APPROVE' });
    expect([own.status, own.body.error]).toEqual([403, 'own_plan']);
    // Approving continuation lifts the cost cap for this attempt, and the READY steps go to their workers again
    // (their moves were refused meanwhile; nothing told them the plan runs again, fleet probe).
    const ready = blocked.steps.filter((st: { status: string }) => st.status === 'READY').map((st: { id: string }) => st.id);
    expect(ready.length).toBeGreaterThan(0);
    const beforeApproval = await lastSeq();
    await ok(t, ws.token, 'reviewGates.resolve', { id: blocked.gates[0].id, decision: 'APPROVE' });
    const redispatched = (await eventsSince(beforeApproval)).filter((e) => e.kind === 'EXECUTION_STEP_READY');
    expect(redispatched.map((e) => e.payload.stepId).sort()).toEqual([...ready].sort());
    await t.pools.owner.query('update app_public.agent_runs set cost_usd = 3 where id = $1', [run.id]);
    expect((await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).status).toBe('RUNNING');
    // Wall time: the goal started 2 hours ago (set in the past instead of waiting).
    await t.pools.owner.query(`update app_public.goals set started_at = now() - interval '2 hours' where id = $1`, [goal.id]);
    await t.pools.owner.query('update app_public.agent_runs set last_event_at = now() where id = $1', [run.id]);
    const again = await ok(t, ws.token, 'executionPlans.get', { id: plan.id });
    expect(again.status).toBe('BLOCKED');
    expect(again.gates.map((g: any) => [g.reason, g.status])).toEqual([['BUDGET_COST', 'APPROVED'], ['BUDGET_WALL_TIME', 'PENDING']]);
    const wall = (await eventsSince(since)).filter((e) => e.kind === 'PLAN_BUDGET_EXCEEDED');
    expect(wall.map((e) => e.payload.reason)).toEqual(['cost', 'wall_time']);
  });

  it('guards around gates and approval: no activate of a BLOCKED plan, a gate-held step moves only to CANCELED, approval asks again after addSteps, no empty approvals, live step agents, real source runs', async () => {
    const workerKey = await createKey(t, ws, { agent: 'worker', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const refused = async (token: string, tool: string, args: unknown, status: number, error: string) => {
      const r = await rest(t, token, tool, args);
      expect([tool, r.status, r.body.error]).toEqual([tool, status, error]);
      return r.body;
    };
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Guarded' });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Guarded goal', issueId: issue.id, crewId });

    // An empty plan is neither approved nor sent for approval (it would be stuck: no steps, no way back to DRAFT).
    const empty = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id });
    await refused(ws.token, 'executionPlans.transition', { id: empty.id, status: 'APPROVED' }, 409, 'plan_empty');
    await refused(ws.token, 'plans.requestApproval', { planId: empty.id }, 409, 'plan_empty');

    // Steps for an archived agent are refused, naming the step.
    await createAgent(t, ws, 'retired');
    const retired = await admin(t, 'archive-agent', { workspace: ws.key, agent: 'retired', json: true });
    const archived = await refused(ws.token, 'plans.addSteps', { planId: empty.id, steps: [{ title: 'x', assignedAgentId: retired.agent.id }] }, 400, 'agent_archived');
    expect(Object.keys(archived.issues)).toEqual(['steps.0.assignedAgentId']);

    // Adding steps after the approval request supersedes it: the approver is asked again about the new plan.
    await ok(t, ws.token, 'plans.addSteps', { planId: empty.id, steps: [{ title: 'Fix' }] });
    // A card that only names the plan as its source is not its approval: accepting it starts nothing.
    const fyi = await ok(t, workerKey.token, 'actionRequests.create', {
      title: 'FYI: CI run finished', sourceType: 'execution-plan', sourceId: empty.id, issueId: issue.id,
    });
    expect((await ok(t, ws.token, 'actionRequests.accept', { id: fyi.id })).dispatchResult).toEqual({ action: 'none' });
    expect((await ok(t, ws.token, 'executionPlans.get', { id: empty.id })).status).toBe('DRAFT');
    const asked = await ok(t, ws.token, 'plans.requestApproval', { planId: empty.id });
    await ok(t, workerKey.token, 'plans.addSteps', { planId: empty.id, steps: [{ title: 'rm -rf prod' }] });
    expect((await ok(t, ws.token, 'actionRequests.list', { status: 'SUPERSEDED' })).items.map((r: any) => r.id)).toContain(asked.actionRequestId);
    await refused(ws.token, 'actionRequests.accept', { id: asked.actionRequestId }, 409, 'illegal_transition');
    expect((await ok(t, ws.token, 'executionPlans.get', { id: empty.id })).status).toBe('DRAFT');

    // A BLOCKED plan does not run again through plans.activate, whoever asks: only through its gate.
    const plan = empty;
    await ok(t, ws.token, 'plans.activate', { planId: plan.id });
    const gate = await ok(t, ws.token, 'reviewGates.open', { planId: plan.id, note: 'hold' });
    for (const token of [ws.token, workerKey.token]) await refused(token, 'plans.activate', { planId: plan.id }, 409, 'illegal_transition');
    expect((await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).status).toBe('BLOCKED');
    expect((await ok(t, ws.token, 'reviewGates.get', { id: gate.id })).status).toBe('PENDING');
    await ok(t, ws.token, 'reviewGates.resolve', { id: gate.id, decision: 'APPROVE' });

    // A step held by a pending gate moves only to CANCELED, which cancels the gate.
    const [fix, prod] = (await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).steps;
    const held = await ok(t, ws.token, 'executionPlans.transitionStep', { stepId: prod.id, status: 'BLOCKED', note: 'needs a person' });
    for (const status of ['READY', 'RUNNING', 'REVIEW', 'DONE']) {
      await refused(workerKey.token, 'executionPlans.transitionStep', { stepId: prod.id, status }, 409, 'gate_pending');
    }
    expect((await ok(t, ws.token, 'reviewGates.get', { id: held.gateId })).status).toBe('PENDING');
    await ok(t, ws.token, 'executionPlans.transitionStep', { stepId: prod.id, status: 'CANCELED' });
    expect((await ok(t, ws.token, 'reviewGates.get', { id: held.gateId })).status).toBe('CANCELED');

    // sourceRunId names one of the step's own runs.
    const nope = await refused(ws.token, 'executionPlans.transitionStep', { stepId: fix.id, status: 'RUNNING', sourceRunId: crypto.randomUUID() }, 404, 'not_found');
    expect(Object.keys(nope.issues ?? { sourceRunId: 1 })).toEqual(['sourceRunId']);
    const { rows: [run] } = await t.pools.owner.query('select id from app_public.agent_runs where step_id = $1', [fix.id]);
    expect((await ok(t, ws.token, 'executionPlans.transitionStep', { stepId: fix.id, status: 'RUNNING', sourceRunId: run.id })).step.sourceRunId).toBe(run.id);
  });

  it('a plan whose steps were all canceled does not complete (its goal is not achieved); a worker does not pass its own step', async () => {
    const workerKey = (await createKey(t, ws, { agent: 'worker' })).token;
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Nothing done' });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Done without work?', issueId: issue.id, crewId });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id, steps: [{ title: 'One' }, { title: 'Two' }] });
    await ok(t, ws.token, 'plans.activate', { planId: plan.id });
    for (const s of plan.steps) await ok(t, ws.token, 'executionPlans.transitionStep', { stepId: s.id, status: 'CANCELED' });
    const forced = await rest(t, ws.token, 'executionPlans.transition', { id: plan.id, status: 'COMPLETED' });
    expect([forced.status, forced.body.error]).toEqual([409, 'steps_not_done']);
    expect(forced.body.message).toMatch(/^No step is DONE/);
    expect((await ok(t, ws.token, 'goals.get', { id: goal.id })).status).toBe('ACTIVE');
    expect((await ok(t, ws.token, 'executionPlans.get', { id: plan.id })).status).toBe('RUNNING');

    // The worker's step in REVIEW: the crew's REVIEWER judges; the worker's own PASS is refused, nothing written.
    const issue2 = await ok(t, ws.token, 'issues.create', { title: 'Self review' });
    const goal2 = await ok(t, ws.token, 'goals.create', { title: 'Reviewed by another', issueId: issue2.id, crewId });
    const plan2 = await ok(t, ws.token, 'executionPlans.create', { goalId: goal2.id, steps: [{ title: 'Work', assignedAgentId: worker.id }] });
    await ok(t, ws.token, 'plans.activate', { planId: plan2.id });
    const step = plan2.steps[0].id;
    await ok(t, workerKey, 'executionPlans.transitionStep', { stepId: step, status: 'REVIEW' });
    const since = await lastSeq();
    const self = await rest(t, workerKey, 'plans.recordVerdict', { stepId: step, verdict: 'PASS', feedback: 'looks great to me' });
    expect([self.status, self.body.error]).toEqual([403, 'own_step']);
    expect((await eventsSince(since)).map((e) => e.kind)).toEqual([]);
    const reviewerKey = (await createKey(t, ws, { agent: 'reviewer' })).token;
    expect(await ok(t, reviewerKey, 'plans.recordVerdict', { stepId: step, verdict: 'PASS', feedback: 'verified' })).toMatchObject({ outcome: 'DONE' });
    expect((await ok(t, ws.token, 'goals.get', { id: goal2.id })).status).toBe('ACHIEVED');
  });
});

describe('steps and the agents that work them', () => {
  it('a step run beside an agent\'s RESEARCH run does not lift run-mode gating (403 run_mode_gated, by its own doing or not)', async () => {
    const researcher = await createAgent(t, ws, 'researcher');
    const key = await createKey(t, ws, { agent: 'researcher' });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Only look' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: researcher.id, mode: 'RESEARCH' });
    const gated = async () => (await rest(t, key.token, 'issues.update', { id: issue.id, title: 'changed' })).body.error;
    expect(await gated()).toBe('run_mode_gated');
    // The agent gives itself a step on the goal's issue: the step opens an EXECUTE run, newer than the research run.
    const goal = await ok(t, key.token, 'goals.create', { title: 'Own goal', issueId: issue.id });
    const plan = await ok(t, key.token, 'executionPlans.create', { goalId: goal.id, steps: [{ title: 'Mine', assignedAgentId: researcher.id }] });
    await ok(t, key.token, 'plans.activate', { planId: plan.id });
    const runs = (await ok(t, ws.token, 'runs.list', { issueId: issue.id })).items;
    expect(runs.filter((r: any) => r.agentId === researcher.id && r.status === 'ACTIVE').map((r: any) => r.engagementMode).sort()).toEqual(['EXECUTE', 'RESEARCH']);
    expect(await gated()).toBe('run_mode_gated');
    const { rows: [done] } = await t.pools.owner.query(
      "select id from app_public.statuses where workspace_id = $1 and category = 'DONE' order by position limit 1", [ws.id]);
    expect((await rest(t, key.token, 'issues.transition', { id: issue.id, statusId: done.id })).body.error).toBe('run_mode_gated');
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).title).toBe('Only look');
  });

  it('a step whose agent was archived after it was given goes to a live crew member, else waits READY with no worker and no run', async () => {
    const leaving = await createAgent(t, ws, 'leaving');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Handed over' });
    const withCrew = await ok(t, ws.token, 'goals.create', { title: 'Crewed', issueId: issue.id, crewId });
    const alone = await ok(t, ws.token, 'goals.create', { title: 'Alone', issueId: issue.id });
    const crewed = await ok(t, ws.token, 'executionPlans.create', { goalId: withCrew.id, steps: [{ title: 'Crew step', assignedAgentId: leaving.id }] });
    const lone = await ok(t, ws.token, 'executionPlans.create', { goalId: alone.id, steps: [{ title: 'Lone step', assignedAgentId: leaving.id }] });
    await admin(t, 'archive-agent', { workspace: ws.key, agent: 'leaving', json: true });
    await ok(t, ws.token, 'plans.activate', { planId: crewed.id });
    await ok(t, ws.token, 'plans.activate', { planId: lone.id });
    expect((await ok(t, ws.token, 'executionPlans.get', { id: crewed.id })).steps[0]).toMatchObject({ status: 'READY', assignedAgentId: worker.id });
    expect((await ok(t, ws.token, 'executionPlans.get', { id: lone.id })).steps[0]).toMatchObject({ status: 'READY', assignedAgentId: null });
    expect((await ok(t, ws.token, 'runs.list', { agentId: leaving.id })).items).toEqual([]);
  });
});
