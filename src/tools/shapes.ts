/** Output shapes shared by several namespaces (the SQL shapers in migrations produce them). */
import { z } from 'zod';
import { autoDispatchMode, engagementMode, priority, statusCategory, timestamp } from './define.ts';

const ref = z.object({ id: z.string(), name: z.string() });

/** What an attachment (or an upload) is attached to: the same values attachments.* take. */
export const attachmentTargetType = z.enum(['issue', 'initiative', 'cycle', 'comment']);
/** An issue's verificationChecklist item as stored: the id runs.complete names it by (items written before ids were given may lack one). */
export const ChecklistItemOut = z.looseObject({
  id: z.string().optional().describe('What runs.complete names the item by in verificationResult'),
  label: z.string(), done: z.boolean(),
});

export const WorkspaceOut = z.looseObject({
  id: z.string(), slug: z.string(), key: z.string(), name: z.string(),
  cycleLengthDays: z.number(), cycleCooldownDays: z.number(), timeTrackingEnabled: z.boolean(),
  attachmentQuotaMb: z.number(), requiredAckSeconds: z.number(), autoDispatch: z.boolean(),
  autoDispatchMode,
  assignmentSlaMinutes: z.number().describe('Minutes an assigned issue may go without activity before the watchdog writes ISSUE_STALLED; 0 = off'),
  agentRunStaleMinutes: z.number().describe('Minutes without a sign of life before an ACTIVE run is STALLED and an agent without heartbeat goes OFFLINE'),
  offlineReclaimMinutes: z.number().describe('Minutes a timed-out OFFLINE agent may stay silent before its work is taken back; 0 = never'),
});

export const StatusOut = z.looseObject({
  id: z.string(), name: z.string(), category: statusCategory, color: z.string(), position: z.number(), isDefault: z.boolean(),
});

/** Who runs an agent (spec 2.9), and the kinds of runtime (2.10): the tables' own checks. */
export const agentProvider = z.enum(['CUSTOM', 'CLAUDE', 'CODEX', 'HERMES']);
export const agentRuntimeMode = z.enum(['PERSISTENT', 'EPHEMERAL']);
export const runtimeKind = z.enum(['LOCAL_DAEMON', 'REMOTE_HTTP', 'CLOUD']);

export const AgentOut = z.looseObject({
  id: z.string(), profileKey: z.string(), name: z.string(), status: z.enum(['ONLINE', 'BUSY', 'OFFLINE']),
  runtimeMode: agentRuntimeMode, provider: agentProvider, capabilities: z.array(z.string()),
  lastHeartbeatAt: timestamp.nullable(), lastDispatchedAt: timestamp.nullable(), archivedAt: timestamp.nullable(), createdAt: timestamp,
  maxConcurrent: z.number().describe('Issues the dispatcher hands this agent at once'),
  webhookUrl: z.string().nullable().optional().describe("Dispatch URL: shown to workspace admins' own keys and the agent's own keys only (it may carry a token)"),
  runtime: z.object({ id: z.string(), name: z.string(), kind: runtimeKind }).nullable(),
});

export const LabelRefOut = z.looseObject({ id: z.string(), name: z.string(), color: z.string() });

export const LabelOut = z.looseObject({
  id: z.string(), name: z.string(), color: z.string(), description: z.string().nullable(),
  createdAt: timestamp, updatedAt: timestamp,
});

const agentRef = z.object({ id: z.string(), profileKey: z.string(), name: z.string() });
const userRef = z.object({ id: z.string(), name: z.string(), email: z.string().optional() });

/** An agent run's states (spec 3.3). */
export const runStatus = z.enum(['ACTIVE', 'WAITING', 'STALLED', 'COMPLETED', 'ABANDONED']);

export const RunOut = z.looseObject({
  id: z.string(), agentId: z.string(), issueId: z.string(),
  stepId: z.string().nullable().describe("A plan step's run: the step (finish it with executionPlans.transitionStep, which completes the run)"),
  status: runStatus,
  engagementMode, currentStep: z.string().nullable(),
  startedAt: timestamp, finishedAt: timestamp.nullable(), lastEventAt: timestamp,
  tokensIn: z.number(), tokensOut: z.number(), tokensCached: z.number(), costUsd: z.number(),
  controlState: z.string().nullable().describe('Reserved for controls asked of a running agent; no tool sets it yet (null), and runs.kick leaves it'),
  completionMeta: z.record(z.string(), z.unknown()).nullable().describe('What runs.complete recorded (summary, producedArtifactIds, …)'),
  agent: agentRef.nullable(),
});

export const CommentOut = z.looseObject({
  id: z.string(), issueId: z.string(), body: z.string(), kind: z.enum(['COMMENT', 'STATUS', 'HANDOFF']),
  confidence: z.enum(['LOW', 'MEDIUM', 'HIGH']).nullable(),
  authorUserId: z.string().nullable(), authoringAgentId: z.string().nullable().describe('The agent the comment was written as (an agent key), else null'),
  author: userRef.nullable(), authoringAgent: agentRef.nullable(), runId: z.string().nullable(),
  editedAt: timestamp.nullable(), createdAt: timestamp, updatedAt: timestamp,
});

export const AttachmentOut = z.looseObject({
  id: z.string(), kind: z.enum(['FILE', 'LINK']), targetType: attachmentTargetType, targetId: z.string(),
  externalUrl: z.string().nullable(), linkTitle: z.string().nullable(), filename: z.string().nullable(),
  mimeType: z.string(), size: z.number(), sizeBytes: z.number(), createdAt: timestamp,
});

/** A relation as seen from one issue: an inbound BLOCKS reads BLOCKED_BY; `issue` is the other end. */
// A link as seen from one of its issues: relations.add/listForIssue, issues.get include.relations, the context bundle
// (one declaration: issues.get's own copy lacked number and status, and its results failed its schema).
export const relationKind = z.enum(['BLOCKS', 'BLOCKED_BY', 'DUPLICATES', 'RELATES_TO']);

export const IssueRefOut = z.looseObject({
  id: z.string(), key: z.string(), number: z.number(), title: z.string(), statusId: z.string(),
  status: z.object({ id: z.string(), name: z.string(), category: statusCategory }).nullable(),
});

export const RelationOut = z.looseObject({
  id: z.string(),
  fromIssueId: z.string().describe('The link reads "fromIssueId kind toIssueId" (ENG-4 BLOCKED_BY ENG-5)'),
  toIssueId: z.string().describe('The other end of that sentence'),
  kind: relationKind.describe('From the point of view of the issue asked about: a BLOCKS link pointing at it reads BLOCKED_BY (its ends then swapped)'),
  direction: z.enum(['outbound', 'inbound']).describe('outbound: the stored link starts at the issue asked about (A BLOCKED_BY B is stored as B BLOCKS A: inbound from A)'),
  issue: IssueRefOut.nullable().describe('The other issue'),
  createdAt: timestamp,
  created: z.boolean().optional().describe('relations.add: false when the link already existed'),
});


export const WatcherOut = z.looseObject({
  id: z.string(), issueId: z.string(), type: z.enum(['user', 'agent']),
  userId: z.string().nullable(), agentId: z.string().nullable(),
  user: userRef.nullable(), agent: agentRef.nullable(), createdAt: timestamp,
});

/** The lean issue: what lists, issues.get without include and issues.updateMany answer. */
export const IssueOut = z.looseObject({
  id: z.string(), key: z.string(), number: z.number(), title: z.string(), priority,
  statusId: z.string(), status: z.object({ id: z.string(), name: z.string(), category: statusCategory }),
  projectId: z.string().nullable(), project: ref.nullable(),
  assignedAgentId: z.string().nullable(),
  assignedAgent: z.object({ id: z.string(), profileKey: z.string(), name: z.string() }).nullable(),
  claimedById: z.string().nullable(), claimExpiresAt: timestamp.nullable(), queued: z.boolean(),
  labelIds: z.array(z.string()), createdAt: timestamp, updatedAt: timestamp,
  parentId: z.string().nullable().optional(), cycleId: z.string().nullable().optional(),
  dueDate: z.string().nullable().optional(), estimate: z.number().nullable().optional(),
});

/** The full issue: what a write answers (and the context bundle's issue): the lean one, its text, labels, completion contract, creator, start and end. */
export const IssueFullOut = IssueOut.extend({
  description: z.string().nullable(), labels: z.array(LabelRefOut),
  slaMinutes: z.number().nullable(), expectedOutput: z.string().nullable(),
  verificationChecklist: z.array(ChecklistItemOut), artifactRequired: z.boolean(),
  createdByUserId: z.string().nullable(), createdByAgentId: z.string().nullable(),
  startedAt: timestamp.nullable().describe('When work first started (its first IN_PROGRESS, IN_REVIEW or DONE status)'),
  completedAt: timestamp.nullable().describe('When it entered a DONE or CANCELED status (null once reopened)'),
});

/** issues.get: the lean issue and what include asked for. */
export const IssueWithIncludesOut = IssueFullOut.partial().extend({
  ...IssueOut.shape,
  comments: z.array(CommentOut).optional().describe('include.comments: newest first'),
  commentCount: z.number().int().optional().describe('include.comments: how many comments the issue has in all (comments holds the newest; comments.list pages through them)'),
  attachments: z.array(AttachmentOut).optional(),
  relations: z.array(RelationOut).optional(),
  currentRun: RunOut.nullable().optional().describe('Newest run neither COMPLETED nor ABANDONED'),
});

export const EventOut = z.looseObject({
  id: z.string(), kind: z.string(), subjectType: z.string(), subjectId: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()), createdAt: timestamp,
  actor: z.object({ type: z.enum(['user', 'agent']), id: z.string(), name: z.string(), image: z.string().nullable() })
    .loose().nullable().optional(),
});
