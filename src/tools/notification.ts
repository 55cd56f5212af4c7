import { z } from 'zod';
import { EVENT_KINDS } from '../events/kinds.ts';
import { defineTools, timestamp, tool } from './define.ts';

// Checked against the kinds, not listed as an enum: the list is long and grows (events.kinds has them, meanings
// included), and every profile holding this tool paid for it in tools/list.
const eventKind = z.string().max(50).refine((k) => (EVENT_KINDS as readonly string[]).includes(k), 'not an event kind (events.kinds lists them)');
const delivery = z.enum(['INBOX_ONLY', 'INBOX_AND_DIGEST']);

const PreferenceOut = z.looseObject({
  id: z.string(), userId: z.string(), workspaceId: z.string().nullable(), eventKind: z.string(),
  enabled: z.boolean(), delivery, scope: z.enum(['workspace', 'global']), updatedAt: timestamp,
});

export const notificationTools = defineTools(
  tool({
    name: 'notification.setPreference',
    requiresUser: 'user',
    scopes: ['WRITE_USERS'],
    description: "Turn notifications of one event kind on or off for the key's own user, in this workspace (scope workspace, the default) or as a default for every workspace (scope global). A workspace setting wins over the global one; without any, every kind is enabled.",
    input: z.strictObject({
      eventKind: eventKind.describe('Event kind such as ISSUE_ASSIGNED (events.kinds)'),
      enabled: z.boolean(),
      delivery: delivery.optional().describe('INBOX_ONLY (default for a new setting) or INBOX_AND_DIGEST; both behave the same today'),
      scope: z.enum(['workspace', 'global']).default('workspace'),
    }),
    output: PreferenceOut,
  }),
  tool({
    name: 'notification.resetPreference',
    requiresUser: 'user',
    scopes: ['WRITE_USERS'],
    description: "Remove your setting for one event kind (this workspace's, or the global one with scope global) so the next rule applies again (workspace, global, enabled). Returns the effective setting; removed false if there was none.",
    input: z.strictObject({
      // A pattern, not the enum: the kinds list is long (events.kinds has them); SQL refuses unknown ones (400).
      eventKind: z.string().regex(/^[A-Z_]{1,50}$/, 'must be an event kind such as ISSUE_ASSIGNED').describe('Event kind (events.kinds)'),
      scope: z.enum(['workspace', 'global']).default('workspace'),
    }),
    output: z.object({
      eventKind: z.string(), scope: z.enum(['workspace', 'global']), removed: z.boolean(),
      effective: z.object({ eventKind: z.string(), enabled: z.boolean(), delivery, source: z.enum(['workspace', 'global', 'default']) }),
    }),
    // It removes a stored setting; removing one that is not there changes nothing more.
    destructive: true,
    idempotent: true,
  }),
  tool({
    name: 'notification.getPreferences',
    requiresUser: 'user',
    scopes: ['READ_USERS'],
    description: "The key's own notification settings: the stored rows (this workspace and global) and the effective setting for each event kind (workspace row, else global row, else enabled).",
    input: z.strictObject({
      eventKinds: z.array(eventKind).min(1).max(EVENT_KINDS.length).optional().describe('Only these kinds (default: every kind)'),
    }),
    output: z.object({
      preferences: z.array(PreferenceOut),
      effective: z.array(z.object({ eventKind: z.string(), enabled: z.boolean(), delivery, source: z.enum(['workspace', 'global', 'default']) })),
    }),
    readOnly: true,
  }),
);
