/**
 * GraphQL mutations that register a webhook target check it first, in Node (DNS included), like the CLI:
 * webhooksCreate/webhooksUpdate `url`, agentsCreate/agentsUpdate `webhookUrl` (src/webhooks/registration.ts), and so do
 * those that name a repository host's API (repoMappingsCreate/repoMappingsUpdate `apiUrl`: the repohost tools call it).
 * A refused URL is a 400 invalid_input error naming the field; the mutation does not run.
 */
import '../polyfills.ts';
import { sideEffect } from 'postgraphile/grafast';
import { wrapPlans } from 'postgraphile/utils';
import { assertWebhookUrl } from '../webhooks/registration.ts';

const checking = (field: string) =>
  (plan: () => unknown, _$source: unknown, fieldArgs: { getRaw(path: string[]): any }) => {
    sideEffect(fieldArgs.getRaw(['input', field]), (url: unknown) => assertWebhookUrl(url, field));
    return plan();
  };

export const WebhookUrlCheckPlugin = wrapPlans(
  {
    Mutation: {
      webhooksCreate: checking('url'),
      webhooksUpdate: checking('url'),
      agentsCreate: checking('webhookUrl'),
      agentsUpdate: checking('webhookUrl'),
      repoMappingsCreate: checking('apiUrl'),
      repoMappingsUpdate: checking('apiUrl'),
    },
  },
  { name: 'SvcWebhookUrlCheckPlugin' },
);
