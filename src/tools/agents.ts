import { z } from 'zod';
import { assertWebhookUrl } from '../webhooks/registration.ts';
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

const profileKey = z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'a-z, 0-9, _ . - (max 64)');
const agentFields = {
  name: z.string().trim().min(1).max(200),
  capabilities: z.array(z.string().min(1).max(100)).max(50),
  provider: z.enum(['CUSTOM', 'CLAUDE', 'CODEX', 'HERMES']),
  runtimeMode: z.enum(['PERSISTENT', 'EPHEMERAL']),
  maxConcurrent: z.number().int().min(0).max(1000),
};
const webhookUrl = z.url({ protocol: /^https?$/ }).max(2000);

export const agentAdminTools = defineTools(
  tool({
    name: 'agents.create',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN: create an agent (profileKey unique). maxConcurrent 0 = unlimited.',
    input: z.strictObject({ profileKey, ...agentFields, capabilities: agentFields.capabilities.optional(), provider: agentFields.provider.optional(),
      runtimeMode: agentFields.runtimeMode.optional(), maxConcurrent: agentFields.maxConcurrent.optional(), webhookUrl: webhookUrl.optional() }),
    output: AgentOut,
    sql: true,
    run: async (ctx, input) => {
      await assertWebhookUrl(input.webhookUrl, 'webhookUrl', ctx.services.allowPrivateEgress);
      return ctx.sql(input);
    },
  }),
  tool({
    name: 'agents.update',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN: change the fields given of an agent; webhookUrl null clears it.',
    input: z.strictObject({ id: id('id'), profileKey: profileKey.optional(), name: agentFields.name.optional(), capabilities: agentFields.capabilities.optional(),
      provider: agentFields.provider.optional(), runtimeMode: agentFields.runtimeMode.optional(), maxConcurrent: agentFields.maxConcurrent.optional(),
      webhookUrl: webhookUrl.nullable().optional() }),
    output: AgentOut,
    sql: true,
    run: async (ctx, input) => {
      await assertWebhookUrl(input.webhookUrl, 'webhookUrl', ctx.services.allowPrivateEgress);
      return ctx.sql(input);
    },
  }),
  tool({
    name: 'agents.archive',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN: archive an agent (no new assignments or dispatch; history stays).',
    input: z.strictObject({ id: id('id') }),
    output: AgentOut,
  }),
  tool({
    name: 'agents.unarchive',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN: restore an archived agent.',
    input: z.strictObject({ id: id('id') }),
    output: AgentOut,
  }),
);
