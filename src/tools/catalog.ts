/**
 * The catalog: every tool, the profiles that bundle namespaces for tools/list, and the three
 * catalog helpers (search, describe, call) that let an agent reach tools outside its list.
 */
import { z } from 'zod';
import { hasScope, type Caller } from '../auth/keys.ts';
import { editDistance } from '../edit-distance.ts';
import { ApiError } from '../errors.ts';
import { agentContextTools } from './agent.ts';
import { actionRequestTools } from './actionRequests.ts';
import { agentTools } from './agents.ts';
import { chatTools } from './chat.ts';
import { analyticsTools, standupTools } from './analytics.ts';
import { attachmentTools } from './attachments.ts';
import { commentTools } from './comments.ts';
import { CatalogIndex } from './catalog-search.ts';
import { defineTools, tool, type Tool } from './define.ts';
import { eventTools } from './events.ts';
import { MORE_ISSUES_FIELD } from './invoke.ts';
import { issueTools } from './issues.ts';
import { labelTools } from './labels.ts';
import { memberTools } from './members.ts';
import { notificationTools } from './notification.ts';
import { cycleTools } from './cycles.ts';
import { noteTools } from './notes.ts';
import { crewTools, executionPlanTools, goalTools, planTools, reviewGateTools } from './orchestration.ts';
import { pinTools } from './pins.ts';
import { pluginTools } from './plugins.ts';
import { initiativeTools, projectTools } from './projects.ts';
import { relationTools } from './relations.ts';
import { runTools } from './runs.ts';
import { runtimeTools } from './runtimes.ts';
import { repohostTools } from './repohost.ts';
import { timeTools } from './time.ts';
import { webhookTools } from './webhooks.ts';
import { canvasTools } from './canvas.ts';
import { statusTools, workspaceTools } from './workspace.ts';
import { clip } from '../text.ts';

const descriptorOut = z.looseObject({
  name: z.string(), description: z.string(), scopes: z.array(z.string()),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional().describe('MCP tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title)'),
});

/** catalog.describe's descriptor adds where the tool lives and how REST calls it. */
const fullDescriptorOut = descriptorOut.extend({
  namespace: z.string(), readOnly: z.boolean(),
  rest: z.looseObject({ method: z.literal('POST'), path: z.string(), outputSchema: z.record(z.string(), z.unknown()).optional() })
    .describe('The REST alias; outputSchema where its body differs from structuredContent (an array answered bare)'),
  callable: z.boolean(),
});

const catalogTools = defineTools(
  tool({
    name: 'catalog.search',
    scopes: [],
    description: 'Find tools this key may call in the whole catalog (beyond this tools/list profile) in plain words (claim an issue); best first.',
    input: z.strictObject({ query: z.string().trim().min(1).max(200), limit: z.number().int().min(1).max(100).default(20) }),
    output: z.array(descriptorOut),
    readOnly: true,
    run: async ({ caller }, input: { query: string; limit: number }) => searchCatalog(caller, input.query, input.limit),
  }),
  tool({
    name: 'catalog.describe',
    scopes: [],
    description: 'Full descriptors (description, required scopes, input and output JSON Schemas) of tools by name, each with callable: whether this key may call it (its scopes, role, narrowing and agent link).',
    input: z.strictObject({ names: z.array(z.string().min(1).max(100)).min(1).max(50) }),
    output: z.array(fullDescriptorOut),
    readOnly: true,
    run: async (ctx, input: { names: string[] }) => {
      const unknown = input.names.filter((n) => !byName.has(n));
      if (unknown.length) throw new ApiError(404, { error: 'unknown_tool', message: `Unknown tool: ${unknown.join(', ')}` });
      return input.names.map((n) => byName.get(n)!).map((t) => ({ ...descriptor(t), callable: canCall(ctx.caller, t) }));
    },
  }),
  tool({
    name: 'catalog.call',
    scopes: [],
    description: "Call any tool by name with its arguments, as if called directly; the target tool's scopes and narrowing still apply.",
    input: z.strictObject({ name: z.string().min(1).max(100), arguments: z.record(z.string(), z.unknown()).default({}) }),
    output: z.unknown(),
    // It reaches any tool: assume the worst of each hint.
    destructive: true,
    openWorld: true,
    forwards: 'arguments',
    run: async (ctx, input: { name: string; arguments: Record<string, unknown> }) => {
      if (input.name.startsWith('catalog.')) {
        const message = 'catalog helpers cannot be called through catalog.call';
        throw new ApiError(400, { error: 'invalid_input', message, issues: { name: message } });
      }
      try {
        return await ctx.invoke(input.name, input.arguments);
      } catch (err) {
        throw err instanceof ApiError ? inArguments(err) : err;
      }
    },
  }),
);

/**
 * The target tool's refusal, its fields named where they are in catalog.call's input (`arguments.name`, `arguments`
 * for the whole): the tool's own `name` read as catalog.call's `name` (projects.create without one said
 * `name: required`, as if the tool's name were missing).
 */
function inArguments(err: ApiError): ApiError {
  const { issues, field } = err.body;
  if (!issues && !field) return err;
  const at = (f: string) => (f === 'input' ? 'arguments' : `arguments.${f}`);
  return new ApiError(err.status, {
    ...err.body,
    ...(issues && { issues: Object.fromEntries(Object.entries(issues).map(([k, v]) => [k === MORE_ISSUES_FIELD ? k : at(k), v])) }),
    ...(field && { field: at(field) }),
  }, err.headers);
}

// One line per namespace.
export const TOOLS: Tool[] = [
  ...issueTools,
  ...commentTools,
  ...labelTools,
  ...workspaceTools,
  ...statusTools,
  ...agentTools,
  ...eventTools,
  ...notificationTools,
  ...projectTools,
  ...initiativeTools,
  ...cycleTools,
  ...relationTools,
  ...pinTools,
  ...noteTools,
  ...timeTools,
  ...runtimeTools,
  ...runTools,
  ...chatTools,
  ...agentContextTools,
  ...actionRequestTools,
  ...goalTools,
  ...planTools,
  ...executionPlanTools,
  ...crewTools,
  ...reviewGateTools,
  ...attachmentTools,
  ...repohostTools,
  ...analyticsTools,
  ...standupTools,
  ...memberTools,
  ...webhookTools,
  ...canvasTools,
  ...pluginTools,
  ...catalogTools,
];
const byName = new Map(TOOLS.map((t) => [t.name, t]));

export const findTool = (name: string): Tool | undefined => byName.get(name);

/**
 * The tool a name that is none probably meant: another separator (issues_create, issues/create), a letter or two off
 * (issue.create, issues.creat), another case. None when nothing is that close.
 */
export function meantTool(name: string): string | undefined {
  if (name.length > 100) return undefined;
  const asked = name.toLowerCase().replace(/[_\-/:\s]/g, '.');
  let meant: string | undefined;
  let distance = asked.length >= 8 ? 3 : 2;
  for (const known of byName.keys()) {
    const d = editDistance(known.toLowerCase(), asked);
    if (d < distance) [meant, distance] = [known, d];
  }
  return meant;
}

/** 404 unknown_tool, naming the tool it probably meant (every surface: REST, tools/call, catalog.call). */
export function unknownTool(name: string): ApiError {
  const meant = meantTool(name);
  return new ApiError(404, { error: 'unknown_tool',
    message: `Unknown tool: ${clip(name, 100)}${meant ? `; did you mean ${meant}?` : ''}` });
}

/**
 * Tools of the runtime namespaces an agent at work rarely needs, left out of the default list (40 KB budget,
 * test/mcp/tool-list.test.ts): profiles core/agents/full list them, catalog.search finds them, tools/call takes them.
 */
const RUNTIME_LEAVES_OUT = ['issues.count', 'issues.children', 'issues.history', 'issues.restore', 'runs.cancel',
  // Nudging another agent's quiet run is a supervisor's act, not a working agent's.
  'runs.kick',
  'actionRequests.update', 'chat.listMessages', 'issues.watch', 'issues.unwatch', 'issues.listWatchers', 'issues.listWatching',
  // Bulk changes (3.9 KB of schema): an agent's key, which also sees the run and chat tools, was 43 KB without this.
  'issues.createMany', 'issues.updateMany'];
const CORE = ['issues', 'comments', 'projects', 'statuses', 'labels', 'relations', 'attachments', 'agents', 'notes',
  'pins', 'time', 'events', 'workspace', 'repohost', 'notification', 'agent', 'standup', 'analytics', 'members', 'webhooks',
  'skills', 'plugins'];
// Profiles (spec 4.1): curated bundles for tools/list. An entry is a namespace ('issues'), one tool
// ('workspace.get'), or '!' and either, left out of what the other entries bring ('!issues.count'). The catalog
// helpers are always listed.
export const PROFILES: Record<string, string[] | 'all'> = {
  // An agent's presence and its briefing are part of its work (an agent that stops heartbeating goes OFFLINE);
  // watching issues is a person's habit, so it makes the room.
  runtime: ['issues', 'comments', 'chat', 'runs', 'actionRequests', 'workspace.get', 'agents.heartbeat', 'agents.me',
    'agent.context.bundle', ...RUNTIME_LEAVES_OUT.map((n) => `!${n}`)],
  core: CORE,
  planning: [...CORE, 'cycles', 'initiatives', 'goals', 'plans', 'executionPlans', 'reviewGates'],
  agents: [...CORE, 'runs', 'agentCrews', 'runtimes', 'actionRequests', 'chat'],
  canvas: ['canvas'],
  full: 'all',
};
export const DEFAULT_PROFILE = 'runtime';
// A profile entry naming one tool must name a real one (a typo would silently list nothing, or leave out nothing).
for (const [profile, entries] of Object.entries(PROFILES)) {
  for (const entry of entries === 'all' ? [] : entries) {
    const target = entry.replace(/^!/, '');
    if (target.includes('.') && !byName.has(target)) throw new Error(`profile ${profile}: no tool ${target}`);
  }
}

const KNOWN_SELECTORS = new Set([...TOOLS.map((t) => t.name), ...TOOLS.map((t) => t.namespace)]);

/** Whether selector entries (a profile's, or `tools`) take in a tool: its namespace or its name, unless a '!' entry leaves it out. */
function selects(entries: Set<string>, t: Tool): boolean {
  if (entries.has(`!${t.name}`) || entries.has(`!${t.namespace}`)) return false;
  return entries.has(t.namespace) || entries.has(t.name);
}

function refusedByNarrowing(caller: Caller, refuses: NonNullable<Tool['refusesNarrowedKeys']>): boolean {
  const [project, label, initiative] = [caller.projectIds.length > 0, caller.labelIds.length > 0, caller.initiativeIds.length > 0];
  switch (refuses) {
    case 'any': return project || label || initiative;
    case 'anyUnlessAgent': return (project || label || initiative) && !caller.agentId;
    case 'projectOrLabel': return project || label;
    case 'project': return project;
    case 'initiative': return initiative;
  }
}

export function canCall(caller: Caller, t: Tool): boolean {
  if (t.requiresAgentKey && !caller.agentId) return false;
  if (t.requiresPluginKey && caller.userId) return false;
  if (t.requiresUser && !caller.userId && t.requiresUser !== 'userOrAgent') return false;
  if (t.requiresUser === 'userOrAgent' && !caller.userId && !caller.agentId) return false;
  if (t.requiresUser === 'person' && caller.agentId) return false;
  if (t.agentKeyNeedsScope && caller.agentId && !hasScope(caller, t.agentKeyNeedsScope)) return false;
  if (t.requiresWorkspaceAdmin && !caller.workspaceAdmin) return false;
  if (t.refusesNarrowedKeys && refusedByNarrowing(caller, t.refusesNarrowedKeys)) return false;
  return t.scopes.every((s) => hasScope(caller, s));
}

/** Tools advertised by tools/list for these selectors; `tools` (namespaces or tool names, '!' leaves out) wins over `profile`. */
export function selectTools(caller: Caller, selectors: { profile?: unknown; tools?: unknown }): Tool[] {
  let namespaces: Set<string>;
  // Query strings repeat parameters as arrays (?tools=issues&tools=notes): every value counts.
  const tools = Array.isArray(selectors.tools) ? selectors.tools.join(',') : selectors.tools;
  if (Array.isArray(selectors.profile)) {
    const hint = `give one profile, not ${selectors.profile.length}; use one of ${Object.keys(PROFILES).join(', ')}`;
    throw new ApiError(400, { error: 'invalid_input', message: hint, issues: { profile: hint } });
  }
  const entries = typeof tools === 'string' && tools ? new Set(tools.split(',').map((s) => s.trim()).filter(Boolean)) : undefined;
  // A typo would silently list nothing (or leave out nothing): unknown entries are a 400, as an unknown profile is.
  const unknown = [...entries ?? []].filter((e) => !KNOWN_SELECTORS.has(e.replace(/^!/, '')));
  if (unknown.length) {
    const hint = `unknown namespace or tool ${unknown.slice(0, 3).map((e) => JSON.stringify(clip(e, 60, ''))).join(', ')}; name namespaces (issues) or tools (issues.get), '!' to leave one out`;
    throw new ApiError(400, { error: 'invalid_input', message: hint, issues: { tools: hint } });
  }
  // `tools` naming namespaces or tools is the list (the profile is not read); `tools` with only '!' entries leaves
  // them out of the profile's list (`?tools=!issues.delete` listed the catalog helpers alone).
  const leavesOutOnly = entries !== undefined && [...entries].every((e) => e.startsWith('!'));
  if (entries && !leavesOutOnly) {
    namespaces = entries;
  } else {
    const name = typeof selectors.profile === 'string' && selectors.profile ? selectors.profile : DEFAULT_PROFILE;
    // Own keys only: `constructor`, `__proto__`, `toString` are unknown profiles, not Object.prototype members.
    const profile = Object.hasOwn(PROFILES, name) ? PROFILES[name] : undefined;
    if (!profile) {
      const hint = `unknown profile ${JSON.stringify(selectors.profile)}; use one of ${Object.keys(PROFILES).join(', ')}`;
      throw new ApiError(400, { error: 'invalid_input', message: hint, issues: { profile: hint } });
    }
    namespaces = profile === 'all' ? new Set(TOOLS.map((t) => t.namespace)) : new Set(profile);
    for (const e of entries ?? []) namespaces.add(e);
  }
  return TOOLS.filter(
    (t) => (selects(namespaces, t) || t.namespace === 'catalog') && canCall(caller, t),
  );
}

// JSON Schemas come from the zod declarations (never written twice); cached per tool.
const schemaCache = new Map<string, { input: Record<string, unknown>; output?: Record<string, unknown>; lightInput?: Record<string, unknown> }>();

type Schema = Record<string, unknown>;
const SCHEMA_MAPS = ['properties', '$defs', 'definitions', 'patternProperties'];
const SCHEMA_ONE = ['items', 'additionalProperties', 'not', 'propertyNames', 'contains', 'unevaluatedProperties', 'unevaluatedItems'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

/** Applies `fix` to every subschema, children first (only schema positions: not `default`, `enum`, …). */
function mapSchema(schema: Schema, fix: (s: Schema) => Schema): Schema {
  const out: Schema = { ...schema };
  for (const k of SCHEMA_MAPS) {
    const m = out[k];
    if (m && typeof m === 'object') out[k] = Object.fromEntries(Object.entries(m).map(([n, v]) => [n, isSchema(v) ? mapSchema(v, fix) : v]));
  }
  for (const k of SCHEMA_ONE) if (isSchema(out[k])) out[k] = mapSchema(out[k] as Schema, fix);
  for (const k of SCHEMA_LISTS) if (Array.isArray(out[k])) out[k] = (out[k] as unknown[]).map((v) => (isSchema(v) ? mapSchema(v, fix) : v));
  return fix(out);
}
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Provider-portable, same meaning: a nullable `type: [t, "null"]` becomes `anyOf: [{type: t, …}, {type: "null"}]`;
 * `additionalProperties` and `items` that accept anything, and `propertyNames: {type: "string"}` (what JSON allows anyway) go; any other empty
 * `{}` says what it accepts; integer bounds equal to the safe-integer limits (zod's defaults) go.
 */
const acceptsAnything = (v: unknown) => isSchema(v) && Object.keys(v).every((k) => ANNOTATIONS.has(k));

function portable(s: Schema): Schema {
  const out = { ...s };
  // `additionalProperties` / `items` that accept anything (no validation keyword, maybe a description) go:
  // absent means the same, and strict clients (MCP Inspector --strict) flag a schema that constrains nothing.
  if (acceptsAnything(out.additionalProperties)) delete out.additionalProperties;
  if (acceptsAnything(out.items)) delete out.items;
  if (isSchema(out.propertyNames) && Object.keys(out.propertyNames).length === 1 && out.propertyNames.type === 'string') delete out.propertyNames;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (Array.isArray(out.type)) {
    const types = out.type as string[];
    const kept: Schema = {};
    const branch: Schema = {};
    for (const [k, v] of Object.entries(out)) if (k !== 'type') (ANNOTATIONS.has(k) ? kept : branch)[k] = v;
    const branches = types.map((t) => (t === 'null' ? { type: 'null' } : { type: t, ...branch }));
    return branches.length === 1 ? { ...kept, ...branches[0] } : { ...kept, anyOf: branches };
  }
  if (Object.keys(out).length === 0) return { description: 'Any JSON value' };
  return out;
}

/**
 * For the curated tools/list profiles: a `pattern` that only spells out a `format` (uuid, date-time) goes, and so
 * does `additionalProperties: false` (62 of them in the default list, 1.7 KB; the server refuses an unknown field
 * with a 400 naming it either way). profile=full and catalog.describe keep both.
 */
function light(s: Schema): Schema {
  const out = { ...s };
  if (typeof out.format === 'string') delete out.pattern;
  if (out.additionalProperties === false) delete out.additionalProperties;
  return out;
}

/** A zod schema as portable JSON Schema (2020-12, no `$schema`). */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Schema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Schema;
  return mapSchema(rest, portable);
}

export function schemasOf(t: Tool): { input: Schema; output?: Schema } {
  let s = schemaCache.get(t.name);
  if (!s) {
    const out = t.output instanceof z.ZodArray ? z.object({ items: t.output }) : t.output;
    // MCP's outputSchema is an object schema: an object, or one of several (agent.context.bundle: an issue's or a
    // thread's), stated as an object with anyOf. A result that may be null (cycles.current, time.running) or any
    // tool's (catalog.call) has none: null comes without structured content.
    const oneOfObjects = out instanceof z.ZodUnion && out.options.every((o) => o instanceof z.ZodObject);
    const outputSchema = out instanceof z.ZodObject ? toJsonSchema(out, 'output')
      : oneOfObjects ? { type: 'object', ...toJsonSchema(out, 'output') } : undefined;
    s = { input: toJsonSchema(t.input, 'input'), output: outputSchema };
    schemaCache.set(t.name, s);
  }
  return s;
}

function lightInputOf(t: Tool): Schema {
  schemasOf(t);
  const s = schemaCache.get(t.name)!;
  return (s.lightInput ??= mapSchema(s.input, light));
}

/**
 * MCP tool descriptor (tools/list). Array outputs are advertised as {items: [...]}, as structuredContent
 * carries them. `full` (profile=full): input and output schemas as declared. Otherwise (the curated
 * profiles, the default): light, without outputSchema and format-spelling patterns; catalog.describe and
 * profile=full still give everything.
 */
export function mcpDescriptor(t: Tool, full = true) {
  const s = schemasOf(t);
  return {
    name: t.name,
    description: t.description,
    inputSchema: full ? s.input : lightInputOf(t),
    ...(full && s.output ? { outputSchema: s.output } : {}),
    annotations: t.annotations,
  };
}

/** Whether tools/list gives the full descriptors (profile=full) or the light ones (any other selection). */
export const fullListing = (selectors: { profile?: unknown; tools?: unknown }) =>
  selectors.profile === 'full' && !(typeof selectors.tools === 'string' && selectors.tools) && !Array.isArray(selectors.tools);

/**
 * The body the REST alias answers with: the declared output, an array left bare (tools/list and structuredContent
 * wrap it as {items}). The 200 body of openapi.json, and `rest.outputSchema` in describe where it differs.
 */
export function restOutputSchema(t: Tool): Schema {
  const s = schemasOf(t);
  return t.output instanceof z.ZodObject && s.output ? s.output : toJsonSchema(t.output, 'output');
}

/**
 * A tool as GET /api/mcp/describe and catalog.describe show it: `outputSchema` is what MCP returns (structuredContent);
 * `rest.outputSchema` is the REST body where that differs (array outputs: bare on REST) or MCP has none (a nullable result).
 */
export function descriptor(t: Tool) {
  const s = schemasOf(t);
  return {
    name: t.name,
    namespace: t.namespace,
    description: t.description,
    scopes: t.scopes,
    readOnly: !!t.readOnly,
    annotations: t.annotations,
    inputSchema: s.input,
    ...(s.output ? { outputSchema: s.output } : {}),
    // The REST body's schema where MCP's outputSchema does not say it: an array (bare on REST), or a result that may be
    // null (cycles.current, time.running), which MCP gives no outputSchema but openapi.json describes.
    rest: { method: 'POST', path: `/api/mcp/${t.name}`, ...(t.output instanceof z.ZodArray || !s.output ? { outputSchema: restOutputSchema(t) } : {}) },
  };
}

let catalogIndex: CatalogIndex<Tool> | undefined;

export function searchCatalog(caller: Caller, query: string, max: number) {
  catalogIndex ??= new CatalogIndex(TOOLS);
  return catalogIndex.search(query, max, (t) => canCall(caller, t))
    .map((t) => ({ name: t.name, description: t.description, scopes: t.scopes }));
}
