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
  const query = { name: statementName, text: callerStatement(call), values: callerValues(caller, args) };
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await pool.query<{ r: string | null }>(query);
      return rows[0]?.r ?? null;
    } catch (err) {
      // A deadlock or serialization victim was rolled back whole (the call is one statement, one transaction):
      // running it again is safe, and usually succeeds once the other transaction is through.
      if (attempt >= RETRIES || !TRANSIENT.has((err as { code?: string }).code ?? '')) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    }
  }
}

/** deadlock_detected, serialization_failure: retried (a last failure is a 409 conflict, src/errors.ts). */
const TRANSIENT = new Set(['40P01', '40001']);
const RETRIES = 3;
