import type pg from 'pg';
import type { Caller } from '../auth/keys.ts';
import { ApiError } from '../errors.ts';

export type RateSurface = 'rpc' | 'rest';

/**
 * Per-key limits (decisions.md: 600 calls/min on JSON-RPC, 300/min on REST and GraphQL; 0 disables),
 * counted in PostgreSQL so they hold across every API process: one upsert per HTTP request into an
 * unlogged counter table (app_hidden.rate_limit_take), fixed one-minute windows aligned to the clock.
 * A JSON-RPC batch counts each of its calls. Every authenticated call counts, refused ones too (bad JSON,
 * wrong content type, invalid input: see the error handler in app.ts). 429 carries Retry-After in seconds.
 */
export class RateLimiter {
  constructor(private readonly pool: pg.Pool, private readonly limits: { rpc: number; rest: number }) {}

  enabled(surface: RateSurface): boolean {
    return this.limits[surface] > 0;
  }

  /** Counts `calls` calls for the caller; throws the 429 when the key is over its limit this minute. */
  async take(caller: Caller, surface: RateSurface, calls = 1): Promise<void> {
    const limit = this.limits[surface];
    if (!limit) return;
    const { rows } = await this.pool.query<{ retry: number }>({
      name: 'svc_rate_limit_take',
      text: 'select app_hidden.rate_limit_take($1, $2, $3, $4, $5) as retry',
      values: [caller.keyId, caller.workspaceId, surface, calls, limit],
    });
    const retryAfter = rows[0]?.retry ?? 0;
    if (retryAfter > 0) {
      throw new ApiError(429, { error: 'rate_limited', message: `More than ${limit} calls per minute on this key` }, { 'retry-after': String(retryAfter) });
    }
  }
}
