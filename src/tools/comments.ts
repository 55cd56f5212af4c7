import { z } from 'zod';
import { bodyText as body, cursor, defineTools, id, issueRef, limit, page, tool } from './define.ts';
import { ActionRequestOut, actionRequestFields } from './orchestration-shapes.ts';
import { CommentOut } from './shapes.ts';

const confidence = z.enum(['LOW', 'MEDIUM', 'HIGH']).describe('How sure the author is; persisted, shown for agent-authored comments');

export const commentTools = defineTools(
  tool({
    name: 'comments.create',
    scopes: ['WRITE_COMMENTS'],
    description: "Post a comment on an issue (markdown). The author is the key's user; an agent-linked key is recorded as authoringAgent. Allowed in every run mode. With actionRequest (which needs WRITE_ISSUES too), its recommendation card (a poll when it has options; fields as actionRequests.create) is created on the issue in the same transaction.",
    input: z.strictObject({ issueId: issueRef, body, confidence: confidence.optional(), actionRequest: actionRequestFields.optional() }),
    output: CommentOut.extend({ actionRequest: ActionRequestOut.optional() }),
  }),
  tool({
    name: 'comments.createMany',
    scopes: ['WRITE_COMMENTS'],
    description: 'Post up to 100 comments in one call, all or nothing (each item as comments.create, without actionRequest); a failing item names its field as items.N.field.',
    input: z.strictObject({ items: z.array(z.strictObject({ issueId: issueRef, body, confidence: confidence.optional() })).min(1).max(100) }),
    output: z.object({ items: z.array(CommentOut) }),
  }),
  tool({
    name: 'comments.update',
    scopes: ['WRITE_COMMENTS'],
    description: 'Edit a comment: its author, a workspace OWNER/ADMIN, or an ADMIN key. The previous body is kept in its revision history (last 20); editedAt is set.',
    input: z.strictObject({ id: id('id'), body, confidence: confidence.nullable().optional() }),
    output: CommentOut,
  }),
  tool({
    name: 'comments.delete',
    scopes: ['WRITE_COMMENTS'],
    description: 'Delete a comment (soft: hidden from lists and issue bundles, kept for audit). Same permission as comments.update.',
    input: z.strictObject({ id: id('id') }),
    output: z.object({ ok: z.boolean(), id: z.string(), deleted: z.boolean() }),
  }),
  tool({
    name: 'comments.list',
    scopes: ['READ_ISSUES'],
    description: 'Comments of an issue, newest first, with author {id, name, email} and authoringAgent {id, profileKey, name}. Page with before = nextCursor.',
    input: z.strictObject({ issueId: issueRef, before: cursor.optional(), limit: limit(50, 200) }),
    output: page(CommentOut),
    readOnly: true,
  }),
  tool({
    name: 'comments.get',
    scopes: ['READ_ISSUES'],
    description: 'One comment by id.',
    input: z.strictObject({ id: id('id') }),
    output: CommentOut,
    readOnly: true,
  }),
  tool({
    name: 'comments.upsertStatus',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: "Set the calling agent's rolling STATUS comment for its open run on an issue: created the first time, replaced in place afterwards (same body: no change). Needs an agent-linked key and an open run (assignment opens one).",
    input: z.strictObject({ issueId: issueRef, body, confidence: confidence.optional() }),
    output: CommentOut.extend({ created: z.boolean() }),
  }),
);
