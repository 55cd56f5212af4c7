import { z } from 'zod';
import { defineTools, id, limit, page, tool } from './define.ts';

const WebhookOut = z.looseObject({
  id: z.string(), url: z.string(), events: z.array(z.string()), active: z.boolean(), description: z.string().nullable(),
  pending: z.number(), deadLetters: z.number(), lastDeliveredAt: z.string().nullable(),
});
const DeliveryOut = z.looseObject({ id: z.string(), status: z.string() });

// Reads only: registration changes stay in-app for now (no event kind records them; docs/decisions.md), and the
// dead-letter retry is in-app by spec 4.14.
export const webhookTools = defineTools(
  tool({
    name: 'webhooks.list',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN, with a key without narrowing: webhooks of the workspace with pending and dead-letter counts. Never a secret.',
    input: z.strictObject({}),
    output: z.object({ items: z.array(WebhookOut) }),
    readOnly: true,
  }),
  tool({
    name: 'webhooks.get',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN, with a key without narrowing: one webhook by id, with its delivery health. Never a secret.',
    input: z.strictObject({ id: id('id') }),
    output: WebhookOut,
    readOnly: true,
  }),
  tool({
    name: 'webhooks.listDeliveries',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN, with a key without narrowing: webhook deliveries newest first with their attempts; filter by webhookId or status.',
    input: z.strictObject({
      webhookId: id('webhookId').optional(), status: z.enum(['PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED']).optional(),
      limit: limit(50, 200), cursor: id('cursor').optional(),
    }),
    output: page(DeliveryOut),
    readOnly: true,
  }),
);
