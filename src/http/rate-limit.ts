import type pg from 'pg';
import type { Caller } from '../auth/keys.ts';
import { ApiError } from '../errors.ts';

export type RateSurface = 'rpc' | 'rest';

/**
 * The most a request without a live key may send: its refusal (or, on GraphQL, an introspection answer) is written
 * once the body is read, to echo a JSON-RPC id; anything larger is refused unread. Such requests count against no
 * key's limit.
 */
export const KEYLESS_BODY_LIMIT = 64 * 1024;

/**
 * Introspection answered without a key, per address and process each minute (when REST limits are on): GraphiQL asks
 * once as it opens, a code generator once per run. Four anonymous clients looping on it took every workspace's p50
 * from 15 ms to 0.5–1.3 s (an outside probe).
 */
export const KEYLESS_INTROSPECTION_PER_MIN = 60;

/** Counts what one address asks without a key, in fixed one-minute windows of this process; throws the 429. */
export class KeylessLimiter {
  private counts = new Map<string, number>();
  private minute = 0;
  constructor(private readonly perMinute: number) {}

  take(address: string): void {
    if (!this.perMinute) return;
    const now = Date.now();
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) { this.counts.clear(); this.minute = minute; }
    const n = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, n);
    if (n > this.perMinute) {
      throw new ApiError(429, {
        error: 'rate_limited',
        message: `More than ${this.perMinute} requests per minute without a key from this address: send a key (Authorization: Bearer …)`,
      }, { 'retry-after': String(Math.max(1, Math.ceil((minute + 1) * 60 - now / 1000))) });
    }
  }
}

/** A request body's share of the limit: one call more per full 256 KiB (a 2 MB body counts as 9 calls). */
const BODY_BYTES_PER_CALL = 256 * 1024;

/**
 * The calls a request body adds to its own. Decoding, parsing, validating and storing a body costs the one Node
 * thread and PostgreSQL in proportion to its size; counted by calls alone, ten loops of 2 MB createMany calls on one
 * key, within its limit, took another workspace's issues.get from p50 4.5 ms to 665 ms (decisions.md).
 */
export function bodyCalls(bytes: number | undefined): number {
  return Math.floor((bytes ?? 0) / BODY_BYTES_PER_CALL);
}

/** What this process may still spend of one key's budget on one surface in the current minute. */
interface Budget {
  granted: number;
  used: number;
  /** A reservation in flight: the key's other calls wait for it rather than asking too. */
  reserving?: Promise<unknown>;
  /** Refused this minute (refused calls count too, so the key stays over its limit until the minute turns). */
  refused?: boolean;
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
      this.refuseIfOver(caller, surface);
      const budget = this.budget(`${caller.keyId}:${surface}`);
      if (budget.used + calls <= budget.granted) {
        budget.used += calls;
        return;
      }
      if (budget.reserving) {
        await budget.reserving.catch(() => undefined);
        continue;
      }
      // Only what the calls lack beyond the calls this process still holds: those are counted already (asking for
      // all of them lost the rest, and a batch was refused with the key under its limit).
      const reserving = this.reserve(caller, surface, calls - (budget.granted - budget.used), limit);
      budget.reserving = reserving;
      try {
        const { granted, retryAfter } = await reserving;
        if (retryAfter > 0) {
          budget.refused = true;
          throw this.tooMany(limit, retryAfter);
        }
        budget.granted += granted;
        budget.used += calls;
        return;
      } finally {
        budget.reserving = undefined;
      }
    }
  }

  /**
   * Throws the 429 without a round trip when this process already saw the key refused this minute: the tool routes
   * ask before reading a body, so a client that ignores Retry-After does not have its bodies decoded and parsed.
   */
  refuseIfOver(caller: Caller, surface: RateSurface): void {
    const limit = this.limits[surface];
    if (!limit || !this.budget(`${caller.keyId}:${surface}`).refused) return;
    throw this.tooMany(limit, Math.max(1, Math.ceil(60 - (Date.now() % 60_000) / 1000)));
  }

  private tooMany(limit: number, retryAfter: number): ApiError {
    return new ApiError(429, { error: 'rate_limited', message: `More than ${limit} calls per minute on this key` }, { 'retry-after': String(retryAfter) });
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
