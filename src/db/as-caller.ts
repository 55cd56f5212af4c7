import type pg from 'pg';
import type { Caller } from '../auth/keys.ts';

/**
 * The one statement of a call as the caller: set_request_context ($1, the key's id: it reads the key's row, refuses a
 * key no longer live, and sets the identity, scopes and narrowing from that row) and then `call`, an expression whose
 * own arguments are $2, $3, … (`npm run bench` sends this exact text through pgbench.)
 */
export const callerStatement = (call: string): string =>
  `select ${call}::text as r from (select app_hidden.set_request_context($1) as key_id) as identity`;

/**
 * callerStatement for a write made with an idempotency key (after the call's one argument $2: $3 the key, $4 the tool,
 * $5 its arguments' hash): the key is claimed first (app_hidden.idempotent_claim, which takes the key id
 * set_request_context returned, so the claim runs after the identity is set: LATERAL on a column, not join order);
 * a key already answered gives that answer and the call does not run (COALESCE evaluates its second argument only
 * when the first is null); else the call runs and its answer is kept, in the same transaction.
 */
export const idempotentCallerStatement = (call: string): string =>
  `select coalesce(claimed.r, app_hidden.idempotent_remember($3, ${call}::text)) as r, claimed.r is not null as replayed` +
  ` from (select app_hidden.set_request_context($1) as key_id) as identity,` +
  ` lateral (select app_hidden.idempotent_claim(identity.key_id, $3, $4, $5) as r) as claimed`;

/**
 * An idempotency key of a write call, with what it must be repeated with; `onReplay` hears that the answer is the
 * earlier call's (REST says so in `Idempotent-Replayed`, JSON-RPC in the result's `_meta`).
 */
export interface Idempotency { key: string; tool: string; requestHash: string; onReplay?: () => void }

/** The values of callerStatement: $1 the key's id, then the call's own. */
export const callerValues = (caller: Pick<Caller, 'keyId'>, args: unknown[]): unknown[] => [caller.keyId, ...args];

/**
 * Runs one SQL call as the caller, in ONE statement (callerStatement). One round trip, one transaction,
 * RLS inside. Returns the call's result as text (JSON stays unparsed).
 */
export async function queryAsCaller(
  pool: pg.Pool, caller: Caller, statementName: string, call: string, args: unknown[],
  opts: { inShare?: boolean; statementTimeoutMs?: number; idempotency?: Idempotency } = {},
): Promise<string | null> {
  const idem = opts.idempotency;
  const query = idem
    ? { name: `${statementName}:idem`, text: idempotentCallerStatement(call), values: callerValues(caller, [...args, idem.key, idem.tool, idem.requestHash]) }
    : { name: statementName, text: callerStatement(call), values: callerValues(caller, args) };
  const timeout = opts.statementTimeoutMs;
  const run = () => timeout === undefined
    ? pool.query<{ r: string | null; replayed?: boolean }>(query)
    : withStatementTimeout(pool, timeout, (client) => client.query<{ r: string | null; replayed?: boolean }>(query));
  for (let attempt = 1; ; attempt++) {
    try {
      // A call inside a GraphQL request runs in the place its request holds (a second place could deadlock).
      const { rows } = await (opts.inShare === false ? run() : inShare(pool, caller.workspaceId, run));
      if (rows[0]?.replayed) idem?.onReplay?.();
      return rows[0]?.r ?? null;
    } catch (err) {
      // A deadlock or serialization victim was rolled back whole (the call is one statement, one transaction):
      // running it again is safe, and usually succeeds once the other transaction is through.
      if (attempt >= RETRIES || !TRANSIENT.has((err as { code?: string }).code ?? '')) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    }
  }
}

/**
 * Runs `work` on a connection whose statement timeout is `ms` (the pool's is 30 s), then sets it back: two round
 * trips more, paid only by calls with a budget of their own (a GraphQL request's tool fields).
 */
async function withStatementTimeout<T>(pool: pg.Pool, ms: number, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`set statement_timeout = ${Math.max(1, Math.ceil(ms))}`);
    return await work(client);
  } finally {
    try {
      await client.query('reset statement_timeout');
    } catch (err) {
      broken = err as Error; // the connection is dropped rather than given back with the short timeout
    }
    client.release(broken);
  }
}

/** deadlock_detected, serialization_failure: retried (a last failure is a 409 conflict, src/errors.ts). */
const TRANSIENT = new Set(['40P01', '40001']);
const RETRIES = 3;

/**
 * One workspace never holds every connection of the pool: its calls past the pool's size less one wait here, in
 * order, so a call of another workspace always finds a connection free (an outside probe's ten loops of heavy
 * createMany calls, one member's key, took another workspace's issues.get from 6 ms to 2.8 s, all of it queueing).
 */
class Share {
  active = 0;
  readonly waiting: Array<() => void> = [];
}
const shares = new WeakMap<pg.Pool, Map<string, Share>>();

/**
 * Waits for a place in `holder`'s share of the pool (a workspace id: its tool calls and its GraphQL requests alike) and
 * returns the function that gives it back (once, however often it is called).
 */
export async function takeShare(pool: pg.Pool, holder: string): Promise<() => void> {
  let byHolder = shares.get(pool);
  if (!byHolder) shares.set(pool, (byHolder = new Map()));
  let share = byHolder.get(holder);
  if (!share) byHolder.set(holder, (share = new Share()));
  const limit = Math.max(1, (pool.options.max ?? 10) - 1);
  if (share.active >= limit) await new Promise<void>((resolve) => share.waiting.push(resolve));
  else share.active++;
  let given = false;
  return () => {
    if (given) return;
    given = true;
    // The place passes straight to the next waiter (active stays counted), else it is given back.
    const next = share.waiting.shift();
    if (next) next();
    else if (--share.active === 0) byHolder.delete(holder);
  };
}

async function inShare<T>(pool: pg.Pool, holder: string, run: () => Promise<T>): Promise<T> {
  const release = await takeShare(pool, holder);
  try {
    return await run();
  } finally {
    release();
  }
}
