/**
 * Property: random sequences of orchestration and action-request calls never take a record outside its
 * machine, never make a step READY (or later) before its dependencies are DONE, never fail with a 5xx, and
 * every state change writes its event (each record's event history is a chain of allowed moves ending in
 * its current status).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createWorkspace, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let crewId: string;
let issueId: string;
const q = async (sql: string, args: unknown[] = []) => (await t.pools.owner.query(sql, args)).rows;

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'PRP');
  const [p, w, r] = [await createAgent(t, ws, 'p'), await createAgent(t, ws, 'w'), await createAgent(t, ws, 'r')];
  crewId = (await ok(t, ws.token, 'agentCrews.create', { name: 'crew', members: [
    { agentId: p.id, role: 'PLANNER' }, { agentId: w.id, role: 'WORKER' }, { agentId: r.id, role: 'REVIEWER' }] })).id;
  issueId = (await ok(t, ws.token, 'issues.create', { title: 'Property' })).id;
});
afterAll(() => t.close());

type Op = { op: string; i: number; j: number; s: string; deps: number[][]; flag: boolean };
const opArb: fc.Arbitrary<Op> = fc.record({
  op: fc.constantFrom('goal', 'decompose', 'addSteps', 'requestApproval', 'accept', 'decline', 'arTransition', 'activate',
    'step', 'step', 'step', 'judge', 'verdict', 'verdict', 'openGate', 'resolveGate', 'abandon', 'planTransition', 'poll',
    'vote', 'closeVoting', 'spend', 'createPlan'),
  i: fc.nat(20), j: fc.nat(20),
  s: fc.constantFrom('READY', 'RUNNING', 'REVIEW', 'DONE', 'BLOCKED', 'CANCELED', 'APPROVED', 'COMPLETED', 'SNOOZED', 'OPEN', 'RESOLVED', 'DISMISSED', 'REJECTED'),
  deps: fc.array(fc.array(fc.nat(4), { maxLength: 2 }), { minLength: 1, maxLength: 4 }),
  flag: fc.boolean(),
});

const pick = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);

async function apply(o: Op) {
  const goals = (await q('select id from app_public.goals where workspace_id = $1 order by created_at, id', [ws.id])).map((r) => r.id);
  const plans = (await q('select id from app_public.execution_plans where workspace_id = $1 order by created_at, id', [ws.id])).map((r) => r.id);
  const allSteps = (await q('select id from app_public.execution_steps where workspace_id = $1 order by created_at, position', [ws.id])).map((r) => r.id);
  // Half the time aim at a step that is in play, so sequences get somewhere.
  const live = (await q(`select id from app_public.execution_steps where workspace_id = $1 and status in ('READY', 'RUNNING', 'REVIEW')
                         order by created_at, position`, [ws.id])).map((r) => r.id);
  const steps = o.j % 2 === 0 && live.length ? live : allSteps;
  const gates = (await q('select id from app_public.review_gates where workspace_id = $1 order by created_at, id', [ws.id])).map((r) => r.id);
  const reqs = (await q('select id from app_public.action_requests where workspace_id = $1 order by created_at, id', [ws.id])).map((r) => r.id);
  const polls = (await q('select id from app_public.action_requests where workspace_id = $1 and options is not null order by created_at, id', [ws.id])).map((r) => r.id);
  const goal = pick(goals, o.i), plan = pick(plans, o.i), step = pick(steps, o.i), gate = pick(gates, o.i), req = pick(reqs, o.i), poll = pick(polls, o.i);
  const call = (tool: string, args: object) => rest(t, ws.token, tool, args);
  switch (o.op) {
    case 'goal': return call('goals.create', { title: 'g', issueId, crewId, maxTotalCostUsd: o.flag ? 1 : undefined });
    case 'decompose': return goal && call('plans.decompose', { goalId: goal, maxStepRetries: o.j % 3 });
    case 'createPlan': return goal && call('executionPlans.create', { goalId: goal, steps: o.deps.map((d, k) => ({ title: `s${k}`, dependsOnStepIndexes: d })) });
    case 'addSteps': return plan && call('plans.addSteps', { planId: plan, steps: o.deps.map((d, k) => ({ title: `s${k}`, dependsOnStepIndexes: d })) });
    case 'requestApproval': return plan && call('plans.requestApproval', { planId: plan });
    case 'accept': return req && call('actionRequests.accept', { id: req });
    case 'decline': return req && call('actionRequests.decline', { id: req });
    case 'arTransition': return req && call('actionRequests.transition', { id: req, status: o.s });
    case 'activate': return plan && call('plans.activate', { planId: plan });
    case 'step': return step && call('executionPlans.transitionStep', { stepId: step, status: o.j % 3 === 0 ? 'REVIEW' : o.j % 3 === 1 ? 'DONE' : o.s });
    case 'judge': return step && call('plans.judge', { stepId: step });
    case 'verdict': return step && call('plans.recordVerdict', { stepId: step, verdict: o.flag ? 'PASS' : 'FAIL', feedback: 'f' });
    case 'openGate': return plan && call('reviewGates.open', { planId: plan, ...(o.flag && step ? { stepId: step } : {}) });
    case 'resolveGate': return gate && call('reviewGates.resolve', { id: gate, decision: o.j % 4 === 0 ? 'REJECT' : 'APPROVE' });
    case 'abandon': return o.j % 3 === 0 && goal ? call('goals.abandon', { id: goal }) : undefined;
    case 'planTransition': return plan && call('executionPlans.transition', { id: plan, status: o.s });
    case 'poll': return call('actionRequests.create', { title: 'p', issueId, options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    case 'vote': return poll && call('actionRequests.vote', { id: poll, optionKey: o.flag ? 'a' : 'b' });
    case 'closeVoting': return poll && call('actionRequests.closeVoting', { id: poll });
    case 'spend': {
      const run = pick(await q('select id from app_public.agent_runs where workspace_id = $1 and step_id is not null order by started_at, id', [ws.id]), o.j);
      if (run) await q('update app_public.agent_runs set cost_usd = cost_usd + 0.6, tokens_in = tokens_in + 100 where id = $1', [run.id]);
      return undefined;
    }
  }
  return undefined;
}

const MACHINES = [
  { machine: 'goal', table: 'goals', kinds: ['GOAL_CREATED', 'GOAL_STATUS_CHANGED'], subject: 'goal' },
  { machine: 'plan', table: 'execution_plans', kinds: ['EXECUTION_PLAN_STATUS_CHANGED'], subject: 'execution-plan' },
  { machine: 'step', table: 'execution_steps', kinds: ['EXECUTION_STEP_STATUS_CHANGED'], subject: 'execution-step' },
  { machine: 'gate', table: 'review_gates', kinds: ['REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED'], subject: 'review-gate' },
  { machine: 'action-request', table: 'action_requests', kinds: ['ISSUE_UPDATED'], subject: 'action-request' },
];
const STATES: Record<string, string[]> = {
  goal: ['OPEN', 'PLANNING', 'ACTIVE', 'ACHIEVED', 'ABANDONED'],
  plan: ['DRAFT', 'APPROVED', 'RUNNING', 'BLOCKED', 'COMPLETED', 'CANCELED'],
  step: ['TODO', 'READY', 'RUNNING', 'REVIEW', 'DONE', 'BLOCKED', 'CANCELED'],
  gate: ['PENDING', 'APPROVED', 'REJECTED', 'CANCELED'],
  'action-request': ['OPEN', 'RESOLVED', 'DISMISSED', 'SNOOZED', 'REJECTED', 'SUPERSEDED'],
};

async function checkInvariants() {
  // No step past TODO before its dependencies are DONE.
  const early = await q(`select s.id, s.status from app_public.execution_steps s
    where s.workspace_id = $1 and s.status in ('READY', 'RUNNING', 'REVIEW')
      and exists (select 1 from unnest(s.depends_on_step_ids) d join app_public.execution_steps x on x.id = d where x.status <> 'DONE')`, [ws.id]);
  expect(early).toEqual([]);
  // At most one active attempt per goal; an ACHIEVED goal's active plan is COMPLETED.
  expect(await q(`select goal_id from app_public.execution_plans where workspace_id = $1 and is_active_attempt group by goal_id having count(*) > 1`, [ws.id])).toEqual([]);
  expect(await q(`select g.id from app_public.goals g join app_public.execution_plans p on p.goal_id = g.id and p.is_active_attempt
                  where g.workspace_id = $1 and g.status = 'ACHIEVED' and p.status <> 'COMPLETED'`, [ws.id])).toEqual([]);
  for (const m of MACHINES) {
    const rows = await q(`select r.id, r.status, coalesce((
        select jsonb_agg(jsonb_build_object('kind', e.kind, 'from', coalesce(e.payload->>'from', e.payload->>'previousStatus'),
                         'to', coalesce(e.payload->>'to', e.payload->>'status'), 'change', e.payload->>'change') order by e.seq)
        from app_public.activity_events e
        where e.workspace_id = r.workspace_id and e.subject_type = $2 and e.subject_id = r.id and e.kind = any($3)
          and (e.kind <> 'ISSUE_UPDATED' or e.payload->>'change' in ('created', 'status'))), '[]') as events
      from app_public.${m.table} r where r.workspace_id = $1`, [ws.id, m.subject, m.kinds]);
    for (const r of rows) {
      expect(STATES[m.machine]).toContain(r.status);
      // The first event records the initial state; every later one is an allowed move from the previous state.
      const evs = r.events as Array<{ kind: string; from: string | null; to: string }>;
      const initial = m.machine === 'gate' ? 'PENDING' : evs[0]?.to;
      expect(evs.length, `${m.machine} ${r.id} has no creation event`).toBeGreaterThan(0);
      let state = initial;
      for (const e of evs.slice(1)) {
        expect(e.from === state || (m.machine === 'goal' && e.from === 'PLANNING' && e.to === 'PLANNING'), `${m.machine} ${r.id}: ${JSON.stringify(evs)}`).toBe(true);
        const allowed = e.from === e.to ? m.machine === 'goal' : (await q('select app_hidden.orchestration_allows($1, $2, $3) ok', [m.machine, e.from, e.to]))[0].ok;
        expect(allowed, `${m.machine} ${e.from} → ${e.to}`).toBe(true);
        state = e.to;
      }
      expect(state, `${m.machine} ${r.id}: its last event says ${state}, it is ${r.status}`).toBe(r.status);
    }
  }
}

describe('orchestration machines under random call sequences', () => {
  it('stay inside their machines, respect dependencies and record every change', async () => {
    let calls = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 40 }), async (ops) => {
        for (const o of ops) {
          const r = await apply(o);
          if (r) {
            calls++;
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            expect(r.status, `${o.op}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
          }
        }
        await checkInvariants();
      }),
      { numRuns: 12, seed: Number(process.env.FC_SEED ?? 12) },
    );
    // The sequences did real work, not only refusals.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(calls / 8);
    expect([...statuses.keys()].every((s) => [200, 400, 403, 404, 409].includes(s))).toBe(true);
    const reached = (await q(`select distinct e.subject_type || ' ' || (e.payload->>'to') s from app_public.activity_events e
                              where e.workspace_id = $1 and e.payload ? 'to'`, [ws.id])).map((r) => r.s);
    expect(reached).toEqual(expect.arrayContaining(['execution-step READY', 'execution-step REVIEW', 'execution-step DONE',
      'execution-plan RUNNING', 'goal ACTIVE']));
  }, 240_000);
});
