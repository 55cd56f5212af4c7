import { z } from 'zod';
import { EVENT_KINDS, type EventKind } from '../events/kinds.ts';
import { cursor, defineTools, id, limit, page, tool } from './define.ts';
import { EventOut } from './shapes.ts';

/**
 * What each kind means (events.kinds): its subject type(s) and one line. `spec`: listed in spec 6.1 (or named
 * there, as AGENT_RUN_KICKED); `service`: ours (docs/decisions.md). A Record over EventKind, so a new kind does
 * not type-check until it is described here.
 */
const KIND_INFO: Record<EventKind, { subjectTypes: string[]; meaning: string; origin: 'spec' | 'service' }> = {
  ISSUE_CREATED: { subjectTypes: ['issue'], meaning: 'An issue was created.', origin: 'spec' },
  ISSUE_UPDATED: { subjectTypes: ['issue', 'action-request'], meaning: 'Issue fields other than status, priority and assignment changed (payload.changes names them: labels, relations, cycle, attachments, ...); on an action-request subject: the request was created, moved, voted on or its voting closed.', origin: 'spec' },
  ISSUE_DELETED: { subjectTypes: ['issue'], meaning: 'An issue was soft-deleted.', origin: 'spec' },
  ISSUE_STATUS_CHANGED: { subjectTypes: ['issue'], meaning: 'An issue moved to another status (payload from, to).', origin: 'spec' },
  ISSUE_ASSIGNED: { subjectTypes: ['issue'], meaning: 'An agent was assigned to an issue (AGENT_ASSIGNED follows with the details).', origin: 'spec' },
  ISSUE_PRIORITY_CHANGED: { subjectTypes: ['issue'], meaning: 'An issue\'s priority changed (payload from, to).', origin: 'spec' },
  ISSUE_QUEUED: { subjectTypes: ['issue'], meaning: 'An issue entered the dispatch pool (queued became true).', origin: 'spec' },
  COMMENT_CREATED: { subjectTypes: ['comment'], meaning: 'A comment was posted on an issue.', origin: 'spec' },
  COMMENT_UPDATED: { subjectTypes: ['comment'], meaning: 'A comment was edited or soft-deleted (payload.deleted), or a status comment was replaced.', origin: 'spec' },
  PROJECT_CREATED: { subjectTypes: ['project'], meaning: 'A project was created.', origin: 'spec' },
  PROJECT_UPDATED: { subjectTypes: ['project'], meaning: 'A project was edited, archived, unarchived, or linked to / unlinked from an initiative.', origin: 'spec' },
  SKILL_INVOKED: { subjectTypes: ['plugin'], meaning: 'A plugin skill fired.', origin: 'spec' },
  PLUGIN_ERROR: { subjectTypes: ['plugin'], meaning: 'A plugin runtime error.', origin: 'spec' },
  AGENT_CREATED: { subjectTypes: ['agent'], meaning: 'An agent was created.', origin: 'spec' },
  AGENT_UPDATED: { subjectTypes: ['agent'], meaning: 'An agent was edited, attached to a runtime or unarchived.', origin: 'spec' },
  AGENT_DELETED: { subjectTypes: ['agent'], meaning: 'An agent was archived or deleted.', origin: 'spec' },
  AGENT_ASSIGNED: { subjectTypes: ['issue'], meaning: 'An agent was assigned to an issue, by hand, by handoff or by the dispatcher (payload agentId, from, to, auto, reason, dispatch).', origin: 'spec' },
  AGENT_STATUS_CHANGED: { subjectTypes: ['agent'], meaning: 'An agent went ONLINE, BUSY or OFFLINE.', origin: 'spec' },
  MEMBERSHIP_CREATED: { subjectTypes: ['membership'], meaning: 'A person was added to the workspace.', origin: 'spec' },
  MEMBERSHIP_ROLE_CHANGED: { subjectTypes: ['membership'], meaning: 'A member\'s role changed.', origin: 'spec' },
  MEMBERSHIP_REMOVED: { subjectTypes: ['membership'], meaning: 'A member was removed from the workspace.', origin: 'spec' },
  ISSUE_STALLED: { subjectTypes: ['issue'], meaning: 'The stale-work watchdog found an assigned issue without activity past its SLA.', origin: 'spec' },
  AGENT_NOACK: { subjectTypes: ['issue'], meaning: 'An assigned agent did not acknowledge (comment or status move) within the workspace\'s required-ack window.', origin: 'spec' },
  ISSUE_SLA_BREACH: { subjectTypes: ['issue'], meaning: 'A queued issue waited past its SLA window.', origin: 'spec' },
  CHAT_MESSAGE_POSTED: { subjectTypes: ['chat-thread', 'chat-thread-stream'], meaning: 'A chat message was posted (chat-thread, stored), or a streaming draft started, grew or was finalized (chat-thread-stream, stream only).', origin: 'spec' },
  GOAL_CREATED: { subjectTypes: ['goal'], meaning: 'An orchestration goal was created.', origin: 'spec' },
  GOAL_STATUS_CHANGED: { subjectTypes: ['goal'], meaning: 'A goal moved (OPEN, PLANNING, ACTIVE, ACHIEVED, ABANDONED; payload from, to, planId).', origin: 'spec' },
  EXECUTION_STEP_READY: { subjectTypes: ['execution-step'], meaning: 'A plan step became READY and its worker (or, with phase judge, its reviewer) was dispatched.', origin: 'spec' },
  EXECUTION_STEP_JUDGED: { subjectTypes: ['execution-step'], meaning: 'A judge recorded PASS or FAIL on a step (payload verdict, outcome).', origin: 'spec' },
  PLAN_BUDGET_EXCEEDED: { subjectTypes: ['execution-plan'], meaning: 'A running plan passed its cost or wall-time cap and was blocked.', origin: 'spec' },
  AGENT_RUN_KICKED: { subjectTypes: ['issue'], meaning: 'runs.kick nudged a quiet ACTIVE run (re-delivered to its agent).', origin: 'spec' },
  AGENT_RUN_STATUS_CHANGED: { subjectTypes: ['issue'], meaning: 'An agent run on the issue moved (WAITING, ACTIVE, STALLED, COMPLETED, ABANDONED; payload runId, from, to, reason).', origin: 'service' },
  AGENT_RUN_UPDATED: { subjectTypes: ['agent-run'], meaning: 'A run\'s agent reported new usage or a new current step (runs.recordUsage; payload runId, issueId, changes, tokensIn, tokensOut, tokensCached, costUsd, currentStep). Follows the issue\'s narrowing.', origin: 'service' },
  RUNTIME_REGISTERED: { subjectTypes: ['runtime'], meaning: 'A runtime was registered or restored.', origin: 'service' },
  RUNTIME_UPDATED: { subjectTypes: ['runtime'], meaning: 'A runtime\'s configuration changed.', origin: 'service' },
  EXECUTION_PLAN_STATUS_CHANGED: { subjectTypes: ['execution-plan'], meaning: 'An execution plan was created or moved (DRAFT, APPROVED, RUNNING, BLOCKED, COMPLETED, CANCELED).', origin: 'service' },
  EXECUTION_STEP_STATUS_CHANGED: { subjectTypes: ['execution-step'], meaning: 'A plan step was added or moved (TODO, READY, RUNNING, REVIEW, DONE, BLOCKED, CANCELED).', origin: 'service' },
  REVIEW_GATE_OPENED: { subjectTypes: ['review-gate'], meaning: 'A review gate now holds a plan or step for a person\'s decision.', origin: 'service' },
  REVIEW_GATE_RESOLVED: { subjectTypes: ['review-gate'], meaning: 'A review gate was approved, rejected or canceled.', origin: 'service' },
  CREW_CREATED: { subjectTypes: ['crew'], meaning: 'An agent crew was created.', origin: 'service' },
  CREW_UPDATED: { subjectTypes: ['crew'], meaning: 'A crew was edited, archived or unarchived, or its members changed.', origin: 'service' },
  INITIATIVE_CREATED: { subjectTypes: ['initiative'], meaning: 'An initiative was created.', origin: 'service' },
  INITIATIVE_UPDATED: { subjectTypes: ['initiative'], meaning: 'An initiative was edited, archived or unarchived, or its attachments changed.', origin: 'service' },
  CYCLE_CREATED: { subjectTypes: ['cycle'], meaning: 'A cycle (sprint) was created.', origin: 'service' },
  CYCLE_UPDATED: { subjectTypes: ['cycle'], meaning: 'A cycle was renamed or re-dated, its stored status moved (rollover), or its attachments changed.', origin: 'service' },
  GOAL_UPDATED: { subjectTypes: ['goal'], meaning: 'A goal\'s title or description changed.', origin: 'service' },
  CYCLE_DELETED: { subjectTypes: ['cycle'], meaning: 'A cycle that had not run was deleted (its issues lost the cycle, each with ISSUE_UPDATED).', origin: 'service' },
  ISSUE_RESTORED: { subjectTypes: ['issue'], meaning: 'A soft-deleted issue was restored.', origin: 'service' },
  STATUS_CREATED: { subjectTypes: ['status'], meaning: 'A workflow status was added.', origin: 'service' },
  STATUS_UPDATED: { subjectTypes: ['status'], meaning: 'A workflow status was changed.', origin: 'service' },
  STATUS_DELETED: { subjectTypes: ['status'], meaning: 'A workflow status was deleted.', origin: 'service' },
  WEBHOOK_CREATED: { subjectTypes: ['webhook'], meaning: 'A webhook was registered.', origin: 'service' },
  WEBHOOK_UPDATED: { subjectTypes: ['webhook'], meaning: 'A webhook\'s registration was changed.', origin: 'service' },
  WEBHOOK_DELETED: { subjectTypes: ['webhook'], meaning: 'A webhook was removed.', origin: 'service' },
  WEBHOOK_TESTED: { subjectTypes: ['webhook'], meaning: 'webhooks.test sent a test delivery; only the tested webhook receives it, whatever its filter.', origin: 'service' },
  CANVAS_CREATED: { subjectTypes: ['canvas'], meaning: 'A canvas was created.', origin: 'service' },
  CANVAS_UPDATED: { subjectTypes: ['canvas'], meaning: 'A canvas was changed.', origin: 'service' },
  CANVAS_DELETED: { subjectTypes: ['canvas'], meaning: 'A canvas was deleted.', origin: 'service' },
  LABEL_CREATED: { subjectTypes: ['label'], meaning: 'A label was created.', origin: 'service' },
  LABEL_UPDATED: { subjectTypes: ['label'], meaning: 'A label\'s name, color or description changed (payload.changes names them).', origin: 'service' },
  LABEL_DELETED: { subjectTypes: ['label'], meaning: 'A label was deleted (labels.delete, or merged away by labels.merge); its issues each record ISSUE_UPDATED labelIds.', origin: 'service' },
  API_KEY_CREATED: { subjectTypes: ['api-key'], meaning: 'A key was issued (access.*, a plugin key, the CLI): kind, prefix, person, linked agent, expiry; never the token. Read by workspace admins and the key\'s own person.', origin: 'service' },
  API_KEY_REVOKED: { subjectTypes: ['api-key'], meaning: 'A key was revoked (accessRevoke, svc admin revoke-key, its member removed). Read by workspace admins and the key\'s own person.', origin: 'service' },
  CHAT_THREAD_OPENED: { subjectTypes: ['chat-thread'], meaning: 'A person opened a chat thread with an agent (with or without a first message, which has its own CHAT_MESSAGE_POSTED). Read by whoever sees the thread.', origin: 'service' },
  USER_UPDATED: { subjectTypes: ['user'], meaning: 'A member changed their profile (GraphQL viewerUpdate, or svc admin update-user): payload.changes names what changed (name, timezone), with the values after. Written in each workspace the person belongs to.', origin: 'service' },
  DISPATCH_RULE_CREATED: { subjectTypes: ['dispatch-rule'], meaning: 'A dispatch rule was added (its conditions, target agent and position).', origin: 'service' },
  DISPATCH_RULE_UPDATED: { subjectTypes: ['dispatch-rule'], meaning: 'A dispatch rule changed (payload.changes names what: its conditions, target, enabled, or its position when rules are added, deleted or reordered).', origin: 'service' },
  DISPATCH_RULE_DELETED: { subjectTypes: ['dispatch-rule'], meaning: 'A dispatch rule was deleted, by an admin or with the label, project or agent it named.', origin: 'service' },
  REPO_MAPPING_CREATED: { subjectTypes: ['repo-mapping'], meaning: 'A repository was mapped for the repohost tools (its status rules, title sync, API URL).', origin: 'service' },
  REPO_MAPPING_UPDATED: { subjectTypes: ['repo-mapping'], meaning: 'A repository mapping changed (payload.changes names what: statusRules, syncTitle, apiUrl, tokenEnv, active).', origin: 'service' },
  REPO_MAPPING_DELETED: { subjectTypes: ['repo-mapping'], meaning: 'A repository mapping was removed.', origin: 'service' },
  PLUGIN_CREATED: { subjectTypes: ['plugin'], meaning: 'A plugin was recorded (its scopes and skills).', origin: 'service' },
  PLUGIN_UPDATED: { subjectTypes: ['plugin'], meaning: "A plugin's skills or scopes changed (payload.changes).", origin: 'service' },
  WORKSPACE_UPDATED: { subjectTypes: ['workspace'], meaning: 'The workspace\'s name or settings changed (payload.changes names them), from a tool, GraphQL or the operator CLI.', origin: 'service' },
};
const KINDS = EVENT_KINDS.map((kind) => ({ kind, ...KIND_INFO[kind] }));
/** Every subject type an event can have (a typo such as "Issue" in a filter would otherwise list nothing). */
const SUBJECT_TYPES = [...new Set(KINDS.flatMap((k) => k.subjectTypes))].sort();

export const eventTools = defineTools(
  tool({
    name: 'events.recent',
    scopes: ['READ_ISSUES'],
    description: 'Recent activity events of the workspace, newest first. Filter by subject (e.g. subjectType "issue" and an issue id or key) or kinds; page with before = nextCursor.',
    input: z.strictObject({
      subjectType: z.string().max(50).refine((t) => SUBJECT_TYPES.includes(t), `not a subject type: one of ${SUBJECT_TYPES.join(', ')}`)
        .optional().describe('issue, comment, project, agent, membership, ... (events.kinds gives each kind\'s)'),
      subjectId: z.string().min(1).max(64).optional().describe('The subject\'s id (UUID); with subjectType "issue" also an issue key such as ENG-12'),
      kinds: z.array(z.string().refine((k) => (EVENT_KINDS as readonly string[]).includes(k), 'not an event kind (events.kinds lists them)'))
        .max(50).optional().describe('Event kinds such as ISSUE_CREATED'),
      limit: limit(50, 200),
      before: cursor.optional(),
    }),
    output: page(EventOut),
    readOnly: true,
  }),
  tool({
    name: 'events.kinds',
    scopes: [],
    description: 'Every activity event kind with its subject type(s), a one-line meaning and origin (spec, or service: added here).',
    input: z.strictObject({}),
    output: z.array(z.object({ kind: z.string(), subjectTypes: z.array(z.string()), meaning: z.string(), origin: z.enum(['spec', 'service']) })),
    readOnly: true,
    // Static: the list is the code's (src/events/kinds.ts, kept equal to SQL's by a test), nothing to query.
    run: async () => KINDS,
  }),
  tool({
    name: 'events.get',
    scopes: ['READ_ISSUES'],
    description: 'One activity event by id.',
    input: z.strictObject({ id: id('id') }),
    output: EventOut,
    readOnly: true,
  }),
);
