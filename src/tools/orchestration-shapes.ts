/** Inputs and outputs shared by action requests and orchestration (goals, plans, steps, crews, review gates). */
import { z } from 'zod';
import { id, isoDateTime, issueRef, line, timestamp } from './define.ts';

export const arStatus = z.enum(['OPEN', 'RESOLVED', 'DISMISSED', 'SNOOZED', 'REJECTED', 'SUPERSEDED']);
export const arSeverity = z.enum(['INFO', 'SUCCESS', 'WARNING', 'ERROR', 'CRITICAL']);
export const arKind = z.enum(['FREE_FORM', 'TRANSITION', 'SET_LABELS', 'ASSIGN_AGENT', 'CLOSE_AS_DUPLICATE']);
export const goalStatus = z.enum(['OPEN', 'PLANNING', 'ACTIVE', 'ACHIEVED', 'ABANDONED']);
export const planStatus = z.enum(['DRAFT', 'APPROVED', 'RUNNING', 'BLOCKED', 'COMPLETED', 'CANCELED']);
export const stepStatus = z.enum(['TODO', 'READY', 'RUNNING', 'REVIEW', 'DONE', 'BLOCKED', 'CANCELED']);
export const gateStatus = z.enum(['PENDING', 'APPROVED', 'REJECTED', 'CANCELED']);
export const crewRole = z.enum(['PLANNER', 'WORKER', 'REVIEWER', 'OBSERVER', 'OPERATOR_PROXY']);

const option = z.strictObject({
  key: line(100), label: line(500), description: z.string().max(2000).optional(),
});

/** The fields of a new action request (comments.create's actionRequest bundle, actionRequests.create). */
export const actionRequestBase = z.strictObject({
  title: line(500),
  body: z.string().max(100_000).optional(),
  severity: arSeverity.default('INFO'),
  kind: arKind.default('FREE_FORM').describe('What accept runs: TRANSITION {statusId}, SET_LABELS {add?, remove?}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId?}; FREE_FORM runs nothing'),
  // 16 KB of JSON at most: what a bound dispatch needs is a few ids; a megabyte was taken before (only the body limit stopped it).
  payload: z.record(z.string(), z.unknown()).default({})
    .refine((p) => JSON.stringify(p).length <= 16_384, 'payload must be at most 16 KB of JSON'),
  assignedUserId: id('assignedUserId').optional(),
  assignedAgentId: id('assignedAgentId').optional(),
  dueAt: isoDateTime().optional(),
  options: z.array(option).min(2).max(20).optional().describe('Poll options; present = the request is a poll'),
});

type ArFields = z.output<typeof actionRequestBase>;
/** The bound dispatch's payload must fit its kind; option keys are unique. */
export function checkActionRequest(v: ArFields, ctx: z.RefinementCtx) {
  const p = v.payload as Record<string, unknown>;
  const uuid = z.uuid();
  const need = (key: string) => {
    if (!uuid.safeParse(p[key]).success) ctx.addIssue({ code: 'custom', path: ['payload', key], message: `${v.kind} needs payload.${key} (a UUID)` });
  };
  if (v.kind === 'TRANSITION') need('statusId');
  if (v.kind === 'ASSIGN_AGENT') need('agentId');
  if (v.kind === 'CLOSE_AS_DUPLICATE') {
    // An issue, named by id or key as everywhere else (the SQL resolves and stores the id).
    if (!issueRef.safeParse(p.duplicateOfIssueId).success) {
      ctx.addIssue({ code: 'custom', path: ['payload', 'duplicateOfIssueId'], message: 'CLOSE_AS_DUPLICATE needs payload.duplicateOfIssueId (an issue id or key)' });
    }
    if (p.statusId !== undefined) need('statusId');
  }
  if (v.kind === 'SET_LABELS') {
    const list = z.array(z.uuid()).max(100);
    for (const key of ['add', 'remove']) {
      if (p[key] !== undefined && !list.safeParse(p[key]).success) ctx.addIssue({ code: 'custom', path: ['payload', key], message: `payload.${key} must be a list of label ids` });
    }
    if (![p.add, p.remove].some((l) => Array.isArray(l) && l.length > 0)) ctx.addIssue({ code: 'custom', path: ['payload'], message: 'SET_LABELS needs payload.add or payload.remove' });
  }
  if (v.options && new Set(v.options.map((o) => o.key)).size !== v.options.length) {
    ctx.addIssue({ code: 'custom', path: ['options'], message: 'option keys must be unique' });
  }
}

export const actionRequestFields = actionRequestBase.superRefine(checkActionRequest);

export const ActionRequestOut = z.looseObject({
  id: z.string(), title: z.string(), body: z.string().nullable(), severity: arSeverity, kind: arKind,
  payload: z.record(z.string(), z.unknown()), assignedUserId: z.string().nullable(), assignedAgentId: z.string().nullable(),
  issueId: z.string().nullable(), commentId: z.string().nullable(), dueAt: timestamp.nullable(),
  sourceType: z.string().nullable(), sourceId: z.string().nullable(), status: arStatus,
  options: z.array(z.looseObject({ key: z.string(), label: z.string(), description: z.string().optional() })), isPoll: z.boolean(),
  votingClosedAt: timestamp.nullable(), winningOptionKey: z.string().nullable(),
  requestedByUserId: z.string().nullable(), requestedByAgentId: z.string().nullable(),
  resolvedAt: timestamp.nullable(), resolvedByUserId: z.string().nullable(), resolvedByAgentId: z.string().nullable(),
  dispatchResult: z.record(z.string(), z.unknown()).nullable(),
  createdAt: timestamp, updatedAt: timestamp,
});

export const StepOut = z.looseObject({
  id: z.string(), planId: z.string(), position: z.number(), title: z.string(), body: z.string().nullable(),
  expectedOutput: z.string().nullable(), verification: z.array(z.looseObject({ label: z.string(), done: z.boolean() })), dependsOnStepIds: z.array(z.string()),
  assignedAgentId: z.string().nullable(), assignedRole: crewRole.nullable(), status: stepStatus, retryCount: z.number(),
  lastFeedback: z.string().nullable(),
  judgeVerdict: z.looseObject({ verdict: z.enum(['PASS', 'FAIL']), feedback: z.string().nullable(), score: z.number().nullable(),
    judgedByAgentId: z.string().nullable(), judgedAt: timestamp }).nullable(),
  judgeAgentId: z.string().nullable(), contextSetId: z.string().nullable().describe("The step's own; null: its worker gets the plan's"),
  sourceRunId: z.string().nullable().describe('The run the last executionPlans.transitionStep named as the source of the move (one of the step\'s runs)'),
  createdAt: timestamp, updatedAt: timestamp,
});

export const PlanOut = z.looseObject({
  id: z.string(), goalId: z.string(), attempt: z.number(), status: planStatus, isActiveAttempt: z.boolean(),
  plannerAgentId: z.string().nullable(), contextSetId: z.string().nullable(), autoJudge: z.boolean(), maxStepRetries: z.number(),
  approvalRequestId: z.string().nullable(), startedAt: timestamp.nullable(), finishedAt: timestamp.nullable(),
  stepCounts: z.record(z.string(), z.number()), createdAt: timestamp, updatedAt: timestamp,
  steps: z.array(StepOut).optional(),
});

export const GateOut = z.looseObject({
  id: z.string(), planId: z.string(), goalId: z.string(), stepId: z.string().nullable(),
  reason: z.enum(['STEP_BLOCKED', 'BUDGET_COST', 'BUDGET_WALL_TIME', 'MANUAL']), status: gateStatus, title: z.string(),
  details: z.record(z.string(), z.unknown()), resolutionNote: z.string().nullable(),
  openedByUserId: z.string().nullable(), openedByAgentId: z.string().nullable(), resolvedByUserId: z.string().nullable(),
  resolvedAt: timestamp.nullable(), createdAt: timestamp,
});

export const GoalOut = z.looseObject({
  id: z.string(), title: z.string(), description: z.string().nullable(), issueId: z.string().nullable(), crewId: z.string().nullable(),
  maxTotalCostUsd: z.number().nullable(), maxWallTimeMinutes: z.number().nullable(), status: goalStatus,
  startedAt: timestamp.nullable(), finishedAt: timestamp.nullable().describe('When it became ACHIEVED or ABANDONED'),
  abandonReason: z.string().nullable(), archived: z.boolean(), planCount: z.number(), totalCostUsd: z.number(),
  aggregate: z.object({ activePlanId: z.string().nullable(), totalSteps: z.number(), doneSteps: z.number(), blockedSteps: z.number() }),
  createdAt: timestamp, updatedAt: timestamp,
});

export const CrewMemberOut = z.looseObject({
  id: z.string(), crewId: z.string(), agentId: z.string(), role: crewRole, createdAt: timestamp,
  agent: z.object({ id: z.string(), profileKey: z.string(), name: z.string(), archived: z.boolean() }).nullable(),
});

export const CrewOut = z.looseObject({
  id: z.string(), name: z.string(), description: z.string().nullable(), maxParallel: z.number(), archived: z.boolean(),
  archivedAt: timestamp.nullable(),
  members: z.array(CrewMemberOut), memberCount: z.number(), planCount: z.number(), createdAt: timestamp, updatedAt: timestamp,
});
