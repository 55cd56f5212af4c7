/**
 * Calling a tool: scope check, zod validation, then ONE statement that sets the caller identity and
 * calls the tool's SQL function (one round trip, one transaction, RLS inside). The result stays the JSON
 * text PostgreSQL produced; transports embed it without parsing and re-serialising.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { z } from 'zod';
import { hasScope, type Caller } from '../auth/keys.ts';
import { queryAsCaller, type Idempotency } from '../db/as-caller.ts';
import { ApiError, fromPgError, invalidInput, scopeRequired } from '../errors.ts';
import { editDistance } from '../edit-distance.ts';
import { findTool, unknownTool } from './catalog.ts';
import type { Tool, ToolContext, ToolServices } from './define.ts';
import { checkInput, setOwnIssue } from './text-guard.ts';
import { clip } from '../text.ts';

/**
 * A field left out whose schema is a choice (an enum, a literal, a union of forms) is "required", as a left-out string
 * is; zod said "Invalid option: expected one of …", as if a wrong value had been sent. Set for the process: the
 * tools' own schemas and a plugin skill's inputSchema (skills.invoke) alike.
 */
z.config({
  customError: (issue) => {
    if (issue.input !== undefined) return undefined;
    if (issue.code === 'invalid_value') return `required (${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((v) => JSON.stringify(v)).join('|')})`;
    if (issue.code === 'invalid_union') return 'required';
    return undefined;
  },
});

/**
 * How many issues a 400 lists: a request with 60,000 unknown fields was answered 1.5 MB naming each. Past this many,
 * one more entry, MORE_ISSUES_FIELD, says how many were left out.
 */
export const MAX_ISSUES = 20;
/** The field of the entry that counts the issues left out of a 400 (no tool has a field of that name). */
export const MORE_ISSUES_FIELD = '…';
export const moreIssuesMessage = (n: number) => `${n} more ${n === 1 ? 'issue' : 'issues'} not listed`;

/**
 * A 400's issues map built in order, first report of a field wins, at most MAX_ISSUES entries and then a count of the
 * rest. Own properties only: a field named `__proto__` must be reported, not become the map's prototype.
 */
export class IssueMap {
  private readonly map: Record<string, string> = {};
  private listed = 0;
  private more = 0;
  constructor(private readonly max = MAX_ISSUES) {}
  get size(): number {
    return this.listed + this.more;
  }
  add(rawField: string, message: string): void {
    // A field is named as sent, up to 200 characters: an unknown field named with 100 KB was echoed back whole.
    const field = clip(rawField, 200);
    if (Object.hasOwn(this.map, field)) return;
    if (this.listed >= this.max) { this.more++; return; }
    setOwnIssue(this.map, field, message);
    this.listed++;
  }
  addAll(issues: Record<string, string>): void {
    for (const field of Object.keys(issues)) this.add(field, issues[field]!);
  }
  /** Issues known only by their number (the unknown fields past the ones named). */
  addUnlisted(n: number): void {
    this.more += n;
  }
  toJSON(): Record<string, string> {
    const out = { ...this.map };
    if (this.more) setOwnIssue(out, MORE_ISSUES_FIELD, moreIssuesMessage(this.more));
    return out;
  }
}

/**
 * zod's issues as {field path: message}, capped (IssueMap): zod lists every unknown field of a strict object. `declared`
 * (the tool's own fields) lets an unknown top-level field name the one it was probably meant as.
 */
export function zodIssues(error: z.ZodError, into = new IssueMap(), declared: readonly string[] = []): Record<string, string> {
  addZodIssues(error.issues, [], into, declared);
  return into.toJSON();
}

// Names agents reach for that a tool calls otherwise (comments.list pages with before, where most lists take cursor).
// Only where the meaning is the same: a guess that names a field meaning something else misleads more than none.
const SYNONYMS: Record<string, string[]> = {
  cursor: ['before'], before: ['cursor'], after: ['cursor'], page: ['cursor', 'before'], pageSize: ['limit'], perPage: ['limit'], first: ['limit'],
  issue: ['issueId'], issueKey: ['issueId'], relatedIssueId: ['toIssueId'], otherIssueId: ['toIssueId'], url: ['externalUrl', 'webhookUrl'],
  link: ['externalUrl'], minutes: ['durationMin'], duration: ['durationMin'], status: ['statusId', 'toStatus'], statusId: ['status'],
  state: ['status'], text: ['body'], content: ['body'], comment: ['body'], message: ['body'], agent: ['agentId', 'profileKey'],
  profile: ['profileKey'], assignee: ['assignedAgentId', 'assignedUserId'], labels: ['labelIds'], label: ['labelIds', 'labelId'],
  project: ['projectId'], cycle: ['cycleId'], parent: ['parentId'], query: ['q'], q: ['query'], search: ['query'],
};

const squash = (s: string) => s.toLowerCase().replace(/[_-]/g, '');
/**
 * "unknown field", and the declared field(s) it was probably meant as: a synonym, another spelling (statusID), the end
 * of declared names (issueId → fromIssueId or toIssueId), a typo (one edit in a short word, two in a long one).
 */
export function unknownFieldMessage(key: string, declared: readonly string[]): string {
  if (key.length > 100) return 'unknown field';
  const k = squash(key);
  const meant = (Object.hasOwn(SYNONYMS, key) ? SYNONYMS[key]! : []).filter((d) => declared.includes(d)).slice(0, 1);
  if (!meant.length) meant.push(...declared.filter((d) => squash(d) === k));
  if (!meant.length && k.length >= 5) meant.push(...declared.filter((d) => squash(d).endsWith(k)).slice(0, 3));
  if (!meant.length && k.length >= 4) meant.push(...declared.filter((d) => editDistance(squash(d), k) <= (k.length >= 6 ? 2 : 1)).slice(0, 1));
  return meant.length ? `unknown field; did you mean ${meant.join(' or ')}?` : 'unknown field';
}

type ZodIssue = z.ZodError['issues'][number];

function addZodIssues(issues: readonly ZodIssue[], prefix: PropertyKey[], into: IssueMap, declared: readonly string[] = []): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const field = path.length ? path.map(String).join('.') : 'input';
    if (issue.code === 'unrecognized_keys') {
      // The map names the first few and counts the rest (an object has at most MAX_OBJECT_KEYS by now).
      for (const key of issue.keys) into.add(field === 'input' ? key : `${field}.${key}`, field === 'input' ? unknownFieldMessage(key, declared) : 'unknown field');
      continue;
    }
    // A field left out: zod says "expected string, received undefined".
    if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
      into.add(field, `required (${issue.expected})`);
      continue;
    }
    // A value of the wrong type: "expected string, received number" (zod prefixes "Invalid input: ").
    if (issue.code === 'invalid_type') {
      into.add(field, issue.message.replace(/^Invalid input: /, ''));
      continue;
    }
    // A value of one of a union's forms that failed inside it (include.comments {limit: 1.5}, where true or
    // {limit} are the forms) is reported where it failed, not as the union's bare "Invalid input".
    const inside = issue.code === 'invalid_union'
      ? issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0)) : [];
    if (inside.length === 1) addZodIssues(inside[0]!, path, into);
    else into.add(field, issue.message);
  }
}

/**
 * An input with more fields than its strict object schema declares has unknown fields, however many: zod would copy
 * and list every one of them (0.1 s and 1.5 MB for 60,000). Then the declared fields are validated alone and the
 * unknown ones named (the first MAX_ISSUES) and counted; undefined when the input has no more fields than declared.
 * What an unknown field holds is refused unread, except that nesting past MAX_INPUT_DEPTH or an oversized object or
 * array is still reported first (`structure`), as for any input.
 */
function overDeclared(schema: z.ZodObject, input: object):
  { declared: Record<string, unknown>; unknown: string[]; unlisted: number; structure?: Record<string, string> } | undefined {
  if (Array.isArray(input) || schema.def.catchall?._zod.def.type !== 'never') return undefined;
  const shape = schema.shape as Record<string, unknown>;
  const keys = Object.keys(input);
  const fields = Object.keys(shape);
  if (keys.length <= fields.length) return undefined;
  const declared: Record<string, unknown> = {};
  const unknown: string[] = [];
  let unlisted = 0;
  let structure: Record<string, string> | undefined;
  for (const key of keys) {
    const value = (input as Record<string, unknown>)[key];
    if (Object.hasOwn(shape, key)) {
      declared[key] = value;
      continue;
    }
    if (unknown.length < MAX_ISSUES) unknown.push(key); else unlisted++;
    // The unknown field as the only field of an input: its path and levels as in the whole input.
    if (!structure && value !== null && typeof value === 'object') structure = checkInput({ [key]: value }, { maxTextIssues: 0 }).structure;
  }
  return { declared, unknown, unlisted, structure };
}

/**
 * The optional fields of a create tool's input that do not take null: there null is "none", as leaving the field out
 * (the service's own outputs say none with null, and a client echoing them back got a 400 "expected string, received
 * null"). Update tools keep null for what it says there (clear, where a field takes it) and refuse it elsewhere.
 */
const nullMeansAbsent = new WeakMap<Tool, string[]>();
function absentNulls(t: Tool): string[] {
  let fields = nullMeansAbsent.get(t);
  if (!fields) {
    const shape = t.input.shape as Record<string, z.ZodType>;
    fields = !/\.create$/.test(t.name) ? [] : Object.keys(shape).filter((k) =>
      shape[k]!.safeParse(undefined).success && !shape[k]!.safeParse(null).success);
    nullMeansAbsent.set(t, fields);
  }
  return fields;
}

/** The SQL expression a tool call runs (inside callerStatement); its one argument, $2, is the validated input as JSON. */
export const toolCall = (t: Tool): string => `${t.sqlFunction}($2::jsonb)`;

/**
 * How a call runs, when a request makes it (GraphQL's tool fields): `inShare: false`, as the request already holds its
 * workspace's place; `statementTimeoutMs`, what is left of the request's budget.
 */
export interface RunOptions {
  inShare?: boolean;
  statementTimeoutMs?: number;
  /**
   * The client's idempotency key (REST `Idempotency-Key`, JSON-RPC `_meta.idempotencyKey`): a write repeated with it
   * within 24 hours answers what the first answered and does not run again (src/db/as-caller.ts). Reads ignore it.
   */
  idempotencyKey?: string;
  /** Called when the answer is a replay of the earlier call's with the same idempotency key. */
  onReplay?: () => void;
}

/** What an idempotency key may be: 1 to 255 visible ASCII characters (a UUID, a ULID, an importer's own id). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The checked idempotency key of a write call, with its tool and a hash of its (validated) arguments. */
function idempotencyOf(t: Tool, key: string, args: unknown, onReplay?: () => void): Idempotency {
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw invalidInput({ idempotencyKey: 'must be 1 to 255 visible ASCII characters (a UUID will do)' });
  }
  // A tool that works outside the database too (an upload, a repository host) cannot take back what it did there.
  if (t.run) throw invalidInput({ idempotencyKey: `${t.name} does not take an idempotency key (part of its work is outside the database)` });
  return { key, tool: t.name, requestHash: crypto.createHash('sha256').update(JSON.stringify(args)).digest('hex'), onReplay };
}

export class ToolRunner {
  constructor(private readonly pool: pg.Pool, readonly services: ToolServices = {}) {}

  /** Runs the tool and returns its output as JSON text; throws ApiError for every expected failure. */
  async call(caller: Caller, name: string, args: unknown, opts: RunOptions = {}): Promise<string> {
    const t = findTool(name);
    if (!t) throw unknownTool(name);
    return this.run(caller, t, args, opts);
  }

  async run(caller: Caller, t: Tool, args: unknown, opts: RunOptions = {}): Promise<string> {
    for (const scope of t.scopes) if (!hasScope(caller, scope)) throw scopeRequired(scope);
    // What costs little to check and much to let through, first: more fields than the tool declares (then only the
    // declared ones go on), nesting past MAX_INPUT_DEPTH (before anything that recurses: zod, JSON.stringify, jsonb)
    // and an object or array past MAX_OBJECT_KEYS / MAX_ARRAY_ITEMS (text-guard.ts), found in one pass whatever the
    // input's size.
    let input: unknown = args ?? {};
    const nullable = absentNulls(t);
    if (nullable.length && typeof input === 'object' && input !== null && !Array.isArray(input)
        && nullable.some((k) => (input as Record<string, unknown>)[k] === null)) {
      input = Object.fromEntries(Object.entries(input).filter(([k, v]) => !(v === null && nullable.includes(k))));
    }
    const over = typeof input === 'object' && input !== null ? overDeclared(t.input, input) : undefined;
    if (over) input = over.declared;
    const forwarded = t.forwards && typeof input === 'object' && input !== null ? t.forwards : undefined;
    const given = forwarded ? { ...input as object, [forwarded]: null } : input;
    const checked = checkInput(given);
    const structure = checked.structure ?? over?.structure;
    // One issue, alone, at the path of the first container past a limit (docs/decisions.md, "Nesting depth").
    if (structure) throw invalidInput(structure);
    // Text as the service keeps it, composed (NFC): what zod validates and SQL receives (docs/decisions.md, "Text is
    // stored composed"). A forwarded input (catalog.call's arguments) is composed by the tool it goes to.
    if (checked.value !== given) {
      if (!forwarded) input = checked.value;
      else {
        const { [forwarded]: _unread, ...rest } = checked.value as Record<string, unknown>;
        input = Object.hasOwn(input as object, forwarded) ? { ...rest, [forwarded]: (input as Record<string, unknown>)[forwarded] } : rest;
      }
    }
    // Text PostgreSQL cannot store (NUL, lone surrogates) is refused for every tool, naming the field.
    const issues = new IssueMap();
    issues.addAll(checked.text);
    const parsed = t.input.safeParse(input);
    // The declared fields, for naming the one an unknown field was meant as: read only for a refusal, and once.
    let declaredFields: string[] | undefined;
    const declared = () => (declaredFields ??= Object.keys(t.input.shape));
    if (!parsed.success) zodIssues(parsed.error, issues, declared());
    if (over) {
      for (const key of over.unknown) issues.add(key, unknownFieldMessage(key, declared()));
      issues.addUnlisted(over.unlisted);
    }
    if (!parsed.success || issues.size) throw invalidInput(issues.toJSON());
    const idempotency = opts.idempotencyKey === undefined || t.annotations.readOnlyHint ? undefined : idempotencyOf(t, opts.idempotencyKey, parsed.data, opts.onReplay);
    if (t.run) {
      const ctx: ToolContext = {
        caller,
        services: this.services,
        invoke: async (name, a) => JSON.parse(await this.call(caller, name, a, opts)),
        sql: async (a) => {
          if (!t.hasSql) throw new Error(`${t.name} has no SQL function (declare sql: true)`);
          return JSON.parse(await this.sqlCall(caller, `tool:${t.name}`, toolCall(t), a, opts, !t.annotations.readOnlyHint));
        },
        read: async (helper, a) => {
          if (!/^[a-z_]+$/.test(helper)) throw new Error(`bad helper name ${helper}`);
          return JSON.parse(await this.sqlCall(caller, `read:${helper}`, `app_hidden.${helper}($2::jsonb)`, a, opts, false));
        },
      };
      const result = await t.run(ctx, parsed.data);
      return JSON.stringify(result ?? null);
    }
    return this.sqlCall(caller, `tool:${t.name}`, toolCall(t), parsed.data, opts, !t.annotations.readOnlyHint, idempotency);
  }

  /** `write`: the call changes state, so a connection lost mid-call leaves its outcome unknown (errors.ts databaseUnavailable). */
  private async sqlCall(caller: Caller, statement: string, call: string, args: unknown, opts: RunOptions, write: boolean, idempotency?: Idempotency): Promise<string> {
    try {
      return (await queryAsCaller(this.pool, caller, statement, call, [JSON.stringify(args)], { ...opts, idempotency })) ?? 'null';
    } catch (err) {
      const mapped = fromPgError(err, { write });
      if (mapped) throw mapped;
      throw err;
    }
  }
}
