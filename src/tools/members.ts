import { z } from 'zod';
import { cursor, defineTools, id, limit, page, tool } from './define.ts';

const role = z.enum(['OWNER', 'ADMIN', 'MEMBER']);
const MemberOut = z.looseObject({
  userId: z.string(), user: z.looseObject({ id: z.string(), name: z.string(), email: z.string() }), role, createdAt: z.string(),
});

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
    name: 'members.add',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN: add a person by email (user created if new; no invite sent). Only an OWNER adds an OWNER.',
    input: z.strictObject({ email: z.email().max(320), role: role.default('MEMBER') }),
    output: MemberOut,
  }),
  tool({
    name: 'members.remove',
    scopes: ['ADMIN'],
    description: 'OWNER/ADMIN: remove a member and revoke their keys here. The last OWNER stays.',
    input: z.strictObject({ userId: id('userId') }),
    output: MemberOut,
  }),
  tool({
    name: 'members.setRole',
    scopes: ['ADMIN'],
    description: "OWNER/ADMIN: change a member's role. Only an OWNER grants or removes OWNER; the last OWNER stays.",
    input: z.strictObject({ userId: id('userId'), role }),
    output: MemberOut,
  }),
);
