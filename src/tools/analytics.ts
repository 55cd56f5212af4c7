/** analytics.summary and standup.draft (spec 4.8): coarse read-only figures over the issues a key can see. */
import { z } from 'zod';
import { countsBy, defineTools, ianaZone, isoDate, statusCategory, timestamp, tool } from './define.ts';

const IssueRow = z.looseObject({ id: z.string(), number: z.number(), key: z.string(), title: z.string() });

export const analyticsTools = defineTools(
  tool({
    name: 'analytics.summary',
    scopes: ['READ_ANALYTICS'],
    description: 'Coarse workspace figures over the issues this key can see: counts by status category and by status, throughput (issues completed per UTC day over windowDays, default 14, max 90), and open breaches (issues still open with an SLA breach, stall or missed ack in the window).',
    input: z.strictObject({ windowDays: z.number().int().min(1).max(90).default(14) }),
    output: z.looseObject({
      workspaceKey: z.string(), generatedAt: z.string(),
      counts: z.looseObject({
        byCategory: countsBy(statusCategory),
        byStatus: z.array(z.looseObject({ statusId: z.string(), name: z.string(), category: statusCategory, count: z.number() })),
        open: z.number(), total: z.number(),
      }),
      throughput: z.looseObject({ windowDays: z.number(), from: z.string(), total: z.number(), perDay: z.array(z.object({ date: z.string(), done: z.number() })) }),
      breaches: z.looseObject({ open: z.number(), byKind: z.record(z.string(), z.number()) }),
    }),
    readOnly: true,
  }),
);

export const standupTools = defineTools(
  tool({
    name: 'standup.draft',
    scopes: ['READ_ISSUES', 'READ_ANALYTICS'],
    description: 'A standup draft for the last sinceHours (default 24, max 168), or for one day (YYYY-MM-DD) in a time zone (default the person\'s, else UTC): issues done, started, opened, and currently blocked (by an open issue), as groups of {id, number, key, title} (up to 50 each; counts are the totals) and as markdown that pastes well into chat.',
    input: z.strictObject({
      sinceHours: z.number().int().min(1).max(168, { message: 'must be at most 168' }).optional(),
      day: isoDate().optional().describe('A calendar day instead of sinceHours: from its midnight to the next, in timezone'),
      timezone: ianaZone.optional().describe('The zone of day (default the person\'s own, else UTC)'),
    }),
    output: z.looseObject({
      markdown: z.string(), sinceHours: z.number().nullable(), since: timestamp.describe('Start of the window'),
      until: timestamp.nullable().describe('End of the window (day given); null: now'),
      day: z.string().nullable(), timezone: z.string().nullable(), workspaceKey: z.string(),
      counts: z.object({ done: z.number(), started: z.number(), opened: z.number(), blocked: z.number() }),
      groups: z.object({ done: z.array(IssueRow), started: z.array(IssueRow), opened: z.array(IssueRow), blocked: z.array(IssueRow) }),
    }),
    readOnly: true,
  }),
);
