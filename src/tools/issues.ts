import { z } from 'zod';
import { cursor, defineTools, id, issueRef, limit, page, priority, tool } from './define.ts';
import { IssueOut } from './shapes.ts';

const checklistItem = z.strictObject({ id: z.string().min(1).max(100), label: z.string().min(1).max(500), done: z.boolean().default(false) });

export const issueTools = defineTools(
  tool({
    name: 'issues.create',
    scopes: ['WRITE_ISSUES'],
    description: 'Create an issue. Returns the full issue with its key (e.g. ENG-12). Default status unless statusId is given.',
    input: z.strictObject({
      title: z.string().trim().min(1).max(500),
      description: z.string().max(100_000).optional(),
      projectId: id('projectId').optional(),
      priority: priority.optional(),
      statusId: id('statusId').optional(),
      labelIds: z.array(id('labelIds')).max(50).optional(),
      parentId: issueRef.optional().describe('Parent issue (id or key) to make this a sub-issue'),
      dueDate: z.iso.date().optional(),
      estimate: z.number().min(0).max(10_000).optional(),
      slaMinutes: z.number().int().min(1).optional(),
      expectedOutput: z.string().max(10_000).optional(),
      verificationChecklist: z.array(checklistItem).max(50).optional(),
      artifactRequired: z.boolean().optional(),
    }),
    output: IssueOut,
  }),
  tool({
    name: 'issues.get',
    scopes: ['READ_ISSUES'],
    description: 'One issue by id or key. Lean by default (status, project, assignee, labelIds); include adds description and labels.',
    input: z.strictObject({
      id: issueRef,
      include: z.strictObject({
        description: z.boolean().optional(),
        labels: z.boolean().optional(),
      }).optional(),
    }),
    output: IssueOut,
    readOnly: true,
  }),
  tool({
    name: 'issues.list',
    scopes: ['READ_ISSUES'],
    description: 'Issues newest first, paged ({items, nextCursor}). Filters: status (id, category such as IN_PROGRESS, or name), priority, projectId, assignedAgentId (null = unassigned), labelIds (any of), queued.',
    input: z.strictObject({
      status: z.string().min(1).max(100).optional(),
      statusId: id('statusId').optional(),
      priority: priority.optional(),
      projectId: id('projectId').nullable().optional(),
      assignedAgentId: id('assignedAgentId').nullable().optional(),
      labelIds: z.array(id('labelIds')).max(50).optional(),
      queued: z.boolean().optional(),
      limit: limit(50, 200),
      cursor: cursor.optional(),
    }),
    output: page(IssueOut),
    readOnly: true,
  }),
);
