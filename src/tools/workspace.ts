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
  tool({
    name: 'workspace.updateSettings',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN: change the settings given (name, cycles, time tracking, dispatch, SLAs).',
    input: z.strictObject({
      name: z.string().trim().min(1).max(200).optional(),
      cycleLengthDays: z.number().int().min(1).max(365).optional(), cycleCooldownDays: z.number().int().min(0).max(365).optional(),
      timeTrackingEnabled: z.boolean().optional(), attachmentQuotaMb: z.number().int().min(0).max(1_000_000).optional(),
      requiredAckSeconds: z.number().int().min(0).max(86_400).optional(), autoDispatch: z.boolean().optional(),
      autoDispatchMode: WorkspaceOut.shape.autoDispatchMode.optional(),
      assignmentSlaMinutes: z.number().int().min(0).max(525_600).optional(), agentRunStaleMinutes: z.number().int().min(1).max(10_080).optional(),
    }),
    output: WorkspaceOut,
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
