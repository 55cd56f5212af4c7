import { z } from 'zod';
import { assertWebhookUrl, egressAllowPrivateFromEnv } from '../webhooks/registration.ts';
import { defineTools, id, int, limit, page, timestamp, tool, type ToolContext } from './define.ts';

const WebhookShape = z.looseObject({
  id: z.string(), url: z.string(), events: z.array(z.string()), active: z.boolean(), description: z.string().nullable(),
  deactivatedAt: timestamp.nullable(), deactivatedReason: z.string().nullable().describe('Why it stopped: the operator or an admin, failures, or its owner left'),
  failingSince: timestamp.nullable().describe('Every delivery attempt has failed since then (null: the last one succeeded); past SVC_WEBHOOK_DISABLE_AFTER_HOURS of that the webhook stops'),
  ownerUserId: z.string().nullable().describe('Whose it is: who registered it, or last changed its URL or rotated its secret (null: the operator); it stops when they leave the workspace'),
  createdAt: timestamp, updatedAt: timestamp,
});
const WebhookOut = WebhookShape.extend({ pending: z.number(), deadLetters: z.number(), lastDeliveredAt: z.string().nullable() });
const DeliveryOut = z.looseObject({
  id: z.string(), eventId: z.string(), eventKind: z.string().nullable(),
  webhookId: z.string().nullable(), agentId: z.string().nullable().describe("An agent's dispatch delivery: the agent (webhookId null)"),
  channel: z.string(), status: z.enum(['PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED']),
  attemptCount: z.number().describe('Attempts of the current round (a retry starts a new one)'), totalAttempts: z.number(),
  nextAttemptAt: timestamp.nullable().describe('PENDING: when the next attempt is due'),
  lastStatusCode: z.number().nullable(), lastError: z.string().nullable(),
  deliveredAt: timestamp.nullable(), deadLetteredAt: timestamp.nullable(), createdAt: timestamp,
  attempts: z.array(z.looseObject({
    attempt: z.number(), url: z.string(), startedAt: timestamp, durationMs: z.number(),
    statusCode: z.number().nullable(), error: z.string().nullable(), responseBody: z.string().nullable().describe("The receiver's answer, truncated"),
  })),
});

// The URL and events are checked by the same code as GraphQL and the CLI: here assertWebhookUrl (Node: credentials,
// loopback/private targets after DNS), then app_private.check_webhook_input (SQL: scheme, length, known kinds).
const url = z.string().min(1).max(2048).describe('http(s) URL receiving the signed POSTs');
const events = z.array(z.string().min(1).max(64)).max(100).describe('Event kinds (events.kinds); [] = all');
const description = z.string().max(500);
const admin = 'OWNER/ADMIN, unnarrowed key';

/** The registration check of every other path (src/webhooks/registration.ts); private targets as the server allows. */
const checkUrl = (ctx: ToolContext, value: string | undefined) =>
  assertWebhookUrl(value, 'url', ctx.services.allowPrivateEgress ?? egressAllowPrivateFromEnv());

// Registration writes go through the in-app procedures (the same as GraphQL's) and record WEBHOOK_* events; the
// dead-letter retry stays in-app by spec 4.14.
export const webhookTools = defineTools(
  tool({
    name: 'webhooks.list',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    description: 'OWNER/ADMIN, with a key without narrowing: webhooks of the workspace with pending and dead-letter counts. Never a secret.',
    input: z.strictObject({}),
    output: z.object({ items: z.array(WebhookOut) }),
    readOnly: true,
  }),
  tool({
    name: 'webhooks.get',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    description: 'OWNER/ADMIN, with a key without narrowing: one webhook by id, with its delivery health. Never a secret.',
    input: z.strictObject({ id: id('id') }),
    output: WebhookOut,
    readOnly: true,
  }),
  tool({
    name: 'webhooks.listDeliveries',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    description: 'OWNER/ADMIN, with a key without narrowing: webhook deliveries newest first with their attempts; filter by webhookId or status.',
    input: z.strictObject({
      webhookId: id('webhookId').optional(), status: z.enum(['PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED']).optional(),
      limit: limit(50, 200), cursor: id('cursor').nullable().optional(),
    }),
    output: page(DeliveryOut),
    readOnly: true,
  }),
  tool({
    name: 'webhooks.create',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    description: `${admin}: register a webhook (events default: all). The answer holds its signing secret, shown only this once.`,
    input: z.strictObject({ url, events: events.optional(), description: description.optional() }),
    output: WebhookShape.extend({ secret: z.string() }),
    sql: true,
    run: async (ctx, input) => {
      await checkUrl(ctx, input.url);
      return ctx.sql(input);
    },
  }),
  tool({
    name: 'webhooks.update',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    description: `${admin}: change url, events, active (false stops deliveries; events meanwhile are never sent) or description of a webhook.`,
    input: z.strictObject({
      id: id('id'), url: url.optional(), events: events.optional(), active: z.boolean().optional(), description: description.optional(),
    }),
    output: WebhookShape,
    sql: true,
    run: async (ctx, input) => {
      await checkUrl(ctx, input.url);
      return ctx.sql(input);
    },
  }),
  tool({
    name: 'webhooks.delete',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    description: `${admin}: delete a webhook and its deliveries.`,
    input: z.strictObject({ id: id('id') }),
    output: z.looseObject({ id: z.string(), deleted: z.boolean() }),
  }),
  tool({
    name: 'webhooks.rotateSecret',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    description: `${admin}: new signing secret, shown only in this answer. The old one keeps signing beside it (webhook-signature carries both) for keepPreviousHours, default 24, so receivers can switch without losing deliveries; 0 stops it at once (a leaked secret).`,
    input: z.strictObject({ id: id('id'), keepPreviousHours: int(0, 168).optional().describe('hours the old secret still signs (default 24; 0: it stops now)') }),
    output: z.looseObject({ id: z.string(), secret: z.string(), previousSecretValidUntil: z.string().nullable() }),
    destructive: true,
  }),
  tool({
    name: 'webhooks.test',
    scopes: ['ADMIN'],
    refusesNarrowedKeys: 'any',
    requiresWorkspaceAdmin: true,
    description: `${admin}: send a signed WEBHOOK_TESTED delivery to this webhook now, whatever its filter (see webhooks.listDeliveries).`,
    input: z.strictObject({ id: id('id') }),
    output: DeliveryOut,
    openWorld: true, // its point is a POST to the receiver (made by the worker moments later)
  }),
);
