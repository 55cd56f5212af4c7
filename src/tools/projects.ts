import { z } from 'zod';
import { countsBy, cursor, defineTools, id, limit, line, page, priority, statusCategory, timestamp, tool } from './define.ts';
import { InitiativeOut, ProjectOut } from './planning-shapes.ts';

const name = line(200);

/** Progress figures over live issues the key can see (app_hidden.issue_progress_json). */
const counts = {
  total: z.number(), open: z.number(), done: z.number(), canceled: z.number(),
  percentComplete: z.number().nullable().describe('done of the non-canceled issues, in percent (rounded); null when there are none'),
  overdue: z.number().describe('Open issues whose dueDate is before today (UTC)'),
};
const progress = {
  ...counts,
  unassignedOpen: z.number().describe('Open issues without an assigned agent'),
  byCategory: countsBy(statusCategory),
  openByPriority: countsBy(priority),
  estimate: z.object({ total: z.number().describe('Sum of estimates, canceled issues left out'), done: z.number() }),
  lastCompletedAt: timestamp.nullable(),
  generatedAt: timestamp,
};
const description = z.string().max(100_000);

export const projectTools = defineTools(
  tool({
    name: 'projects.list',
    scopes: ['READ_PROJECTS'],
    description: 'Projects this key can see, oldest first, paged ({items, nextCursor}). Archived projects only with includeArchived; initiativeId filters (null = projects without an initiative; one the key cannot see is 404).',
    input: z.strictObject({
      includeArchived: z.boolean().optional(),
      initiativeId: id('initiativeId').nullable().optional(),
      limit: limit(50, 200),
      cursor: cursor.optional(),
    }),
    output: page(ProjectOut),
    readOnly: true,
  }),
  tool({
    name: 'projects.get',
    scopes: ['READ_PROJECTS'],
    description: 'One project by id (archived ones too).',
    input: z.strictObject({ id: id('id') }),
    output: ProjectOut,
    readOnly: true,
  }),
  tool({
    name: 'projects.summary',
    scopes: ['READ_PROJECTS', 'READ_ISSUES'],
    description: 'Progress of a project: its issues (that this key sees) by status category and open ones by priority; open, done, percentComplete (of non-canceled), overdue, unassigned, estimates.',
    input: z.strictObject({ id: id('id') }),
    output: z.looseObject({ project: ProjectOut, ...progress }),
    readOnly: true,
  }),
  tool({
    name: 'projects.create',
    scopes: ['WRITE_PROJECTS'],
    refusesNarrowedKeys: 'project',
    description: 'Create a project (name, optional description and initiativeId). Returns the project; use its id as projectId on issues. Keys narrowed to projects cannot create projects.',
    input: z.strictObject({ name, description: description.optional(), initiativeId: id('initiativeId').optional() }),
    output: ProjectOut,
  }),
  tool({
    name: 'projects.update',
    scopes: ['WRITE_PROJECTS'],
    description: 'Change a project\'s name, description (null clears) or initiativeId (null detaches it from its initiative). Only the fields given change.',
    input: z.strictObject({
      id: id('id'), name: name.optional(), description: description.nullable().optional(),
      initiativeId: id('initiativeId').nullable().optional(),
    }),
    output: ProjectOut,
  }),
  tool({
    name: 'projects.archive',
    scopes: ['WRITE_PROJECTS'],
    description: 'Archive a project (soft: it leaves projects.list and new issues cannot use it; its issues keep their projectId). Idempotent.',
    input: z.strictObject({ id: id('id') }),
    output: ProjectOut,
  }),
  tool({
    name: 'projects.unarchive',
    scopes: ['WRITE_PROJECTS'],
    description: 'Restore an archived project. Idempotent.',
    input: z.strictObject({ id: id('id') }),
    output: ProjectOut,
  }),
);

export const initiativeTools = defineTools(
  tool({
    name: 'initiatives.list',
    scopes: ['READ_PROJECTS'],
    description: 'Initiatives (long-running objectives grouping projects) this key can see, oldest first, paged ({items, nextCursor}).',
    input: z.strictObject({ includeArchived: z.boolean().optional(), limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(InitiativeOut),
    readOnly: true,
  }),
  tool({
    name: 'initiatives.get',
    scopes: ['READ_PROJECTS'],
    description: 'One initiative by id, with the projects linked to it.',
    input: z.strictObject({ id: id('id') }),
    output: InitiativeOut,
    readOnly: true,
  }),
  tool({
    name: 'initiatives.summary',
    scopes: ['READ_PROJECTS', 'READ_ISSUES'],
    description: 'Progress of an initiative: projects.summary rolled up over its projects (archived too), with a row per project.',
    input: z.strictObject({ id: id('id') }),
    output: z.looseObject({
      initiative: InitiativeOut, ...progress,
      projects: z.array(z.looseObject({ id: z.string(), name: z.string(), archived: z.boolean(), ...counts })),
    }),
    readOnly: true,
  }),
  tool({
    name: 'initiatives.create',
    scopes: ['WRITE_PROJECTS'],
    refusesNarrowedKeys: 'initiative',
    description: 'Create an initiative (name, optional description). Link projects to it with initiatives.linkProject.',
    input: z.strictObject({ name, description: description.optional() }),
    output: InitiativeOut,
  }),
  tool({
    name: 'initiatives.update',
    scopes: ['WRITE_PROJECTS'],
    description: 'Change an initiative\'s name or description (null clears). Only the fields given change.',
    input: z.strictObject({ id: id('id'), name: name.optional(), description: description.nullable().optional() }),
    output: InitiativeOut,
  }),
  tool({
    name: 'initiatives.archive',
    scopes: ['WRITE_PROJECTS'],
    description: 'Archive an initiative (soft; its projects stay linked). Idempotent.',
    input: z.strictObject({ id: id('id') }),
    output: InitiativeOut,
  }),
  tool({
    name: 'initiatives.unarchive',
    scopes: ['WRITE_PROJECTS'],
    description: 'Restore an archived initiative. Idempotent.',
    input: z.strictObject({ id: id('id') }),
    output: InitiativeOut,
  }),
  tool({
    name: 'initiatives.linkProject',
    scopes: ['WRITE_PROJECTS'],
    description: 'Attach a project to an initiative (sets the project\'s initiativeId, moving it from any other initiative). Idempotent. Returns the project.',
    input: z.strictObject({ initiativeId: id('initiativeId'), projectId: id('projectId') }),
    output: ProjectOut,
  }),
  tool({
    name: 'initiatives.unlinkProject',
    scopes: ['WRITE_PROJECTS'],
    description: 'Detach a project from its initiative (sets initiativeId null). Pass initiativeId to make sure it is detached from that one (409 not_linked if it belongs to another). Idempotent. Returns the project.',
    input: z.strictObject({ projectId: id('projectId'), initiativeId: id('initiativeId').optional() }),
    output: ProjectOut,
  }),
);
