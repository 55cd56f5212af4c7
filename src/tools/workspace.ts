import { z } from 'zod';
import { autoDispatchMode, defineTools, id, int, line, statusCategory, tool } from './define.ts';
import { StatusOut, WorkspaceOut } from './shapes.ts';

export const workspaceTools = defineTools(
  tool({
    name: 'workspace.get',
    scopes: ['READ_ISSUES'],
    description: 'Settings of the workspace this key belongs to (cycle length, time tracking, dispatch mode, ...), and caller: who this key acts as (keyId, kind, pluginId, userId, agentId, role, scopes, narrowing; the ids claimedById, time.list and actionRequests.list filter by). No member list.',
    input: z.strictObject({}),
    output: WorkspaceOut.extend({
      caller: z.looseObject({
        keyId: z.string(), kind: z.enum(['PERSONAL', 'SESSION', 'AGENT', 'PLUGIN']), pluginId: z.string().nullable().describe("A plugin's key: the plugin"),
        userId: z.string().nullable().describe("The key's person (null for a plugin's key)"),
        agentId: z.string().nullable().describe("The agent the key acts as (an agent's key), else null"),
        role: z.enum(['OWNER', 'ADMIN', 'MEMBER']).nullable().describe("The person's workspace role (null for a plugin's key)"),
        scopes: z.array(z.string()),
        projectIds: z.array(z.string()), labelIds: z.array(z.string()), initiativeIds: z.array(z.string()).describe('Narrowing; empty lists = none'),
      }),
    }),
    readOnly: true,
  }),
  tool({
    name: 'workspace.updateSettings',
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    scopes: ['ADMIN'],
    description: 'Change the workspace settings given (as workspace.get shows them; requiredAckSeconds, assignmentSlaMinutes, offlineReclaimMinutes 0 = off; timeTrackingEnabled false stops every running timer). OWNER/ADMIN with the ADMIN scope and no narrowing (else 403).',
    input: z.strictObject({
      name: line(200).optional(),
      cycleLengthDays: int(1, 365).optional(),
      cycleCooldownDays: int(0, 365).optional(),
      timeTrackingEnabled: z.boolean().optional(),
      attachmentQuotaMb: int(0).optional(),
      requiredAckSeconds: int(0).optional(),
      autoDispatch: z.boolean().optional(),
      autoDispatchMode: autoDispatchMode.optional(),
      assignmentSlaMinutes: int(0).optional(),
      agentRunStaleMinutes: int(1).optional(),
      offlineReclaimMinutes: int(0).optional(),
    }),
    output: WorkspaceOut,
  }),
);

const statusName = line(100);
const statusColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'color must be #RRGGBB');
const workflowAdmin = 'OWNER/ADMIN, unnarrowed key';

export const statusTools = defineTools(
  tool({
    name: 'statuses.list',
    scopes: ['READ_ISSUES'],
    description: 'Workflow statuses of the workspace, ordered by position. Use a status id with issues.transition.',
    input: z.strictObject({ category: statusCategory.optional().describe('Only statuses of this category') }),
    output: z.array(StatusOut),
    readOnly: true,
  }),
  tool({
    name: 'statuses.get',
    scopes: ['READ_ISSUES'],
    description: 'One workflow status by id.',
    input: z.strictObject({ id: id('id') }),
    output: StatusOut,
    readOnly: true,
  }),
  // Writes: the workflow is every member's board, so like workspace administration (docs/decisions.md).
  tool({
    name: 'statuses.create',
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    scopes: ['ADMIN'],
    description: `${workflowAdmin}: add a status (unique name, at most 50). position: 0 = first, the ones from there move down; default last.`,
    input: z.strictObject({ name: statusName, category: statusCategory, color: statusColor.optional(), position: int(0, 1000).optional() }),
    output: StatusOut,
  }),
  tool({
    name: 'statuses.update',
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    scopes: ['ADMIN'],
    description: `${workflowAdmin}: rename, recolor, recategorize (only while it has no issues) or make it the default (must be open).`,
    input: z.strictObject({
      id: id('id'), name: statusName.optional(), color: statusColor.optional(), category: statusCategory.optional(),
      isDefault: z.literal(true).optional().describe('New issues start here'),
    }),
    output: StatusOut,
  }),
  tool({
    name: 'statuses.delete',
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    scopes: ['ADMIN'],
    description: `${workflowAdmin}: delete a status, its issues moving to moveIssuesTo (required if it has any). Not the default nor the last DONE status.`,
    input: z.strictObject({ id: id('id'), moveIssuesTo: id('moveIssuesTo').optional() }),
    output: z.looseObject({ ok: z.boolean(), id: z.string(), movedIssues: z.number(), movedIssuesTo: z.string().nullable() }),
  }),
  tool({
    name: 'statuses.reorder',
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    scopes: ['ADMIN'],
    description: `${workflowAdmin}: set the board order: ids = every status once, first to last.`,
    input: z.strictObject({ ids: z.array(id('ids')).min(1).max(50) }),
    output: z.array(StatusOut),
    destructive: true,
    idempotent: true,
  }),
);
