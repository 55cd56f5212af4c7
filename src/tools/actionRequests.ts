import { z } from 'zod';
import { cursor, defineTools, id, isoDateTime, issueRef, limit, line, page, timestamp, tool } from './define.ts';
import { ActionRequestOut, actionRequestBase, arSeverity, arStatus, checkActionRequest } from './orchestration-shapes.ts';

const reqId = z.strictObject({ id: id('id') });

export const actionRequestTools = defineTools(
  tool({
    name: 'actionRequests.list',
    scopes: ['READ_ISSUES'],
    description: 'Action requests (recommendation cards and polls), newest first, paged ({items, nextCursor}). Filters: status, assignedAgentId, assignedUserId, issueId, sourceType, sourceId. A narrowed key sees those on issues it can see and those assigned to it.',
    input: z.strictObject({
      status: arStatus.optional(), assignedAgentId: id('assignedAgentId').optional(), assignedUserId: id('assignedUserId').optional(),
      issueId: issueRef.optional(), sourceType: z.string().max(100).optional(), sourceId: id('sourceId').optional(),
      cursor: cursor.optional(), limit: limit(50, 200),
    }),
    output: page(ActionRequestOut),
    readOnly: true,
  }),
  tool({
    name: 'actionRequests.get',
    scopes: ['READ_ISSUES'],
    description: 'One action request by id, as actionRequests.list shows it.',
    input: reqId,
    output: ActionRequestOut,
    readOnly: true,
  }),
  tool({
    name: 'actionRequests.create',
    scopes: ['WRITE_ISSUES'],
    description: 'Ask a person or agent to decide: a recommendation card whose kind binds what accept runs (TRANSITION {statusId}, SET_LABELS {add?, remove?}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId?}, or FREE_FORM). options[] (2-20 {key, label, description?}) make it a poll. The caller is the requester.',
    input: actionRequestBase.extend({
      issueId: issueRef.optional(), sourceType: line(100).optional(), sourceId: id('sourceId').optional(),
    }).superRefine(checkActionRequest),
    output: ActionRequestOut,
  }),
  tool({
    name: 'actionRequests.update',
    scopes: ['WRITE_ISSUES'],
    description: 'The requester (or a workspace OWNER/ADMIN person) amends an open or snoozed request: title, body, severity, dueAt, assignee (null clears). Kind, payload and options stay. Closed: 409. To withdraw it, transition it to DISMISSED.',
    input: z.strictObject({
      id: id('id'), title: actionRequestBase.shape.title.optional(), body: actionRequestBase.shape.body.unwrap().nullable().optional(),
      severity: arSeverity.optional(), dueAt: isoDateTime().nullable().optional(),
      assignedUserId: id('assignedUserId').nullable().optional(), assignedAgentId: id('assignedAgentId').nullable().optional(),
    }),
    output: ActionRequestOut,
  }),
  tool({
    name: 'actionRequests.transition',
    scopes: ['WRITE_ISSUES'],
    description: 'Move an open request to RESOLVED, DISMISSED, SNOOZED or REJECTED (a SNOOZED one also back to OPEN) without running its dispatch. Who: whoever may accept or decline it; its requester may only dismiss it (403 own_request), unless an OWNER/ADMIN person (403 not_allowed otherwise; 403 run_mode_gated for an agent in a RESEARCH, REVIEW or DISCUSS run on its issue). Closed requests do not move (409); closing a poll closes its voting.',
    input: z.strictObject({ id: id('id'), status: z.enum(['OPEN', 'RESOLVED', 'DISMISSED', 'SNOOZED', 'REJECTED']) }),
    output: ActionRequestOut,
  }),
  tool({
    name: 'actionRequests.accept',
    scopes: ['WRITE_ISSUES'],
    description: "Accept a request: runs its bound dispatch (transition, labels, agent assignment, close as duplicate; a plan approval activates the plan) in the same transaction, with the same authorization and run-mode gating as the direct tool, and resolves it. Only the assignee (the assigned user, or the assigned agent's own key), a watcher of its issue, or a workspace OWNER/ADMIN acting as a person (403 not_allowed otherwise); never its requester, unless an OWNER/ADMIN person (403 own_request: it withdraws it with transition DISMISSED), nor an agent working in the plan a plan approval is about (403 own_plan).",
    input: reqId,
    output: ActionRequestOut,
  }),
  tool({
    name: 'actionRequests.decline',
    scopes: ['WRITE_ISSUES'],
    description: 'Decline a request: REJECTED, nothing dispatched. Same permission as accept.',
    input: reqId,
    output: ActionRequestOut,
  }),
  tool({
    name: 'actionRequests.vote',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: "Vote on a poll: one vote per user, re-voting overwrites until voting is closed (then 400). Returns {id (the request's), optionKey, changed, previousOptionKey, voteId}; writes ISSUE_UPDATED (subjectType action-request).",
    input: z.strictObject({ id: id('id'), optionKey: z.string().min(1).max(100) }),
    output: z.looseObject({
      id: z.string(), optionKey: z.string(), changed: z.boolean(), previousOptionKey: z.string().nullable(), voteId: z.string(),
    }),
  }),
  tool({
    name: 'actionRequests.results',
    scopes: ['READ_ISSUES'],
    description: "A poll's results: per option {optionKey, label, count, firstVoteAt}, total, myVote, winningOptionKey (named by closeVoting; null when the poll was closed with its request instead), leadingOptionKey (by the same rule) and votingClosedAt.",
    input: reqId,
    output: z.looseObject({
      id: z.string().describe('The request'),
      options: z.array(z.object({ optionKey: z.string(), label: z.string(), count: z.number(), firstVoteAt: timestamp.nullable() })),
      total: z.number(), myVote: z.string().nullable(), winningOptionKey: z.string().nullable(),
      leadingOptionKey: z.string().nullable(), votingClosedAt: timestamp.nullable(),
    }),
    readOnly: true,
  }),
  tool({
    name: 'actionRequests.closeVoting',
    scopes: ['WRITE_ISSUES'],
    description: 'Close a poll (the requester only): the winner has the most votes, ties go to the option voted for first, no votes at all to the first option. The request itself stays open. Writes ISSUE_UPDATED (subjectType action-request).',
    input: reqId,
    output: z.looseObject({
      id: z.string(), winningOptionKey: z.string().nullable(), total: z.number(),
      status: arStatus.describe('The request\'s own status (it stays open)'), votingClosedAt: timestamp,
    }),
  }),
);
