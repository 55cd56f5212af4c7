import type { Caller } from '../auth/keys.ts';
import { ApiError } from '../errors.ts';

/**
 * Per-key limits (decisions.md: 600 calls/min on JSON-RPC, 300/min on REST; 0 disables), counted in
 * fixed one-minute windows in this process. 429 carries Retry-After in seconds.
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limits: { rpc: number; rest: number }) {}

  check(caller: Caller, surface: 'rpc' | 'rest', now = Date.now()): void {
    const limit = this.limits[surface];
    if (!limit) return;
    const key = `${caller.keyId}:${surface}`;
    let w = this.windows.get(key);
    if (!w || now - w.start >= 60_000) {
      if (this.windows.size > 50_000) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (++w.count > limit) {
      const retryAfter = Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000));
      throw new ApiError(429, { error: 'rate_limited', message: `More than ${limit} calls per minute on this key` }, { 'retry-after': String(retryAfter) });
    }
  }

  private sweep(now: number) {
    for (const [k, w] of this.windows) if (now - w.start >= 60_000) this.windows.delete(k);
  }
}
