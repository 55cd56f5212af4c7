import { z } from 'zod';
import { cursor, defineTools, id, limit, line, page, tool } from './define.ts';
import { LabelOut } from './shapes.ts';

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'color must be #RRGGBB');
const name = line(100);

export const labelTools = defineTools(
  tool({
    name: 'labels.list',
    scopes: ['READ_ISSUES'],
    description: 'Labels of the workspace, by name. query matches part of the name. Use label ids with issues.addLabels / removeLabels or issues.update labelIds.',
    input: z.strictObject({ query: z.string().max(100).optional(), limit: limit(100, 200), cursor: cursor.optional() }),
    output: page(LabelOut),
    readOnly: true,
  }),
  tool({
    name: 'labels.get',
    scopes: ['READ_ISSUES'],
    description: 'One label by id.',
    input: z.strictObject({ id: id('id') }),
    output: LabelOut,
    readOnly: true,
  }),
  tool({
    name: 'labels.create',
    scopes: ['WRITE_ISSUES'],
    description: 'Create a label (name unique in the workspace, case-insensitive; 409 label_exists).',
    input: z.strictObject({ name, color: color.optional(), description: z.string().max(1000).optional() }),
    output: LabelOut,
  }),
  tool({
    name: 'labels.update',
    refusesNarrowedKeys: 'projectOrLabel',
    scopes: ['WRITE_ISSUES'],
    description: 'Rename, recolor or describe a label. Keys narrowed to projects or labels may not.',
    input: z.strictObject({ id: id('id'), name: name.optional(), color: color.optional(), description: z.string().max(1000).nullable().optional() }),
    output: LabelOut,
  }),
  tool({
    name: 'labels.delete',
    refusesNarrowedKeys: 'projectOrLabel',
    scopes: ['WRITE_ISSUES'],
    description: 'Delete a label; it comes off every issue. Keys narrowed to projects or labels may not.',
    input: z.strictObject({ id: id('id') }),
    output: z.object({ ok: z.boolean(), id: z.string(), removedFromIssues: z.number() }),
  }),
  tool({
    name: 'labels.merge',
    refusesNarrowedKeys: 'projectOrLabel',
    scopes: ['WRITE_ISSUES'],
    description: 'Merge label fromId into intoId: its issues get intoId, then fromId is deleted (as labels.delete). Returns the surviving label and issue counts. Keys narrowed to projects or labels may not.',
    input: z.strictObject({ fromId: id('fromId').describe('The label that goes'), intoId: id('intoId').describe('The label that stays') }),
    output: z.object({ ok: z.boolean(), fromId: z.string(), fromName: z.string(), into: LabelOut, issueCount: z.number(), addedToIssues: z.number() }),
    // Its verb says nothing to the defaults: it deletes a label, and a second call finds fromId gone (404).
    destructive: true,
    idempotent: false,
  }),
);
