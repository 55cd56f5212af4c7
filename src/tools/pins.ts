import { z } from 'zod';
import { defineTools, issueRef, tool } from './define.ts';
import { PinOut } from './planning-shapes.ts';

export const pinTools = defineTools(
  tool({
    name: 'pins.list',
    requiresUser: 'user',
    scopes: ['READ_ISSUES'],
    description: 'The issues you (the key\'s user) pinned, in pin order. Pins are personal.',
    input: z.strictObject({}),
    output: z.array(PinOut),
    readOnly: true,
  }),
  tool({
    name: 'pins.set',
    requiresUser: 'user',
    scopes: ['WRITE_ISSUES'],
    description: 'Replace your pinned issues with exactly this ordered list of issue ids or keys (empty list unpins all). Idempotent: send the full desired list. Returns the new pins.',
    input: z.strictObject({ issueIds: z.array(issueRef).max(100) }),
    output: z.array(PinOut),
  }),
);
