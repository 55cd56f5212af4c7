import { z } from 'zod';
import { defineTools, statusCategory, tool } from './define.ts';
import { StatusOut, WorkspaceOut } from './shapes.ts';

export const workspaceTools = defineTools(
  tool({
    name: 'workspace.get',
    scopes: ['READ_ISSUES'],
    description: 'Settings of the workspace this key belongs to (cycle length, time tracking, dispatch mode, ...). No member list.',
    input: z.strictObject({}),
    output: WorkspaceOut,
    readOnly: true,
  }),
);

export const statusTools = defineTools(
  tool({
    name: 'statuses.list',
    scopes: ['READ_ISSUES'],
    description: 'Workflow statuses of the workspace, ordered by position. Use a status id with issues.transition.',
    input: z.strictObject({ category: statusCategory.optional().describe('Only statuses of this category') }),
    output: z.array(StatusOut),
    readOnly: true,
  }),
);
