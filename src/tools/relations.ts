import { z } from 'zod';
import { cursor, defineTools, id, issueRef, limit, page, timestamp, tool } from './define.ts';
import { IssueRefOut, RelationOut, relationKind } from './shapes.ts';

const StoredRelationOut = z.looseObject({
  id: z.string(), kind: z.enum(['BLOCKS', 'DUPLICATES', 'RELATES_TO']),
  fromIssueId: z.string(), toIssueId: z.string(), fromIssue: IssueRefOut, toIssue: IssueRefOut, createdAt: timestamp,
});

export const relationTools = defineTools(
  tool({
    name: 'relations.add',
    scopes: ['WRITE_ISSUES'],
    description: 'Link two issues: fromIssueId <kind> toIssueId, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO. A BLOCKS B is one link, seen from B as BLOCKED_BY A (so BLOCKED_BY A→B is stored as B BLOCKS A). Returns the link as seen from fromIssueId (created false when it existed already). No self-links, no cycles of BLOCKS or DUPLICATES (409 reverse_relation_exists / relation_cycle), at most 500 links per issue (409 too_many_relations).',
    input: z.strictObject({ fromIssueId: issueRef, toIssueId: issueRef, kind: relationKind }),
    output: RelationOut,
  }),
  tool({
    name: 'relations.remove',
    scopes: ['WRITE_ISSUES'],
    description: 'Remove a relation by its id (from relations.listForIssue).',
    input: z.strictObject({ id: id('id') }),
    output: z.looseObject({ id: z.string(), removed: z.boolean(), kind: z.string(), fromIssueId: z.string(), toIssueId: z.string() }),
  }),
  tool({
    name: 'relations.listForIssue',
    scopes: ['READ_ISSUES'],
    description: 'Every relation of an issue, outbound and inbound, each seen from that issue: kind is its point of view (BLOCKED_BY when another issue blocks it), direction says which way the stored link goes, issue is the other end. Optional kind filter (applies to the kind as seen).',
    input: z.strictObject({ issueId: issueRef, kind: relationKind.optional() }),
    output: z.array(RelationOut),
    readOnly: true,
  }),
  tool({
    name: 'relations.list',
    scopes: ['READ_ISSUES'],
    description: 'Relations of the workspace as stored (fromIssue BLOCKS, DUPLICATES or RELATES_TO toIssue; BLOCKED_BY is stored reversed), oldest first, paged. Only links between issues this key can see. Filters: kind (BLOCKED_BY finds the same stored BLOCKS links), issueId (either end).',
    input: z.strictObject({
      kind: z.enum(['BLOCKS', 'BLOCKED_BY', 'DUPLICATES', 'RELATES_TO']).optional().describe('The stored kind; BLOCKED_BY finds the stored BLOCKS links, as every block is stored'),
      issueId: issueRef.optional(),
      limit: limit(50, 200),
      cursor: cursor.optional(),
    }),
    output: page(StoredRelationOut),
    readOnly: true,
  }),
);
