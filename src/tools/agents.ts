import { z } from 'zod';
import { autoDispatchMode, countsBy, defineTools, engagementMode, id, priority, timestamp, tool } from './define.ts';
import { AgentOut } from './shapes.ts';

const issueRef = z.object({ id: z.string(), key: z.string(), number: z.number(), title: z.string() });
const WorkloadOut = z.looseObject({
  generatedAt: timestamp,
  autoDispatch: z.boolean(),
  autoDispatchMode,
  pool: z.looseObject({
    queued: z.number().describe('Open issues queued for dispatch and not assigned yet'),
    byPriority: countsBy(priority),
    next: issueRef.extend({ priority }).nullable().describe('The issue the dispatcher hands out first (most urgent, then oldest)'),
  }),
  agents: z.array(z.looseObject({
    id: z.string(), profileKey: z.string(), name: z.string(), status: z.enum(['ONLINE', 'BUSY', 'OFFLINE']),
    lastHeartbeatAt: timestamp.nullable(), lastDispatchedAt: timestamp.nullable(), capabilities: z.array(z.string()),
    maxConcurrent: z.number().describe('0 = unlimited'),
    openAssigned: z.number().describe('Open issues assigned to the agent (its load), as far as this key can see them'),
    freeSlots: z.number().nullable().describe('maxConcurrent minus load; null when unlimited or when the key is narrowed by project or label'),
    runs: z.object({ active: z.number(), waiting: z.number(), stalled: z.number() }),
    currentRun: z.looseObject({
      id: z.string(), status: z.enum(['ACTIVE', 'WAITING', 'STALLED']),
      engagementMode, currentStep: z.string().nullable(),
      startedAt: timestamp, lastEventAt: timestamp, issue: issueRef,
    }).nullable(),
  })),
});

export const agentTools = defineTools(
  tool({
    name: 'agents.me',
    requiresAgentKey: true,
    scopes: [],
    description: 'The agent linked to the calling key (provider, runtimeMode, status, capabilities). Keys without a linked agent, or linked to an archived agent, get 403.',
    input: z.strictObject({}),
    output: AgentOut,
    readOnly: true,
  }),
  tool({
    name: 'agents.heartbeat',
    requiresAgentKey: true,
    scopes: [],
    description: "Presence of the calling key's agent: sets status (default ONLINE) and lastHeartbeatAt; runtimeId attaches it to a runtime (archived: 409). AGENT_STATUS_CHANGED when the status changes. No heartbeat for agentRunStaleMinutes (workspace.get) → OFFLINE, no dispatched work; silent offlineReclaimMinutes more → its runs end, its issues are unassigned (not if it sent OFFLINE). Presence only: runs stay ACTIVE by status lines, comments, usage. Keys without a live agent: 403.",
    input: z.strictObject({
      status: z.enum(['ONLINE', 'BUSY', 'OFFLINE']).optional().describe('Default ONLINE'),
      runtimeId: id('runtimeId').optional().describe('The runtime this agent runs on (runtimes.register)'),
    }),
    output: AgentOut,
  }),
  tool({
    name: 'agents.list',
    scopes: ['READ_USERS'],
    description: 'Agents of the workspace by profileKey: id, profileKey, name, status, runtimeMode, provider, capabilities, archivedAt, runtime {id, name, kind}. Archived agents only with includeArchived; runtimeId keeps the agents of one runtime.',
    input: z.strictObject({ includeArchived: z.boolean().default(false), runtimeId: id('runtimeId').optional() }),
    output: z.array(AgentOut),
    readOnly: true,
  }),
  tool({
    name: 'agents.get',
    scopes: ['READ_USERS'],
    description: 'One agent by id (archived too).',
    input: z.strictObject({ id: id('id') }),
    output: AgentOut,
    readOnly: true,
  }),
  tool({
    name: 'agents.workload',
    scopes: ['READ_USERS', 'READ_ISSUES'],
    description: 'Dispatch view: the queued pool (by priority, next out) and, per live agent, status, load (open assigned issues) vs maxConcurrent, open runs and current run (issue, mode, step). Counts what this key can see; for a key narrowed by project or label, freeSlots is null (its load count may miss issues it cannot see).',
    input: z.strictObject({}),
    output: WorkloadOut,
    readOnly: true,
  }),
);

