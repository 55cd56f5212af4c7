/** Orchestration (spec 4.12): goals, plans, executionPlans, agentCrews, reviewGates. */
import { z } from 'zod';
import { cursor, defineTools, id, int, issueRef, limit, line, money, page, tool } from './define.ts';
import { VISIBLE } from './text-guard.ts';
import { CrewMemberOut, CrewOut, GateOut, GoalOut, PlanOut, StepOut, crewRole, gateStatus, goalStatus, planStatus } from './orchestration-shapes.ts';

const planOptions = {
  contextSetId: z.string().min(1).max(200).optional(),
  autoJudge: z.boolean().optional().describe('Judge steps moved to REVIEW automatically; default: when the crew has a REVIEWER'),
  maxStepRetries: z.number().int().min(0).max(20).optional().describe('FAIL verdicts a step may get before it is BLOCKED (default 2)'),
};
const stepInput = z.strictObject({
  title: line(500),
  body: z.string().max(100_000).optional(),
  expectedOutput: z.string().max(20_000).optional(),
  verification: z.array(z.strictObject({ label: line(500), done: z.boolean().default(false) })).max(50).optional(),
  dependsOnStepIndexes: z.array(int(0, 99)).max(100).optional().describe('0-based positions of earlier or later steps in this batch'),
  assignedAgentId: id('assignedAgentId').optional(),
  assignedRole: crewRole.optional(),
  contextSetId: z.string().min(1).max(200).optional().describe("Default: the plan's"),
});
const steps = z.array(stepInput).min(1).max(100);
const crewMember = z.strictObject({ agentId: id('agentId'), role: crewRole });

export const goalTools = defineTools(
  tool({
    name: 'goals.list',
    scopes: ['READ_ISSUES'],
    description: 'Goals, newest first, paged ({items, nextCursor}), each with planCount and aggregate. Filters: status, crewId; archived goals only with includeArchived.',
    input: z.strictObject({ status: goalStatus.optional(), includeArchived: z.boolean().default(false), crewId: id('crewId').optional(),
                            cursor: cursor.optional(), limit: limit(50, 200) }),
    output: page(GoalOut),
    readOnly: true,
  }),
  tool({
    name: 'goals.get',
    scopes: ['READ_ISSUES'],
    description: 'A goal with its plans (newest attempt first), the active plan with its steps, pending review gates, and aggregate {activePlanId, totalSteps, doneSteps, blockedSteps}.',
    input: z.strictObject({ id: id('id') }),
    output: GoalOut.extend({ plans: z.array(PlanOut), activePlan: PlanOut.nullable(), openGates: z.array(GateOut) }),
    readOnly: true,
  }),
  tool({
    name: 'goals.create',
    scopes: ['WRITE_ISSUES'],
    description: 'Create a goal (OPEN), optionally tied to an issue (runs of its steps are opened on that issue, and the goal follows its narrowing) and run by a crew, with optional cost and wall-time caps. Writes GOAL_CREATED.',
    input: z.strictObject({
      title: line(500), description: z.string().max(100_000).optional(), issueId: issueRef.optional(),
      crewId: id('crewId').optional(), maxTotalCostUsd: money.optional(), maxWallTimeMinutes: z.number().int().min(1).max(525_600).optional(),
    }),
    output: GoalOut,
  }),
  tool({
    name: 'goals.update',
    scopes: ['WRITE_ISSUES'],
    description: 'Change the title or description (null clears it) of a goal that is not ACHIEVED or ABANDONED (409 goal_closed). Writes GOAL_UPDATED {changes}; nothing when nothing changes.',
    input: z.strictObject({ id: id('id'), title: line(500).optional(), description: z.string().max(100_000).nullable().optional() }),
    output: GoalOut,
  }),
  tool({
    name: 'goals.abandon',
    scopes: ['WRITE_ISSUES'],
    description: 'Abandon a goal (terminal): its running plan attempt is canceled with its unfinished steps, open gates and step runs. While it has a live plan, an agent working in that plan must be its planner (403 own_plan), and a goal whose plan a pending review gate holds is abandoned only by one who may decide the gate (403 person_required / own_plan).',
    input: z.strictObject({ id: id('id'), reason: z.string().max(2000).optional() }),
    output: GoalOut,
  }),
);

export const planTools = defineTools(
  tool({
    name: 'plans.decompose',
    scopes: ['WRITE_ISSUES'],
    description: "Start planning a goal: a new DRAFT plan attempt (earlier attempts stop being active; a live one is canceled, which needs what executionPlans.transition CANCELED needs), the goal moves to PLANNING and the planner is dispatched (plannerAgentId, else the crew's PLANNER, else the calling agent).",
    input: z.strictObject({ goalId: id('goalId'), plannerAgentId: id('plannerAgentId').optional(), ...planOptions }),
    output: z.looseObject({
      planId: z.string(), goalId: z.string(), status: z.literal('PLANNING').describe("The goal's status"),
      planStatus: planStatus.describe("The new attempt's status (DRAFT)"), attempt: z.number().describe('1 for the first plan of the goal, then 2, 3, …'),
      plannerAgentId: z.string().nullable(),
    }),
  }),
  tool({
    name: 'plans.addSteps',
    scopes: ['WRITE_ISSUES'],
    description: 'Add steps to a DRAFT plan. dependsOnStepIndexes are 0-based positions within this batch and must form a DAG (a cycle is a 400). assignedAgentId must be a live agent. Steps start TODO and become READY when the plan runs and their dependencies are DONE. An open approval request of the plan is superseded (ask again).',
    input: z.strictObject({ planId: id('planId'), steps }),
    output: z.looseObject({ planId: z.string(), stepIds: z.array(z.string()) }),
    idempotent: false, // every call adds its steps (the verb alone would say idempotent)
  }),
  tool({
    name: 'plans.requestApproval',
    scopes: ['WRITE_ISSUES'],
    description: "Ask for approval of a DRAFT plan: raises a FREE_FORM action request (sourceType execution-plan, on the goal's issue) whose acceptance activates the plan (409 plan_empty without steps). An earlier open approval request is superseded, as is this one when steps are added later.",
    input: z.strictObject({ planId: id('planId'), assignedUserId: id('assignedUserId').optional() }),
    output: z.looseObject({ actionRequestId: z.string(), planId: z.string() }),
  }),
  tool({
    name: 'plans.activate',
    scopes: ['WRITE_ISSUES'],
    description: 'Run a DRAFT or APPROVED plan: RUNNING, the goal becomes ACTIVE, root steps become READY (each writes EXECUTION_STEP_READY and is dispatched to its agent, which gets a run). Any other plan is 409 (a BLOCKED one runs again when its review gate is resolved). A plan awaiting approval (plans.requestApproval) runs only for a key that may accept that request (403 not_allowed or own_request otherwise).',
    input: z.strictObject({ planId: id('planId') }),
    output: z.looseObject({ ok: z.boolean(), planId: z.string(), readyStepIds: z.array(z.string()) }),
  }),
  tool({
    name: 'plans.judge',
    scopes: ['WRITE_ISSUES'],
    description: "Dispatch the judge of a step in REVIEW (judgeAgentId, else the crew's REVIEWER): EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt. The step's worker may not name itself (403 own_step), no agent working in the plan names a judge (403 own_plan; without judgeAgentId it takes the crew's REVIEWER), and no agent names the step's worker (403 own_step); a person may.",
    input: z.strictObject({ stepId: id('stepId'), judgeAgentId: id('judgeAgentId').optional() }),
    output: z.looseObject({ judgeAgentId: z.string(), stepId: z.string() }),
  }),
  tool({
    name: 'plans.recordVerdict',
    scopes: ['WRITE_ISSUES'],
    description: 'Record the verdict on a step in REVIEW: PASS → DONE (dependants become READY; the last one completes the plan and its goal); FAIL → READY again with the feedback while retries remain (maxStepRetries, default 2), else BLOCKED with a review gate. Recorded by the judge of the step or a person: its worker gets 403 own_step (unless the plan made it the judge), any other agent 403 not_judge (with no judge dispatched, an agent outside the plan may). Writes EXECUTION_STEP_JUDGED.',
    input: z.strictObject({
      stepId: id('stepId'), verdict: z.enum(['PASS', 'FAIL']),
      feedback: z.string().max(20_000).describe('Required for FAIL'),
      score: z.number().min(0).max(100).optional(),
    }).superRefine((a, ctx) => {
      // A FAIL with nothing in it sent the worker back with lastFeedback "" to guess what was wrong.
      if (a.verdict === 'FAIL' && !VISIBLE.test(a.feedback)) ctx.addIssue({ code: 'custom', path: ['feedback'], message: 'a FAIL needs feedback the worker can act on' });
    }),
    output: z.looseObject({ outcome: z.enum(['DONE', 'RETRY', 'BLOCKED']), retryCount: z.number(), stepId: z.string() }),
  }),
);

export const executionPlanTools = defineTools(
  tool({
    name: 'executionPlans.list',
    scopes: ['READ_ISSUES'],
    description: 'Execution plans, newest first, paged ({items, nextCursor}). Filters: goalId, status, activeOnly.',
    input: z.strictObject({ goalId: id('goalId').optional(), status: planStatus.optional(), activeOnly: z.boolean().default(false),
                            cursor: cursor.optional(), limit: limit(50, 200) }),
    output: page(PlanOut),
    readOnly: true,
  }),
  tool({
    name: 'executionPlans.get',
    scopes: ['READ_ISSUES'],
    description: 'An execution plan with its steps (dependsOnStepIds, status, retries, verdicts) and its review gates.',
    input: z.strictObject({ id: id('id') }),
    output: PlanOut.extend({ gates: z.array(GateOut) }),
    readOnly: true,
  }),
  tool({
    name: 'executionPlans.create',
    scopes: ['WRITE_ISSUES'],
    description: 'Create a DRAFT plan attempt for a goal directly (as plans.decompose, without choosing a planner unless plannerAgentId is given), optionally with its first steps.',
    input: z.strictObject({ goalId: id('goalId'), plannerAgentId: id('plannerAgentId').optional(), ...planOptions, steps: steps.optional() }),
    output: PlanOut,
  }),
  tool({
    name: 'executionPlans.transition',
    scopes: ['WRITE_ISSUES'],
    description: 'Move a plan: APPROVED (it has steps), RUNNING (as plans.activate; from BLOCKED only when no review gate holds it), BLOCKED, COMPLETED (every step DONE or CANCELED, at least one DONE), CANCELED (unfinished steps, gates and step runs end). APPROVED and RUNNING of a plan awaiting approval need a key that may accept the request (403). COMPLETED and CANCELED are for a person, the planner of the plan or an agent outside the plan (403 own_plan), and while a review gate is pending only for one who may decide it (403 person_required / own_plan). Illegal moves are 409.',
    input: z.strictObject({ id: id('id'), status: z.enum(['APPROVED', 'RUNNING', 'BLOCKED', 'COMPLETED', 'CANCELED']) }),
    output: PlanOut,
  }),
  tool({
    name: 'executionPlans.transitionStep',
    scopes: ['WRITE_ISSUES'],
    description: "Move a step of a RUNNING plan: READY (dependencies DONE; re-dispatches), RUNNING, REVIEW (dispatches the crew's REVIEWER when the plan auto-judges), DONE (dependants become READY; the last step completes the plan and achieves the goal), BLOCKED (opens a review gate), CANCELED (cancels its pending gate). A step a pending gate holds moves only to CANCELED (409 gate_pending). sourceRunId: one of the step's runs (404). Who may (else 403 own_step, not_judge, own_plan, person_required): DONE, where the plan judges steps or from REVIEW, the step's judge or a person; other moves, the step's worker or judge, the planner or a person; CANCELED, a person, the planner or an agent outside the plan, and under a pending gate only one who may decide it.",
    input: z.strictObject({
      stepId: id('stepId'), status: z.enum(['READY', 'RUNNING', 'REVIEW', 'DONE', 'BLOCKED', 'CANCELED']),
      sourceRunId: id('sourceRunId').optional(),
      note: z.string().max(2000).optional().describe('BLOCKED only (kept in its gate)'),
    }).superRefine((a, ctx) => {
      // It was taken with any status and kept only for BLOCKED: a note nobody would read.
      if (a.note !== undefined && a.status !== 'BLOCKED') ctx.addIssue({ code: 'custom', path: ['note'], message: "only a BLOCKED move takes a note (the review gate's details)" });
    }),
    output: z.looseObject({
      step: StepOut, planStatus, goalStatus, readyStepIds: z.array(z.string()), judgeAgentId: z.string().nullable(),
      gateId: z.string().nullable().describe('BLOCKED: the review gate it opened'),
    }),
  }),
);

export const crewTools = defineTools(
  tool({
    name: 'agentCrews.list',
    scopes: ['READ_ISSUES'],
    description: 'Agent crews, oldest first, paged ({items, nextCursor}), with members and member and plan counts; archived crews with includeArchived.',
    input: z.strictObject({ includeArchived: z.boolean().default(false), cursor: cursor.optional(), limit: limit(50, 200) }),
    output: page(CrewOut),
    readOnly: true,
  }),
  tool({
    name: 'agentCrews.get',
    scopes: ['READ_ISSUES'],
    description: 'One crew by id, with its members (archived crews too).',
    input: z.strictObject({ id: id('id') }),
    output: CrewOut,
    readOnly: true,
  }),
  tool({
    name: 'agentCrews.create',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    description: 'Create a crew (ADMIN, unnarrowed key) with optional members [{agentId, role}]: PLANNER decomposes goals, WORKERs take steps, a REVIEWER judges them (and makes plans auto-judge by default).',
    input: z.strictObject({ name: line(200), description: z.string().max(5000).optional(),
                            maxParallel: z.number().int().min(0).max(100).optional(), members: z.array(crewMember).max(50).optional() }),
    output: CrewOut,
  }),
  tool({
    name: 'agentCrews.update',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    description: "Change a crew's name, description or maxParallel (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan); only the fields given.",
    input: z.strictObject({ id: id('id'), name: line(200).optional(), description: z.string().max(5000).nullable().optional(),
                            maxParallel: z.number().int().min(0).max(100).optional() }),
    output: CrewOut,
  }),
  tool({
    name: 'agentCrews.addMember',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    description: 'Add an agent to a crew in a role (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan). An agent is in a crew once (409 already_member; change roles with setMemberRole).',
    input: z.strictObject({ crewId: id('crewId'), agentId: id('agentId'), role: crewRole }),
    output: CrewMemberOut,
  }),
  tool({
    name: 'agentCrews.removeMember',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    description: 'Remove a member from its crew (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan).',
    input: z.strictObject({ memberId: id('memberId') }),
    output: z.looseObject({ ok: z.boolean(), id: z.string().describe('The membership removed'), crewId: z.string() }),
  }),
  tool({
    name: 'agentCrews.setMemberRole',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    description: "Change a crew member's role (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan).",
    input: z.strictObject({ memberId: id('memberId'), role: crewRole }),
    output: CrewMemberOut,
  }),
  tool({
    name: 'agentCrews.archive',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    description: 'Archive a crew (ADMIN, unnarrowed key, not an agent working in a live plan of the crew: 403 own_plan; soft, idempotent). Its goals keep it; it takes no new goals or members.',
    input: z.strictObject({ id: id('id') }),
    output: CrewOut,
  }),
  tool({
    name: 'agentCrews.unarchive',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    description: 'Restore an archived crew (ADMIN, unnarrowed key, not an agent working in a live plan of the crew: 403 own_plan; idempotent).',
    input: z.strictObject({ id: id('id') }),
    output: CrewOut,
  }),
);

export const reviewGateTools = defineTools(
  tool({
    name: 'reviewGates.list',
    scopes: ['READ_ISSUES'],
    description: 'Review gates (approval checkpoints of the loop), newest first, paged ({items, nextCursor}). Filters: status, planId, goalId.',
    input: z.strictObject({ status: gateStatus.optional(), planId: id('planId').optional(), goalId: id('goalId').optional(),
                            cursor: cursor.optional(), limit: limit(50, 200) }),
    output: page(GateOut),
    readOnly: true,
  }),
  tool({
    name: 'reviewGates.get',
    scopes: ['READ_ISSUES'],
    description: 'One review gate by id.',
    input: z.strictObject({ id: id('id') }),
    output: GateOut,
    readOnly: true,
  }),
  tool({
    name: 'reviewGates.open',
    scopes: ['WRITE_ISSUES'],
    description: 'Open a manual review gate on a running plan: with stepId it holds that step (BLOCKED), otherwise it holds the plan (BLOCKED) until resolved. The loop opens gates itself when a step is BLOCKED or a budget is exceeded.',
    input: z.strictObject({ planId: id('planId'), stepId: id('stepId').optional(), title: line(500).optional(),
                            note: z.string().max(5000).optional() }),
    output: GateOut,
  }),
  tool({
    name: 'reviewGates.resolve',
    scopes: ['WRITE_ISSUES'],
    agentKeyNeedsScope: 'ADMIN',
    description: 'Resolve a pending gate: APPROVE continues (a held step is ready again with fresh retries, a held plan runs again), REJECT abandons the goal. Decided by a person; an agent key needs the ADMIN scope and must not work in the plan (its planner, a worker or judge of one of its steps: 403 own_plan).',
    input: z.strictObject({ id: id('id'), decision: z.enum(['APPROVE', 'REJECT']), note: z.string().max(5000).optional() }),
    output: GateOut.extend({ planStatus, goalStatus }),
  }),
);
