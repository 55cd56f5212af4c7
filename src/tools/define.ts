/**
 * A tool is declared once, here-shaped: name, scope, description, zod input, the SQL it calls (by
 * naming convention) and its output shape. JSON-RPC, REST, describe, catalog.* and tools/list all read
 * the same declaration.
 */
import { z } from 'zod';
import type { Caller, Scope } from '../auth/keys.ts';
import { NOT_IN_A_LINE, trimName, VISIBLE } from './text-guard.ts';

export interface ToolContext {
  caller: Caller;
  /** Invokes another tool as the same caller (catalog.call). */
  invoke(name: string, args: unknown): Promise<unknown>;
  /**
   * Calls this tool's own SQL function (tools declared with `sql: true`) as the caller: one statement,
   * one transaction, RLS inside. Returns the parsed JSON; business errors arrive as ApiError.
   */
  sql<T = any>(args: Record<string, unknown>): Promise<T>;
  /** Calls a read-only helper `app_hidden.<name>(args jsonb)` as the caller (e.g. what to fetch before recording). */
  read<T = any>(helper: string, args: Record<string, unknown>): Promise<T>;
  /** Services outside SQL (blob store, repository host); see src/tools/services.ts. */
  services: ToolServices;
}

/** What `run` hooks may use besides SQL. */
export interface ToolServices {
  blobs?: import('../blobs/store.ts').BlobStore;
  /** Outbound requests may reach loopback/private addresses (SVC_EGRESS_ALLOW_PRIVATE). */
  allowPrivateEgress?: boolean;
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** `<namespace>.<tool>`, e.g. `issues.create`. */
  name: string;
  /** Scopes the key must hold (all of them). Empty: any valid key. */
  scopes: Scope[];
  description: string;
  input: I;
  output: O;
  /** True for tools that change nothing (MCP readOnlyHint). */
  readOnly?: boolean;
  /** MCP `title`; default: from the name (`issues.addLabels` → "Issues: add labels"). */
  title?: string;
  /**
   * MCP destructiveHint (a write that deletes, removes or overwrites). Default: from the verb
   * (delete, remove, archive, unlink, abandon, decline, … → true; create, add, append, log, … → false).
   */
  destructive?: boolean;
  /** MCP idempotentHint (calling twice with the same arguments changes nothing more). Default: from the verb. */
  idempotent?: boolean;
  /** MCP openWorldHint (reaches systems outside this service: repository host, any tool). Default false. */
  openWorld?: boolean;
  /**
   * The input field that holds another tool's input (catalog.call's `arguments`): left out of this tool's nesting, size
   * and text checks, which that tool makes itself, naming its own fields (the wrapper counted one level against the
   * nesting limit, and refusals named `arguments.payload…`).
   */
  forwards?: string;
  /**
   * Tools implemented in Node (the catalog helpers), or whose I/O outside SQL happens in Node (object
   * store, repository host) around their SQL function: then `sql: true` as well.
   */
  run?: (ctx: ToolContext, input: z.output<I>) => Promise<unknown>;
  /**
   * With `run`: the tool still has its SQL function app_tools.<ns>_<tool>(args jsonb), which does the
   * authorization, narrowing and row writes in one transaction; `run` calls it with `ctx.sql`.
   * Tools without `run` always have one.
   */
  sql?: boolean;
  /**
   * The tool always refuses a narrowed key (its SQL raises 403 narrowing): 'any' narrowing (webhooks, statuses,
   * settings: they rule the whole workspace), 'projectOrLabel' narrowing (cycles, label changes), 'project' narrowing
   * (projects.create) or 'initiative' narrowing (initiatives.create); 'anyUnlessAgent': any narrowing of a key not
   * linked to an agent (runtimes.reportInfo: a narrowed agent key reports on its own runtime only). Used only to leave
   * the tool out of tools/list and catalog.search for such keys (spec 4.1: the list omits what the key could not call);
   * SQL stays the check.
   */
  refusesNarrowedKeys?: 'any' | 'anyUnlessAgent' | 'projectOrLabel' | 'project' | 'initiative';
  /**
   * The tool always refuses a key not linked to an agent (403 agent_key_required / not_run_agent: heartbeats, the
   * chat tools, a run's own reports). (An archived agent's key is refused everywhere: 403 agent_archived.)
   * Like refusesNarrowedKeys, only leaves it out of tools/list and catalog.search for such keys; SQL stays the check.
   */
  requiresAgentKey?: true;
  /**
   * The tool always refuses a key that acts for no user (a plugin's key: 403 user_required): personal records (notes,
   * pins, time) and votes; 'userOrAgent' also takes an agent's key (watching); 'person' refuses an agent's key too
   * (claims: claimedById is a person's claim, and an agent's key would claim as the user who made it). Like
   * requiresAgentKey, only leaves it out of tools/list and catalog.search for such keys; SQL stays the check.
   */
  requiresUser?: 'user' | 'userOrAgent' | 'person';
  /**
   * The tool refuses a key not issued under a plugin (403 plugin_key_required: plugins.reportError). Plugin keys are
   * the keys without a user of their own. Only leaves it out of tools/list and catalog.search; SQL stays the check.
   */
  requiresPluginKey?: true;
  /**
   * A key linked to an agent needs this scope besides `scopes` (reviewGates.resolve: a person decides, or an agent key
   * holding ADMIN; otherwise 403 person_required). Only leaves the tool out of tools/list and catalog.search for such
   * keys; SQL stays the check.
   */
  agentKeyNeedsScope?: Scope;
  /**
   * The tool refuses a key whose own user is not OWNER or ADMIN of the workspace (403 admin_required: settings, the
   * workflow's statuses, webhooks). Only leaves the tool out of tools/list and catalog.search for such keys; SQL
   * stays the check.
   */
  requiresWorkspaceAdmin?: true;
}

export interface Tool extends ToolDef {
  namespace: string;
  /** MCP tool annotations, derived from the declaration. */
  annotations: ToolAnnotations;
  /** True when app_tools.<ns>_<tool> exists for this tool (no `run`, or `run` with `sql: true`). */
  hasSql: boolean;
  /** The SQL function: app_tools.<namespace>_<tool in snake_case>(args jsonb) returns jsonb. */
  sqlFunction: string;
  /** Its file under sql/: `<namespace>/tools/<toolCamel>.sql`. */
  sqlFile: string;
}

/** MCP ToolAnnotations (every tool carries all five). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

// The verb is the first word of the tool part (`addLabels` → add). Writes that lose or overwrite state:
const DESTRUCTIVE_VERBS = new Set(['delete', 'remove', 'archive', 'unlink', 'unwatch', 'abandon', 'decline', 'release', 'update',
  'set', 'configure', 'transition', 'reassign', 'close', 'stop', 'complete', 'rollover', 'resolve', 'sync']);
// Writes whose repetition with the same arguments changes nothing more:
const IDEMPOTENT_VERBS = new Set(['delete', 'remove', 'archive', 'unlink', 'unwatch', 'watch', 'link', 'add', 'set', 'update',
  'configure', 'assign', 'reassign', 'heartbeat', 'upsert', 'queue', 'abandon', 'release', 'close', 'stop', 'today', 'finalize',
  'accept', 'decline', 'activate', 'resolve', 'sync', 'report', 'unarchive', 'restore']);

/** The annotations of a declaration: explicit fields win; otherwise derived from readOnly and the verb. */
export function annotationsOf(def: ToolDef, namespace: string, toolPart: string): ToolAnnotations {
  const words = toolPart.replace(/([A-Z])/g, ' $1').toLowerCase().trim().split(/\s+/);
  const verb = words[0]!;
  const ns = namespace.replace(/([A-Z])/g, ' $1').toLowerCase();
  const readOnly = !!def.readOnly;
  return {
    title: def.title ?? `${ns[0]!.toUpperCase()}${ns.slice(1)}: ${words.join(' ')}`,
    readOnlyHint: readOnly,
    destructiveHint: readOnly ? false : def.destructive ?? DESTRUCTIVE_VERBS.has(verb),
    idempotentHint: readOnly ? true : def.idempotent ?? IDEMPOTENT_VERBS.has(verb),
    openWorldHint: def.openWorld ?? false,
  };
}

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export function defineTools<const T extends readonly ToolDef[]>(...defs: T): Tool[] {
  return defs.map((def) => {
    // `agent.context.bundle`: the parts after the namespace join as one tool (contextBundle, context_bundle).
    const [namespace, ...parts] = def.name.split('.');
    if (!namespace || !parts.length || parts.some((p) => !p)) throw new Error(`tool name ${def.name} must be <namespace>.<tool>`);
    const tool = parts.map((p, i) => (i ? p[0]!.toUpperCase() + p.slice(1) : p)).join('');
    return { ...def, namespace, annotations: annotationsOf(def, namespace, tool), hasSql: !def.run || !!def.sql, sqlFunction: `app_tools.${snake(namespace)}_${snake(tool)}`, sqlFile: `${namespace}/tools/${tool}.sql` } as Tool;
  });
}

/** Typed helper so each declaration infers its own input type for `run`. */
export const tool = <I extends z.ZodObject, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef => def as unknown as ToolDef;

// Shared input pieces -------------------------------------------------------------------------

/**
 * Where an agent finds the id a field wants, said in its refusal: "projectId must be a UUID" told a caller who sent
 * "Project X" nothing about how to get one (docs/decisions.md, "Errors as guidance").
 */
const ID_SOURCES: Array<[RegExp, string]> = [
  [/agentid$/i, "an agent's id: agents.list, agents.me for your own (some tools take profileKey instead)"],
  [/^(assigneduserid|userid|claimedbyid)$/i, "a person's id: members.list, or workspace.get's caller.userId for your own"],
  [/^projectids?$/i, 'from projects.list'],
  [/^labelids?$/i, 'from labels.list'],
  [/^cycleid$/i, 'from cycles.list or cycles.current'],
  [/^(statusid|moveissuesto)$/i, 'from statuses.list (issues.transition and issues.list also take status by name or category)'],
  [/^initiativeid$/i, 'from initiatives.list'],
  [/^(goalid)$/i, 'from goals.list'],
  [/^(runid|sourcerunid)$/i, 'from runs.list, or the run issues.assign opened'],
  [/^threadid$/i, 'from chat.listThreads'],
  [/^webhookid$/i, 'from webhooks.list'],
];
export const id = (what: string) => {
  const from = ID_SOURCES.find(([re]) => re.test(what))?.[1];
  const message = from ? `${what} must be a UUID, ${from}` : `${what} must be a UUID`;
  // A value that is not a UUID gets the hint; a missing one stays "required" (invoke.ts).
  return z.uuid({ error: (issue) => (issue.input === undefined ? undefined : message) });
};
/** A name or title: one line (NOT_IN_A_LINE, text-guard.ts), trimmed (trimName), 1 to max characters, one of them VISIBLE. */
export const line = (max: number) => z.string().overwrite(trimName).min(1, 'must not be empty').max(max)
  .refine((s) => !NOT_IN_A_LINE.test(s), 'must be one line of text, without control or direction-override characters')
  .refine((s) => s === '' || VISIBLE.test(s), 'must have a visible character');
/**
 * A message body (comments, chat): up to 100,000 characters, not blank. minLength and a pattern say so in the JSON
 * Schema a client reads (a refine did not: "" and "   " were refused by a schema that allowed them).
 */
export const bodyText = z.string().min(1, 'body must not be empty').max(100_000).regex(/\S/, 'body must not be empty');
/** An issue reference: its UUID or its key (ABC-12). */
export const issueRef = z.string().min(1).max(64).describe('Issue id (UUID) or key such as ENG-12');
export const limit = (def: number, max: number) => z.number().int().min(1).max(max).default(def).describe(`Page size, default ${def}, max ${max}`);
/** null is the first page, as absent: a client loops passing the last page's nextCursor, null on the first call. */
// 1,000: a cursor may carry the sort key (a label's name, a member's email: up to 400 bytes of UTF-8) and grew past 200.
export const cursor = z.string().min(1).max(1000).nullable().describe('nextCursor from the previous page');
export const priority = z.enum(['NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT']);
export const statusCategory = z.enum(['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED']);
/** What a run is for (spec 4.5): the mode of the run an assignment opens. */
export const engagementMode = z.enum(['EXECUTE', 'RESEARCH', 'REVIEW', 'DISCUSS']);
export const autoDispatchMode = z.enum(['ROUND_ROBIN', 'PRIORITY_MATCH', 'CAPABILITY_MATCH', 'MANUAL_ONLY']);
export const timestamp = z.string().describe('ISO 8601 timestamp');
/**
 * A count per value of an enum, every value present: an object with one property each. (z.record(enum, number) said
 * the same as propertyNames + required, which Ajv's strict mode refuses and generators typed as a string index.)
 */
export const countsBy = <T extends string>(e: z.ZodEnum<{ [K in T]: K }>) =>
  z.strictObject(Object.fromEntries(e.options.map((k) => [k, z.number()])) as { [K in T]: z.ZodNumber });

/** The largest value of a PostgreSQL `integer` column (what most integer inputs end up in). */
export const INT4_MAX = 2_147_483_647;
/**
 * A whole-number input that fits an `integer` column (or a smaller `max`): the published JSON Schema says
 * so, and a value past it is a 400 naming the field instead of PostgreSQL's "out of range" error.
 */
export const int = (min: number, max = INT4_MAX) => z.number().int().min(min).max(max);
/** An amount of US dollars: a run's cost, a goal's budget (a million at most; 1e300 is a typo, not a bill). */
export const money = z.number().min(0).max(1_000_000);

// zod's ISO patterns already refuse impossible days (2026-02-30) and times; PostgreSQL also has no year 0.
const YEAR_ZERO = { message: 'year 0000 does not exist (years start at 0001)' };
const notYearZero = (s: string) => !s.startsWith('0000');
// An IANA zone name as Intl knows it: PostgreSQL alone would also take POSIX strings such as "UTC+14", whose sign
// is the reverse of what people mean (a user at UTC+14 would get yesterday's journal).
export const ianaZone = z.string().min(1).max(64).refine((zone) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone such as Europe/Paris or UTC').describe('IANA time zone, e.g. Europe/Paris');

/** An ISO date (YYYY-MM-DD) PostgreSQL can store: a real calendar day, year 0001 or later. */
export const isoDate = () => z.iso.date().refine(notYearZero, YEAR_ZERO);
// The instant, not the written day: 0001-01-01T00:00+14:00 is still year 0 in UTC (stored as 1 BC, shown as
// "0001-12-31T10:00:00+00:00 BC" and paged out of order), and 9999-12-31T23:59-14:00 is year 10000.
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const inYears = (s: string) => { const t = Date.parse(s); return t >= FIRST_INSTANT && t <= LAST_INSTANT; };
/**
 * An ISO 8601 date-time with Z or an offset that PostgreSQL can store: a real day, an instant from 0001-01-01 to
 * 9999-12-31 UTC. Past microseconds (RFC 3339 allows nanoseconds) the fraction is cut, as PostgreSQL would otherwise
 * round 23:59:59.9999999 into the next day.
 */
export const isoDateTime = () => z.iso.datetime({ offset: true })
  .overwrite((s) => s.replace(/(\.\d{6})\d+/, '$1'))
  .refine(notYearZero, YEAR_ZERO)
  .refine(inYears, { message: 'must be an instant from 0001-01-01 to 9999-12-31 (UTC)' });

/** `{ items, nextCursor }` — the shape of every paged list. */
/**
 * An http(s) URL as people paste it: it must parse (WHATWG URL: no space in the host), hold no backslash, carry no user:password@ (it
 * would be stored and shown to every reader), and its scheme may be in any case (stored in lower case, as the
 * tables' checks expect). Otherwise the string is kept as given.
 */
export const httpUrl = (max: number) => z.string().max(max)
  .refine(isHttpUrl, 'must be an http:// or https:// URL (no spaces, no backslashes, no user:password@)')
  .overwrite((s) => s.replace(/^https?:/i, (scheme) => scheme.toLowerCase()));

function isHttpUrl(s: string): boolean {
  // A backslash is a slash to browsers but not to every reader of the text (`https://evil.example\@github.com/` opens
  // evil.example and reads as github.com): refused, as repohost.parseUrl refuses it.
  if (!/^https?:\/\/[^\s/?#]/i.test(s) || /[\s\\]/.test(s)) return false;
  try {
    const u = new URL(s);
    return !u.username && !u.password && u.hostname !== '';
  } catch {
    return false;
  }
}

export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });
