import { z } from 'zod';
import { cursor, defineTools, ianaZone, id, isoDate, limit, line, page, tool } from './define.ts';

import { NoteOut, noteKind } from './planning-shapes.ts';

const date = isoDate().describe('ISO date, YYYY-MM-DD');
const title = line(500);
const body = z.string().max(200_000);

export const noteTools = defineTools(
  tool({
    name: 'notes.create',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: 'Create a private markdown note for yourself (the key\'s user). kind JOURNAL makes a daily journal entry for journalDate (default today); one per day.',
    input: z.strictObject({
      title: title.optional(), body, pinned: z.boolean().optional(), kind: noteKind.optional(), journalDate: date.optional(),
    }),
    output: NoteOut,
  }),
  tool({
    name: 'notes.list',
    requiresUser: 'user',
    scopes: ['READ_ISSUES'],
    description: 'Your notes, most recently updated first, paged ({items, nextCursor}). Kind NOTE and not archived by default; archived: true lists archived ones; pinned filters.',
    input: z.strictObject({
      archived: z.boolean().optional(), kind: noteKind.optional(), pinned: z.boolean().optional(),
      limit: limit(50, 200), cursor: cursor.optional(),
    }),
    output: page(NoteOut),
    readOnly: true,
  }),
  tool({
    name: 'notes.get',
    requiresUser: 'user',
    scopes: ['READ_ISSUES'],
    description: 'One of your own notes by id (archived too).',
    input: z.strictObject({ id: id('id') }),
    output: NoteOut,
    readOnly: true,
  }),
  tool({
    name: 'notes.update',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: 'Edit one of your notes: title (null clears), body, pinned. Only the fields given change. Archived notes cannot be edited.',
    input: z.strictObject({ id: id('id'), title: title.nullable().optional(), body: body.optional(), pinned: z.boolean().optional() }),
    output: NoteOut,
  }),
  tool({
    name: 'notes.archive',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: 'Archive one of your notes (soft; restoring is only possible in the app). Idempotent.',
    input: z.strictObject({ id: id('id') }),
    output: NoteOut,
  }),
  tool({
    name: 'notes.todayJournal',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: 'Get or create today\'s journal entry for you. "Today" is in timezone (IANA name such as Europe/Paris) if given, else your user time zone (default UTC). Idempotent; created tells whether it was just made.',
    input: z.strictObject({ timezone: ianaZone.optional() }),
    output: NoteOut.extend({ created: z.boolean() }),
  }),
  tool({
    name: 'notes.listJournal',
    requiresUser: 'user',
    scopes: ['READ_ISSUES'],
    description: 'Your journal entries, newest day first, between from and to (inclusive dates), paged ({items, nextCursor}); limit default 30.',
    input: z.strictObject({ from: date.optional(), to: date.optional(), limit: limit(30, 200), cursor: cursor.optional() }),
    output: page(NoteOut),
    readOnly: true,
  }),
);
