/**
 * Calling a tool: scope check, zod validation, then ONE statement that sets the caller identity and
 * calls the tool's SQL function (one round trip, one transaction, RLS inside). The result stays the JSON
 * text PostgreSQL produced; transports embed it without parsing and re-serialising.
 */
import type pg from 'pg';
import type { z } from 'zod';
import { hasScope, type Caller } from '../auth/keys.ts';
import { queryAsCaller } from '../db/as-caller.ts';
import { ApiError, fromPgError, invalidInput, scopeRequired } from '../errors.ts';
import { findTool } from './catalog.ts';
import type { Tool, ToolContext, ToolServices } from './define.ts';
import { inputDepthIssues, textIssues } from './text-guard.ts';

export function zodIssues(error: z.ZodError): Record<string, string> {
  // Own properties only: a field named `__proto__` must be reported, not become the map's prototype.
  const issues: Record<string, string> = {};
  const set = (field: string, message: string) => {
    if (!Object.hasOwn(issues, field)) Object.defineProperty(issues, field, { value: message, enumerable: true, configurable: true, writable: true });
  };
  for (const issue of error.issues) {
    const field = issue.path.length ? issue.path.map(String).join('.') : 'input';
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) set(field === 'input' ? key : `${field}.${key}`, 'unknown field');
    } else {
      set(field, issue.message);
    }
  }
  return issues;
}

/** The SQL expression a tool call runs (inside callerStatement); its one argument, $9, is the validated input as JSON. */
export const toolCall = (t: Tool): string => `${t.sqlFunction}($9::jsonb)`;

/**
 * How a call runs, when a request makes it (GraphQL's tool fields): `inShare: false`, as the request already holds its
 * workspace's place; `statementTimeoutMs`, what is left of the request's budget.
 */
export interface RunOptions {
  inShare?: boolean;
  statementTimeoutMs?: number;
}

export class ToolRunner {
  constructor(private readonly pool: pg.Pool, readonly services: ToolServices = {}) {}

  /** Runs the tool and returns its output as JSON text; throws ApiError for every expected failure. */
  async call(caller: Caller, name: string, args: unknown, opts: RunOptions = {}): Promise<string> {
    const t = findTool(name);
    if (!t) throw new ApiError(404, { error: 'unknown_tool', message: `Unknown tool: ${name}` });
    return this.run(caller, t, args, opts);
  }

  async run(caller: Caller, t: Tool, args: unknown, opts: RunOptions = {}): Promise<string> {
    for (const scope of t.scopes) if (!hasScope(caller, scope)) throw scopeRequired(scope);
    // Nesting past MAX_INPUT_DEPTH is refused first, before anything that recurses (zod, JSON.stringify, jsonb).
    const tooDeep = inputDepthIssues(args);
    if (Object.keys(tooDeep).length) throw invalidInput(tooDeep);
    // Text PostgreSQL cannot store (NUL, lone surrogates) is refused for every tool, naming the field.
    const parsed = t.input.safeParse(args ?? {});
    const issues = { ...textIssues(args), ...(parsed.success ? {} : zodIssues(parsed.error)) };
    if (!parsed.success || Object.keys(issues).length) throw invalidInput(issues);
    if (t.run) {
      const ctx: ToolContext = {
        caller,
        services: this.services,
        invoke: async (name, a) => JSON.parse(await this.call(caller, name, a, opts)),
        sql: async (a) => {
          if (!t.hasSql) throw new Error(`${t.name} has no SQL function (declare sql: true)`);
          return JSON.parse(await this.sqlCall(caller, `tool:${t.name}`, toolCall(t), a, opts));
        },
        read: async (helper, a) => {
          if (!/^[a-z_]+$/.test(helper)) throw new Error(`bad helper name ${helper}`);
          return JSON.parse(await this.sqlCall(caller, `read:${helper}`, `app_hidden.${helper}($9::jsonb)`, a, opts));
        },
      };
      const result = await t.run(ctx, parsed.data);
      return JSON.stringify(result ?? null);
    }
    return this.sqlCall(caller, `tool:${t.name}`, toolCall(t), parsed.data, opts);
  }

  private async sqlCall(caller: Caller, statement: string, call: string, args: unknown, opts: RunOptions): Promise<string> {
    try {
      return (await queryAsCaller(this.pool, caller, statement, call, [JSON.stringify(args)], opts)) ?? 'null';
    } catch (err) {
      const mapped = fromPgError(err);
      if (mapped) throw mapped;
      throw err;
    }
  }
}
