import { z } from 'zod';
import { cursor, defineTools, id, limit, page, tool } from './define.ts';

const role = z.enum(['OWNER', 'ADMIN', 'MEMBER']);
const MemberOut = z.looseObject({
  userId: z.string(), user: z.looseObject({ id: z.string(), name: z.string(), email: z.string() }), role, createdAt: z.string(),
});

// Adding, removing and re-roling members stay in-app (spec 4.14).
export const memberTools = defineTools(
  tool({
    name: 'members.list',
    scopes: ['READ_USERS'],
    description: 'People of the workspace with their role, by email.',
    input: z.strictObject({ role: role.optional(), limit: limit(100, 200), cursor: cursor.optional() }),
    output: page(MemberOut),
    readOnly: true,
  }),
  tool({
    name: 'members.get',
    scopes: ['READ_USERS'],
    description: 'One person of the workspace by user id, with their role (OWNER, ADMIN, MEMBER). Someone who is not a member is 404.',
    input: z.strictObject({ userId: id('userId') }),
    output: MemberOut,
    readOnly: true,
  }),
);
