/** Output shapes of the planning and personal namespaces (projects, initiatives, cycles, relations, pins, notes, time). */
import { z } from 'zod';
import { statusCategory, timestamp } from './define.ts';
import { IssueOut } from './shapes.ts';

const date = z.string().describe('ISO date, YYYY-MM-DD');

export const ProjectOut = z.looseObject({
  id: z.string(), name: z.string(), description: z.string().nullable(),
  initiativeId: z.string().nullable(),
  initiative: z.object({ id: z.string(), name: z.string() }).nullable(),
  archived: z.boolean(), archivedAt: timestamp.nullable(), createdAt: timestamp, updatedAt: timestamp,
});

export const InitiativeOut = z.looseObject({
  id: z.string(), name: z.string(), description: z.string().nullable(),
  archived: z.boolean(), archivedAt: timestamp.nullable(),
  projectCount: z.number().describe('Projects linked to it that this key can see, archived ones included (those `projects` lists)'),
  createdAt: timestamp, updatedAt: timestamp,
  projects: z.array(z.object({ id: z.string(), name: z.string(), archived: z.boolean() })).optional(),
});

export const cycleStatus = z.enum(['PLANNED', 'ACTIVE', 'COMPLETED', 'CANCELED']);

export const CycleOut = z.looseObject({
  id: z.string(), number: z.number(), name: z.string(), startsOn: date, endsOn: date, status: cycleStatus,
  issueCount: z.number(), openIssueCount: z.number(), doneIssueCount: z.number(),
  createdAt: timestamp, updatedAt: timestamp,
  issues: z.array(IssueOut).optional().describe('The first 100 issues in the cycle by number (get, current, plan); issueCount says how many'),
});

export const PinOut = z.looseObject({ issueId: z.string(), position: z.number(), pinnedAt: timestamp, issue: IssueOut });

export const noteKind = z.enum(['NOTE', 'JOURNAL']);

export const NoteOut = z.looseObject({
  id: z.string(), title: z.string().nullable(), body: z.string(), pinned: z.boolean(), kind: noteKind,
  journalDate: date.nullable(), archived: z.boolean(), archivedAt: timestamp.nullable(),
  createdAt: timestamp, updatedAt: timestamp,
});

export const TimeEntryOut = z.looseObject({
  id: z.string(), issueId: z.string().nullable().describe("null when this key cannot see the issue (a narrowed key's own running timer)"),
  issue: z.object({ id: z.string(), key: z.string(), title: z.string() }).nullable(),
  userId: z.string(), user: z.object({ id: z.string(), name: z.string() }).nullable(),
  startedAt: timestamp.nullable(), endedAt: timestamp.nullable(),
  durationMin: z.number().nullable().describe('null while running'), running: z.boolean(),
  note: z.string().nullable(), createdAt: timestamp,
});
