/**
 * canvas.*: a workspace's planning whiteboards. Issue cards and free text cards sit at x/y positions and are
 * connected by directed edges. Shared by everyone of the workspace; an issue card follows its issue (a key that
 * cannot see the issue, or a deleted issue, leaves the card and its edges out). docs/decisions.md, "Canvases".
 */
import { z } from 'zod';
import { cursor, defineTools, id, issueRef, limit, line, page, priority, statusCategory, timestamp, tool } from './define.ts';

const name = line(200);
const description = z.string().max(10_000);
const text = z.string().min(1).max(10_000).refine((s) => s.trim().length > 0, 'text must not be empty');
// Finite by construction (JSON has no Infinity/NaN; zod refuses them too), within ±1,000,000.
const coord = z.number().min(-1_000_000).max(1_000_000);
const size = z.number().min(1).max(10_000);
const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'color must be #rrggbb').overwrite((s) => s.toLowerCase());
const nodeKind = z.enum(['issue', 'text']);

const CanvasOut = z.looseObject({
  id: z.string(), name: z.string(), description: z.string().nullable(),
  archived: z.boolean(), archivedAt: timestamp.nullable(),
  nodeCount: z.number().describe('Cards this key is shown'), edgeCount: z.number().describe('Edges between cards this key is shown'),
  createdByUserId: z.string().nullable(), createdByAgentId: z.string().nullable(),
  createdAt: timestamp, updatedAt: timestamp,
});

const NodeOut = z.looseObject({
  id: z.string(), canvasId: z.string(), kind: nodeKind, issueId: z.string().nullable(),
  issue: z.object({
    id: z.string(), key: z.string(), title: z.string(), priority,
    status: z.object({ id: z.string(), name: z.string(), category: statusCategory }),
  }).nullable(),
  text: z.string().nullable(), x: z.number(), y: z.number(), width: z.number(), height: z.number(), color: z.string().nullable(),
  createdAt: timestamp, updatedAt: timestamp,
});

const EdgeOut = z.looseObject({
  id: z.string(), canvasId: z.string(), fromNodeId: z.string(), toNodeId: z.string(), label: z.string().nullable(), createdAt: timestamp,
});

export const canvasTools = defineTools(
  tool({
    name: 'canvas.create',
    scopes: ['WRITE_ISSUES'],
    description: 'Create a canvas: a planning whiteboard of the workspace on which issue and text cards are laid out and connected.',
    input: z.strictObject({ name, description: description.optional() }),
    output: CanvasOut,
  }),
  tool({
    name: 'canvas.list',
    scopes: ['READ_ISSUES'],
    description: 'Canvases of the workspace, newest first (by creation: editing a canvas does not move it, so paging skips none), paged ({items, nextCursor}); archived ones only with includeArchived.',
    input: z.strictObject({ includeArchived: z.boolean().optional(), limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(CanvasOut),
    readOnly: true,
  }),
  tool({
    name: 'canvas.get',
    scopes: ['READ_ISSUES'],
    description: 'A canvas with its nodes (cards) and edges. Cards of issues this key cannot see, or of deleted issues, are left out with their edges.',
    input: z.strictObject({ id: id('id') }),
    output: CanvasOut.extend({ nodes: z.array(NodeOut), edges: z.array(EdgeOut) }),
    readOnly: true,
  }),
  tool({
    name: 'canvas.update',
    scopes: ['WRITE_ISSUES'],
    description: 'Rename or describe a canvas (description null clears), or archive / unarchive it (archived canvases take no card or edge changes). Only the fields given change.',
    input: z.strictObject({ id: id('id'), name: name.optional(), description: description.nullable().optional(), archived: z.boolean().optional() }),
    output: CanvasOut,
  }),
  tool({
    name: 'canvas.delete',
    scopes: ['WRITE_ISSUES'],
    description: 'Delete a canvas with its nodes and edges (the issues stay). A narrowed key may not delete a canvas holding cards it cannot see (403 narrowing).',
    input: z.strictObject({ id: id('id') }),
    output: z.object({ ok: z.literal(true), id: z.string(), deleted: z.literal(true), removedNodes: z.number(), removedEdges: z.number() }),
  }),
  tool({
    name: 'canvas.addNode',
    scopes: ['WRITE_ISSUES'],
    description: 'Add a card at x, y (±1,000,000): kind issue with issueId (id or key; once per canvas, 409 issue_on_canvas) or kind text with text. width/height default 240×120; color #rrggbb. At most 500 nodes per canvas (409 canvas_node_limit).',
    input: z.strictObject({
      canvasId: id('canvasId'), kind: nodeKind, issueId: issueRef.optional(), text: text.optional(),
      x: coord, y: coord, width: size.optional(), height: size.optional(), color: color.optional(),
    }).superRefine((a, ctx) => {
      if (a.kind === 'issue' && a.issueId === undefined) ctx.addIssue({ code: 'custom', path: ['issueId'], message: 'an issue node needs issueId' });
      if (a.kind === 'issue' && a.text !== undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: 'only text nodes carry text' });
      if (a.kind === 'text' && a.text === undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: 'a text node needs text' });
      if (a.kind === 'text' && a.issueId !== undefined) ctx.addIssue({ code: 'custom', path: ['issueId'], message: 'only issue nodes take issueId' });
    }),
    output: NodeOut,
    idempotent: false, // every call adds a card (the verb alone would say idempotent)
  }),
  tool({
    name: 'canvas.updateNode',
    scopes: ['WRITE_ISSUES'],
    description: 'Move, resize or recolor a card (color null clears), or edit a text card\'s text. Only the fields given change.',
    input: z.strictObject({
      id: id('id'), x: coord.optional(), y: coord.optional(), width: size.optional(), height: size.optional(),
      text: text.optional(), color: color.nullable().optional(),
    }),
    output: NodeOut,
  }),
  tool({
    name: 'canvas.removeNode',
    scopes: ['WRITE_ISSUES'],
    description: 'Remove a card and its edges from its canvas (an issue card\'s issue stays).',
    input: z.strictObject({ id: id('id') }),
    output: z.object({ id: z.string(), canvasId: z.string(), removed: z.literal(true),
      removedEdgeIds: z.array(z.string()).describe('Every edge that went with the card, those to cards this key cannot see included') }),
  }),
  tool({
    name: 'canvas.connect',
    scopes: ['WRITE_ISSUES'],
    description: 'Draw an edge fromNodeId → toNodeId, two cards of canvasId, with an optional label. No self-loops; the same directed edge once (409 edge_exists). At most 1,000 edges per canvas (409 canvas_edge_limit).',
    input: z.strictObject({ canvasId: id('canvasId'), fromNodeId: id('fromNodeId'), toNodeId: id('toNodeId'), label: line(200).optional() }),
    output: EdgeOut,
  }),
  tool({
    name: 'canvas.disconnect',
    scopes: ['WRITE_ISSUES'],
    description: 'Remove an edge by its id.',
    input: z.strictObject({ id: id('id') }),
    output: z.object({ id: z.string(), canvasId: z.string(), removed: z.literal(true) }),
    // A second call finds the edge gone (404), as labels.merge.
    destructive: true,
    idempotent: false,
  }),
);
