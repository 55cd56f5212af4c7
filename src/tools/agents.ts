import { z } from 'zod';
import { defineTools, tool } from './define.ts';
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
);
