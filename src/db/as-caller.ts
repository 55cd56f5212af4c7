import type pg from 'pg';
import type { Caller } from '../auth/keys.ts';

/**
 * The one statement of a call as the caller: set_request_context ($1–$8: identity, scopes, narrowing;
 * it also re-checks the key) and then `call`, an expression whose own arguments are $9, $10, …
 * (`npm run bench` sends this exact text through pgbench.)
 */
export const callerStatement = (call: string): string =>
  `select ${call}::text as r from (select app_hidden.set_request_context($1, $2, $3, $4, $5, $6, $7, $8)) as identity`;

/** The values of $1–$8 of callerStatement, then the call's own. */
export const callerValues = (caller: Caller, args: unknown[]): unknown[] => [
  caller.workspaceId, caller.userId, caller.keyId, caller.agentId, caller.scopes,
  caller.projectIds, caller.labelIds, caller.initiativeIds, ...args,
];

/**
 * Runs one SQL call as the caller, in ONE statement (callerStatement). One round trip, one transaction,
 * RLS inside. Returns the call's result as text (JSON stays unparsed).
 */
export async function queryAsCaller(
  pool: pg.Pool, caller: Caller, statementName: string, call: string, args: unknown[],
): Promise<string | null> {
  const { rows } = await pool.query<{ r: string | null }>({
    name: statementName,
    text: callerStatement(call),
    values: callerValues(caller, args),
  });
  return rows[0]?.r ?? null;
}
