import { z } from 'zod';
import { defineTools, id, issueRef, tool } from './define.ts';
import { RelationOut, relationKind } from './planning-shapes.ts';

export const relationTools = defineTools(
  tool({
    name: 'relations.add',
    scopes: ['WRITE_ISSUES'],
    description: 'Link two issues: fromIssue <kind> toIssue, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO (A BLOCKS B is seen from B as BLOCKED_BY A). Adding a link that already exists returns it with created false. No self-links.',
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
    description: 'Every relation of an issue, inbound and outbound, each read from that issue: fromIssueId is the issue asked about (e.g. BLOCKED_BY for an issue another one blocks), issue is the other end. Optional kind filter.',
    input: z.strictObject({ issueId: issueRef, kind: relationKind.optional() }),
    output: z.array(RelationOut),
    readOnly: true,
  }),
);
