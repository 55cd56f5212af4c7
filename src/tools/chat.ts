import { z } from 'zod';
import { bodyText as body, cursor, defineTools, id, int, limit, page, timestamp, tool } from './define.ts';

const threadId = id('threadId');
const draftId = id('draftId');
// A chunk travels in one NOTIFY (8,000 bytes with its envelope): 4,000 plain characters fit, but escaping and
// multi-byte characters can make 4,000 characters three times longer, so the encoded size is checked too.
const DELTA_MAX_BYTES = 6000;
const draftDelta = z.string().min(1).max(4000)
  .refine((s) => Buffer.byteLength(JSON.stringify(s)) <= DELTA_MAX_BYTES,
    `must be at most ${DELTA_MAX_BYTES} bytes as JSON (quotes, newlines and control characters count more, é two): split it over more chunks`)
  .describe(`The next piece of the reply: up to 4000 characters and ${DELTA_MAX_BYTES} bytes as JSON`);
const addressee = 'Needs a key linked to the agent the thread is addressed to (403 otherwise).';

export const ChatMessageOut = z.looseObject({
  id: z.string(), threadId: z.string(), role: z.enum(['USER', 'AGENT']), body: z.string(),
  contextSnapshot: z.record(z.string(), z.unknown()).nullable(), sourceRunId: z.string().nullable(),
  createdAt: timestamp, finalizedDraftId: z.string().nullable(),
  authorUserId: z.string().nullable().describe('USER messages: the person'), authorAgentId: z.string().nullable().describe('AGENT messages: the agent'),
});

export const ChatThreadOut = z.looseObject({
  id: z.string(), agentId: z.string(), agent: z.object({ id: z.string(), profileKey: z.string(), name: z.string() }).nullable(),
  createdByUserId: z.string().nullable(), createdBy: z.looseObject({ id: z.string(), name: z.string(), email: z.string() }).nullable().describe('Who opened it'),
  title: z.string().nullable(), issueId: z.string().nullable(),
  lastMessageAt: timestamp.nullable(), createdAt: timestamp, updatedAt: timestamp,
});

export const chatTools = defineTools(
  tool({
    name: 'chat.appendMessage',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: `Reply in one piece: persists an AGENT message (CHAT_MESSAGE_POSTED). Per reply use this or the draft tools, never both. ${addressee}`,
    input: z.strictObject({ threadId, body, sourceRunId: id('sourceRunId').optional() }),
    output: z.object({ messageId: z.string(), threadId: z.string() }),
  }),
  tool({
    name: 'chat.startDraft',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: `Start a streamed reply: returns a draftId and publishes phase started on the realtime channel (SSE only; nothing stored). Then appendDraftChunk… and finalizeDraft. ${addressee}`,
    input: z.strictObject({ threadId }),
    output: z.object({ draftId: z.string(), threadId: z.string() }),
  }),
  tool({
    name: 'chat.appendDraftChunk',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: `Publish the next piece of a streamed reply (phase delta {delta, seq}); ephemeral, never stored. seq is advisory: gaps and reordering are tolerated. About one chunk per 60-200 ms. ${addressee}`,
    input: z.strictObject({ threadId, draftId, delta: draftDelta, seq: int(0) }),
    output: z.object({ ok: z.boolean() }),
  }),
  tool({
    name: 'chat.finalizeDraft',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: `Finish a streamed reply: persists the full body as an AGENT message (finalizedDraftId = draftId, CHAT_MESSAGE_POSTED) and publishes phase finalized. Finalizing the same draft again returns the same message. ${addressee}`,
    input: z.strictObject({ threadId, draftId, body, sourceRunId: id('sourceRunId').optional() }),
    output: z.object({ messageId: z.string(), threadId: z.string(), draftId: z.string() }),
  }),
  tool({
    name: 'chat.getThread',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: `A thread and its latest messages (default 50, max 200), oldest first: id, role, body, contextSnapshot, sourceRunId, createdAt, finalizedDraftId. before = a message id (or nextCursor) pages back. ${addressee}`,
    input: z.strictObject({ threadId, before: id('before').nullable().optional(), limit: z.number().int().min(1).max(200).default(50) }),
    output: z.object({ thread: ChatThreadOut, messages: z.array(ChatMessageOut), nextCursor: z.string().nullable() }),
    readOnly: true,
  }),
  tool({
    name: 'chat.getMessage',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: `One message by id (e.g. a CHAT_MESSAGE_POSTED messageId), shaped as in chat.getThread. ${addressee}`,
    input: z.strictObject({ id: id('id') }),
    output: ChatMessageOut,
    readOnly: true,
  }),
  tool({
    name: 'chat.listMessages',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: `Messages of a thread after one (cursor = nextCursor or the id of a message of the thread, e.g. the last one you read; none = from the first), oldest first, paged forward: what came since you last read. ${addressee}`,
    // The cursor is a message id (what nextCursor holds), so a client may also start after a message it knows.
    input: z.strictObject({ threadId, cursor: id('cursor').nullable().describe('nextCursor, or the id of a message of this thread: the page starts after it (absent or null: the first page)').optional(), limit: limit(50, 200) }),
    output: page(ChatMessageOut),
    readOnly: true,
  }),
  tool({
    name: 'chat.listThreads',
    requiresAgentKey: true,
    scopes: ['WRITE_COMMENTS'],
    description: `Threads addressed to your agent, latest activity first, paged: each with lastMessage (a 500-character preview) and awaitingReply (the last message is a person's). awaitingReply: true lists those only. Needs a key linked to an agent (403 otherwise).`,
    input: z.strictObject({ awaitingReply: z.boolean().optional(), limit: limit(20, 100), cursor: cursor.optional() }),
    output: page(ChatThreadOut.extend({
      lastMessage: z.object({ id: z.string(), role: z.enum(['USER', 'AGENT']), createdAt: timestamp, body: z.string(), truncated: z.boolean() }).nullable(),
      awaitingReply: z.boolean(),
    })),
    readOnly: true,
  }),
);
