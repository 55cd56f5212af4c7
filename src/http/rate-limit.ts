import type pg from 'pg';
import type { Caller } from '../auth/keys.ts';
import { ApiError } from '../errors.ts';

export type RateSurface = 'rpc' | 'rest';

/** What this process may still spend of one key's budget on one surface in the current minute. */
interface Budget {
  granted: number;
  used: number;
  /** A reservation in flight: the key's other calls wait for it rather than asking too. */
  reserving?: Promise<unknown>;
}

/**
 * Per-key limits (decisions.md: 600 calls/min on JSON-RPC, 300/min on REST and GraphQL; 0 disables),
 * counted in PostgreSQL so they hold across every API process, in fixed one-minute windows aligned to the
 * clock. A process reserves calls ahead (app_hidden.rate_limit_reserve: the calls it needs plus an eighth of
 * what is left, at most 63) and spends them without a round trip; near the limit nothing extra is granted, so
 * the last calls of a minute are counted one by one, across processes as well. (One upsert per call halved
 * issues.get over REST on one key here: every call of a key waited for the counter row.)
 * A JSON-RPC batch counts each of its calls. Every authenticated call counts, refused ones too (bad JSON,
 * wrong content type, invalid input: see the error handler in app.ts). 429 carries Retry-After in seconds.
 */
export class RateLimiter {
  /** Budgets of the current minute (this process's clock), by key and surface; cleared when it turns. */
  private budgets = new Map<string, Budget>();
  private minute = 0;

  constructor(private readonly pool: pg.Pool, private readonly limits: { rpc: number; rest: number }) {}

  enabled(surface: RateSurface): boolean {
    return this.limits[surface] > 0;
  }

  /** Counts `calls` calls for the caller; throws the 429 when the key is over its limit this minute. */
  async take(caller: Caller, surface: RateSurface, calls = 1): Promise<void> {
    const limit = this.limits[surface];
    if (!limit) return;
    for (;;) {
      const budget = this.budget(`${caller.keyId}:${surface}`);
      if (budget.used + calls <= budget.granted) {
        budget.used += calls;
        return;
      }
      if (budget.reserving) {
        await budget.reserving.catch(() => undefined);
        continue;
      }
      const reserving = this.reserve(caller, surface, calls, limit);
      budget.reserving = reserving;
      try {
        const { granted, retryAfter } = await reserving;
        if (retryAfter > 0) {
          throw new ApiError(429, { error: 'rate_limited', message: `More than ${limit} calls per minute on this key` }, { 'retry-after': String(retryAfter) });
        }
        budget.granted += granted;
        budget.used += calls;
        return;
      } finally {
        budget.reserving = undefined;
      }
    }
  }

  private budget(id: string): Budget {
    const minute = Math.floor(Date.now() / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.budgets = new Map();
    }
    let budget = this.budgets.get(id);
    if (!budget) this.budgets.set(id, (budget = { granted: 0, used: 0 }));
    return budget;
  }

  private async reserve(caller: Caller, surface: RateSurface, calls: number, limit: number): Promise<{ granted: number; retryAfter: number }> {
    const { rows } = await this.pool.query<{ granted: number; retry_after: number }>({
      name: 'svc_rate_limit_reserve',
      text: 'select granted, retry_after from app_hidden.rate_limit_reserve($1, $2, $3, $4, $5)',
      values: [caller.keyId, caller.workspaceId, surface, calls, limit],
    });
    return { granted: rows[0]?.granted ?? 0, retryAfter: rows[0]?.retry_after ?? 1 };
  }
}
