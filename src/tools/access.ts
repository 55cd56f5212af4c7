import { z } from 'zod';
import { defineTools, id, tool } from './define.ts';

const KeyOut = z.looseObject({
  id: z.string(), name: z.string().nullable(), kind: z.string(), prefix: z.string(), scopes: z.array(z.string()),
  narrowing: z.looseObject({ projectIds: z.array(z.string()), labelIds: z.array(z.string()), initiativeIds: z.array(z.string()) }),
  lastUsedAt: z.string().nullable(), expiresAt: z.string().nullable(), revokedAt: z.string().nullable(), isCurrent: z.boolean(),
});

// Key creation stays in-app and in the CLI (a raw secret over a tool call would sit in agent transcripts).
export const accessTools = defineTools(
  tool({
    name: 'access.listKeys',
    scopes: ['ADMIN'],
    description: 'API keys, newest first: your own; every key of the workspace for OWNER/ADMIN. Prefix and metadata, never a secret.',
    input: z.strictObject({ includeRevoked: z.boolean().default(false) }),
    output: z.object({ items: z.array(KeyOut) }),
    readOnly: true,
  }),
  tool({
    name: 'access.revoke',
    scopes: ['ADMIN'],
    description: 'Revoke a key: your own, or (OWNER/ADMIN) any key of the workspace. Permanent.',
    input: z.strictObject({ keyId: id('keyId') }),
    output: KeyOut,
  }),
);
