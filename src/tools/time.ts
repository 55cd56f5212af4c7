import { z } from 'zod';
import { cursor, defineTools, id, isoDate, isoDateTime, issueRef, limit, page, tool } from './define.ts';
import { TimeEntryOut } from './planning-shapes.ts';

const date = isoDate().describe('ISO date, YYYY-MM-DD (UTC day)');
const note = z.string().max(2_000);
const filters = {
  userId: id('userId').optional().describe('Only this user\'s entries'),
  issueId: issueRef.optional(),
  from: date.optional().describe('Entries started on or after this UTC day'),
  to: date.optional().describe('Entries started on or before this UTC day'),
};
const DISABLED = 'Fails with 403 time_tracking_disabled when the workspace has time tracking off.';

export const timeTools = defineTools(
  tool({
    name: 'time.start',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: `Start your timer on an issue. A timer already running on another issue is stopped first (returned as stopped); one on the same issue keeps running. ${DISABLED}`,
    input: z.strictObject({ issueId: issueRef, note: note.optional() }),
    output: z.object({ entry: TimeEntryOut, stopped: TimeEntryOut.nullable() }),
  }),
  tool({
    name: 'time.stop',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: `Stop your running timer; returns the finished entry with durationMin. 409 no_running_timer when none runs. ${DISABLED}`,
    input: z.strictObject({ note: note.optional() }),
    output: TimeEntryOut,
  }),
  tool({
    name: 'time.log',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: `Log time spent on an issue manually: durationMin minutes (startedAt defaults to now minus the duration). ${DISABLED}`,
    input: z.strictObject({
      issueId: issueRef, durationMin: z.number().int().min(1).max(10_080), note: note.optional(), startedAt: isoDateTime().optional(),
    }),
    output: TimeEntryOut,
  }),
  tool({
    name: 'time.update',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: `Correct one of your time entries: note, and for a finished entry durationMin and startedAt (endedAt follows). A running timer's times come from the clock (409 timer_running). Another person's entry is 404. ${DISABLED}`,
    input: z.strictObject({
      id: id('id'), durationMin: z.number().int().min(1).max(10_080).optional(), startedAt: isoDateTime().optional(), note: note.nullable().optional(),
    }),
    output: TimeEntryOut,
  }),
  tool({
    name: 'time.delete',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: `Delete one of your time entries (a running timer is discarded). Another person's entry is 404. ${DISABLED}`,
    input: z.strictObject({ id: id('id') }),
    output: z.object({ id: z.string(), deleted: z.literal(true) }),
  }),
  tool({
    name: 'time.list',
    scopes: ['READ_ISSUES'],
    description: `Time entries on issues this key can see, newest first, paged ({items, nextCursor}); filter by userId, issueId and a from/to day range. ${DISABLED}`,
    input: z.strictObject({ ...filters, limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(TimeEntryOut),
    readOnly: true,
  }),
  tool({
    name: 'time.get',
    scopes: ['READ_ISSUES'],
    description: `One time entry by id, as time.list shows it (anyone's, on issues this key can see). ${DISABLED}`,
    input: z.strictObject({ id: id('id') }),
    output: TimeEntryOut,
    readOnly: true,
  }),
  tool({
    name: 'time.summary',
    scopes: ['READ_ISSUES'],
    description: `Minutes logged (finished entries) in total, by user, by issue and by UTC day, with the same filters as time.list. ${DISABLED}`,
    input: z.strictObject(filters),
    output: z.looseObject({
      from: z.string().nullable().describe('The from filter as given (null: none)'), to: z.string().nullable().describe('The to filter as given (null: none)'),
      totalMin: z.number(), entryCount: z.number(),
      byUser: z.array(z.object({ userId: z.string(), name: z.string().nullable(), totalMin: z.number() })),
      byIssue: z.array(z.object({ issueId: z.string(), key: z.string().nullable(), title: z.string().nullable(), totalMin: z.number() })),
      byDay: z.array(z.object({ day: z.string(), totalMin: z.number() })),
    }),
    readOnly: true,
  }),
  tool({
    name: 'time.running',
    requiresUser: 'user',
    scopes: ['READ_ISSUES'],
    description: `Your running timer, or null. ${DISABLED}`,
    input: z.strictObject({}),
    output: TimeEntryOut.nullable(),
    readOnly: true,
  }),
);
