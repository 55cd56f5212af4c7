import { z } from 'zod';
import { defineTools, id, tool } from './define.ts';
import { AgentOut } from './shapes.ts';

export const agentTools = defineTools(
  tool({
    name: 'agents.me',
    scopes: [],
    description: 'The agent linked to the calling key (provider, runtimeMode, status, capabilities). Keys without a linked agent, or linked to an archived agent, get 403.',
    input: z.strictObject({}),
    output: AgentOut,
    readOnly: true,
  }),
  tool({
    name: 'agents.heartbeat',
    scopes: [],
    description: "Presence of the agent linked to the calling key: sets status (default ONLINE) and lastHeartbeatAt in one update; runtimeId attaches the agent to a runtime. AGENT_STATUS_CHANGED only when the status changes. Keys without an agent, or linked to an archived agent: 403.",
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
);

