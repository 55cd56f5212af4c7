import { z } from 'zod';
import { cursor, defineTools, id, limit, page, tool } from './define.ts';
import { EventOut } from './shapes.ts';

export const eventTools = defineTools(
  tool({
    name: 'events.recent',
    scopes: ['READ_ISSUES'],
    description: 'Recent activity events of the workspace, newest first. Filter by subject (e.g. subjectType "issue" and an issue id) or kinds; page with before = nextCursor.',
    input: z.strictObject({
      subjectType: z.string().min(1).max(50).optional().describe('issue, comment, project, agent, membership, ...'),
      subjectId: z.uuid().optional(),
      kinds: z.array(z.string().regex(/^[A-Z_]+$/)).max(50).optional().describe('Event kinds such as ISSUE_CREATED'),
      limit: limit(50, 200),
      before: cursor.optional(),
    }),
    output: page(EventOut),
    readOnly: true,
  }),
  tool({
    name: 'events.get',
    scopes: ['READ_ISSUES'],
    description: 'One activity event by id.',
    input: z.strictObject({ id: id('id') }),
    output: EventOut,
    readOnly: true,
  }),
);
