import { z } from 'zod';
import { cursor, defineTools, id, limit, line, money, page, tool } from './define.ts';
import { RunOut, runStatus } from './shapes.ts';

const runId = id('runId');
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const agentOnly = 'Only a key linked to the run\'s agent (403 otherwise).';

export const RunListOut = RunOut.extend({
  issue: z.object({ id: z.string(), key: z.string(), number: z.number(), title: z.string(), workspace: z.object({ key: z.string() }) }).nullable(),
});

export const runTools = defineTools(
  tool({
    name: 'runs.recordUsage',
    requiresAgentKey: true,
    scopes: ['WRITE_ISSUES'],
    description: `Report cumulative usage of a run: each given value replaces the stored one (idempotent; send totals, not increments). costUsd is stored verbatim. currentStep (one line; null clears) says what the run is doing now, for people watching; only while the run is open (409 run_closed). A report that changes something writes AGENT_RUN_UPDATED (subject the run). ${agentOnly}`,
    input: z.strictObject({
      runId, tokensIn: count.optional(), tokensOut: count.optional(), tokensCached: count.optional(), costUsd: money.optional(),
      currentStep: line(200).nullable().optional(),
    }),
    output: RunOut,
    idempotent: true, // totals replace totals
  }),
  tool({
    name: 'runs.complete',
    requiresAgentKey: true,
    scopes: ['WRITE_ISSUES'],
    description: `Close an open run as COMPLETED. Gates by mode: EXECUTE needs a produced artifact when the issue has artifactRequired and every verificationChecklist item reported done in verificationResult [{id | label, done}] (by id, else by label: exact after trimming); RESEARCH needs confidence; REVIEW needs verdict (which only a REVIEW run takes); DISCUSS takes a summary only. An EXECUTE completion marks the issue's checklist items done (ISSUE_UPDATED). completionMeta keeps what was reported and the run contract version. Closes the run only: move the issue to a done status too (issues.transition; an open issue keeps your dispatch slot). A plan step's run (stepId): executionPlans.transitionStep instead. ${agentOnly}`,
    input: z.strictObject({
      runId, summary: z.string().trim().min(1).max(20_000),
      producedArtifactIds: z.array(z.string().min(1).max(200)).max(100).optional(),
      verificationResult: z.array(z.looseObject({ id: z.string().optional(), label: z.string().optional(), done: z.boolean(), note: z.string().max(2000).optional() })).max(200).optional(),
      followUps: z.array(z.union([z.string().max(2000), z.record(z.string(), z.unknown())])).max(50).optional(),
      confidence: z.enum(['LOW', 'MEDIUM', 'HIGH']).optional(),
      verdict: z.enum(['APPROVE', 'REQUEST_CHANGES']).optional(),
    }),
    output: RunOut.extend({ completionMeta: z.record(z.string(), z.unknown()).nullable().optional() }),
  }),
  tool({
    name: 'runs.setWaiting',
    requiresAgentKey: true,
    scopes: ['WRITE_ISSUES'],
    description: `Mark a run WAITING (blocked on someone else); already waiting: unchanged. ${agentOnly}`,
    input: z.strictObject({ runId, reason: z.string().max(500).optional() }),
    output: RunOut,
  }),
  tool({
    name: 'runs.resumeWork',
    requiresAgentKey: true,
    scopes: ['WRITE_ISSUES'],
    description: `Resume a WAITING (or STALLED) run: back to ACTIVE. ${agentOnly}`,
    input: z.strictObject({ runId }),
    output: RunOut,
  }),
  tool({
    name: 'runs.cancel',
    requiresUser: 'userOrAgent',
    scopes: ['WRITE_ISSUES'],
    description: "End an open run without completing it: ABANDONED, reason canceled (AGENT_RUN_STATUS_CHANGED); completionMeta keeps cancelReason. The run's agent, or a person's key (another agent's key: 403). Closed runs: 409. The issue stays assigned to the agent and out of the dispatcher's reach: to give the work back, issues.unassign (which also ends the run).",
    input: z.strictObject({ runId, reason: z.string().trim().min(1).max(2000).optional() }),
    output: RunOut.extend({ completionMeta: z.record(z.string(), z.unknown()).nullable().optional() }),
    destructive: true,
    idempotent: false,
  }),
  tool({
    name: 'runs.list',
    scopes: ['READ_ISSUES'],
    description: 'Agent runs on issues the key can see, newest first by startedAt: status, currentStep, timestamps, token usage, costUsd, issue {id, key, number, title, workspace {key}}, agent {id, profileKey}. Page with before = nextCursor.',
    input: z.strictObject({
      agentId: id('agentId').optional(), issueId: z.string().min(1).max(64).optional().describe('Issue id or key'),
      status: runStatus.optional(),
      limit: limit(50, 200), before: cursor.optional(),
    }),
    output: page(RunListOut),
    readOnly: true,
  }),
  tool({
    name: 'runs.get',
    scopes: ['READ_ISSUES'],
    description: 'One run by id.',
    input: z.strictObject({ id: id('id') }),
    output: RunOut,
    readOnly: true,
  }),
  tool({
    name: 'runs.kick',
    scopes: ['WRITE_ISSUES'],
    description: "Nudge an ACTIVE or STALLED run of an open issue that has been quiet for 5 minutes or more and not kicked in the last 5: re-fires the agent's dispatch delivery (agent:dispatch:<agentId>) and records AGENT_RUN_KICKED (with reason, for the agent); the run itself is unchanged. Otherwise {ok: true, kicked: false}.",
    input: z.strictObject({ runId, reason: line(500).optional() }),
    output: z.looseObject({ ok: z.boolean(), kicked: z.boolean(), runId: z.string(), status: runStatus, quietSeconds: z.number(), eventId: z.string().optional() }),
  }),
);

