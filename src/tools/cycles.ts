import { z } from 'zod';
import { cursor, defineTools, id, isoDate, issueRef, limit, line, page, tool } from './define.ts';
import { CycleOut, cycleStatus } from './planning-shapes.ts';
import { IssueOut } from './shapes.ts';

const date = isoDate().describe('ISO date, YYYY-MM-DD');
const issueList = z.array(issueRef).max(100);

export const cycleTools = defineTools(
  tool({
    name: 'cycles.list',
    scopes: ['READ_ISSUES'],
    description: 'Cycles (shown as Sprints), latest start date first, paged ({items, nextCursor}), with issue counts. Status follows the calendar: a cycle whose dates include today is ACTIVE, one that has ended COMPLETED. Filter by status PLANNED, ACTIVE, COMPLETED or CANCELED.',
    input: z.strictObject({ status: cycleStatus.optional(), limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(CycleOut),
    readOnly: true,
  }),
  tool({
    name: 'cycles.get',
    scopes: ['READ_ISSUES'],
    description: 'One cycle (sprint) by id, with its first 100 issues by number (issueCount says how many; issues.list {cycleId} pages through all).',
    input: z.strictObject({ id: id('id') }),
    output: CycleOut,
    readOnly: true,
  }),
  tool({
    name: 'cycles.current',
    scopes: ['READ_ISSUES'],
    description: 'The current sprint: the cycle whose dates include today (or one activated early), with its first 100 issues by number (issueCount says how many); null when there is none.',
    input: z.strictObject({}),
    output: CycleOut.nullable(),
    readOnly: true,
  }),
  tool({
    name: 'cycles.create',
    refusesNarrowedKeys: 'projectOrLabel',
    scopes: ['WRITE_ISSUES'],
    description: 'Create a cycle (sprint). Defaults: name "Sprint <n>", startsOn right after the last cycle plus the workspace cooldown (never before today), endsOn from the workspace cycle length. Cycles may not overlap. ACTIVE while its dates include today, COMPLETED once past, PLANNED before; activate: true makes a future one current now when no other is (meanwhile no other cycle may span today: 409 active_cycle_exists). Needs a key without narrowing.',
    input: z.strictObject({
      name: line(200).optional(),
      startsOn: date.optional(),
      endsOn: date.optional(),
      activate: z.boolean().optional(),
    }),
    output: CycleOut,
  }),
  tool({
    name: 'cycles.update',
    refusesNarrowedKeys: 'projectOrLabel',
    scopes: ['WRITE_ISSUES'],
    description: 'Rename or re-date a cycle (name, startsOn, endsOn; no overlaps; an ended or canceled cycle keeps its dates, and a live one cannot be made to end before today). Status moves happen through cycles.rollover. Needs a key without project/label narrowing.',
    input: z.strictObject({
      id: id('id'), name: line(200).optional(), startsOn: date.optional(), endsOn: date.optional(),
    }),
    output: CycleOut,
  }),
  tool({
    name: 'cycles.delete',
    refusesNarrowedKeys: 'projectOrLabel',
    scopes: ['WRITE_ISSUES'],
    description: 'Delete a PLANNED or CANCELED cycle, or any cycle holding no issue (trashed ones count); its issues lose the cycle. A sprint that ran with issues: 409 cycle_started; with attachments: 409 cycle_has_attachments. Needs a key without project/label narrowing.',
    input: z.strictObject({ id: id('id') }),
    output: z.object({
      ok: z.boolean(), id: z.string(), number: z.number(), name: z.string(), status: cycleStatus,
      detachedIssueIds: z.array(z.string()),
    }),
  }),
  tool({
    name: 'cycles.plan',
    scopes: ['WRITE_ISSUES'],
    description: 'Plan the upcoming sprint in one call: add and/or remove issues (ids or keys, up to 100 each). Targets the earliest PLANNED cycle unless cycleId is given (a PLANNED or ACTIVE one). All or nothing. Returns the cycle with its first 100 issues and the ids that actually moved.',
    input: z.strictObject({ cycleId: id('cycleId').optional(), add: issueList.optional(), remove: issueList.optional() }),
    output: z.object({ cycle: CycleOut, added: z.array(z.string()), removed: z.array(z.string()) }),
  }),
  tool({
    name: 'cycles.rollover',
    refusesNarrowedKeys: 'projectOrLabel',
    scopes: ['WRITE_ISSUES'],
    description: 'Move the unfinished issues (not Done/Canceled) of the current sprint (the cycle whose dates include today; when none runs, or it began today, the last one that ended without a rollover) to the next cycle (the earliest not ended that starts after it, the running one for an ended sprint; created from the workspace cycle length and cooldown when none exists). It never changes which sprint is current (cycles are ACTIVE while their dates include today, COMPLETED once ended). Returns completed (the cycle the issues left if it has ended, else null), current (where they went), movedIssueIds, createdNext. Again the same day: moves only what is still unfinished. Needs a key without narrowing.',
    input: z.strictObject({}),
    output: z.object({
      completed: CycleOut.nullable(), current: CycleOut, movedIssueIds: z.array(z.string()), createdNext: z.boolean(),
    }),
  }),
  tool({
    name: 'cycles.addIssue',
    scopes: ['WRITE_ISSUES'],
    description: 'Put one issue into a PLANNED or ACTIVE cycle (moving it out of any other). Idempotent. Returns the issue.',
    input: z.strictObject({ cycleId: id('cycleId'), issueId: issueRef }),
    output: IssueOut,
  }),
  tool({
    name: 'cycles.removeIssue',
    scopes: ['WRITE_ISSUES'],
    description: 'Take one issue out of a cycle (its cycleId becomes null). An issue not in that cycle is left as it is. Returns the issue.',
    input: z.strictObject({ cycleId: id('cycleId'), issueId: issueRef }),
    output: IssueOut,
  }),
);
