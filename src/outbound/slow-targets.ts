/**
 * Outbound targets that time out are not waited on again at once. The worker runs a few jobs at a time for every
 * workspace together; a target that never answers holds a slot for the whole deadline, so one tenant's hanging
 * endpoint (or 200 links to one) delayed other workspaces' webhooks by two minutes in an outside probe.
 *
 * A target is one tenant's: a webhook's (or an agent's) delivery channel with the URL's origin, so a tenant cannot
 * slow another's deliveries to the same host; or all of a workspace's link-title fetches, whatever the address
 * (src/blobs/tasks.ts: 200 links to 200 hanging addresses would otherwise each be a fresh target). After a timeout
 * the target cools off: requests to it fail at once (a delivery attempt is recorded as failed and retried with its
 * backoff; a link keeps its hostname as title). After the cool-off one request goes through as a probe while the others still fail fast;
 * an answer clears the target, another timeout starts the cool-off again. A tenant has one probe out at a time,
 * whatever its number of targets: 30 webhooks to hanging hosts, each probing every 30 s, kept every slot busy.
 *
 * With several worker processes, a cool-off one of them starts is seen by the others (`shared`, the database's
 * app_private.outbound_cool_offs: each waited out the deadline once before, two-process probe); the probe after it
 * is each process's own.
 */
export class SlowTargets {
  private readonly targets = new Map<string, { until: number; probing: boolean; tenant: string }>();
  /** Tenants with a probe out. */
  private readonly probing = new Set<string>();

  constructor(readonly coolOffMs = 30_000, private readonly shared?: SharedCoolOffs) {}

  /** The worker's cool-offs, shared through the database (the pool is the owner's). */
  static shared(pool: Queryable, coolOffMs?: number): SlowTargets {
    return new SlowTargets(coolOffMs, {
      until: async (key) => {
        const { rows } = await pool.query<{ u: Date | null }>('select app_private.outbound_cool_off_until($1) as u', [key]);
        return rows[0]?.u?.getTime();
      },
      set: async (key, tenant, until) => {
        await pool.query('select app_private.outbound_cool_off_set($1, $2, $3)', [tenant, key, until === null ? null : new Date(until)]);
      },
    });
  }

  /**
   * mayTry, after learning of a cool-off another process started: a target this process does not know is looked up
   * (a failed lookup is no cool-off; the request then goes as it would have).
   */
  async mayTryShared(key: string, tenant: string): Promise<boolean> {
    if (this.shared && !this.targets.has(key)) {
      const until = await this.shared.until(key).catch(() => undefined);
      if (until !== undefined && until > Date.now()) this.targets.set(key, { until, probing: false, tenant });
    }
    return this.mayTry(key, tenant);
  }

  /** settled, told to the other processes: a timeout cools the target off for them too, an answer clears it. */
  async settledShared(key: string, tenant: string, timedOut: boolean): Promise<void> {
    const known = this.targets.has(key);
    this.settled(key, tenant, timedOut);
    if (!this.shared || (!timedOut && !known)) return;
    await this.shared.set(key, tenant, timedOut ? this.targets.get(key)!.until : null).catch(() => {});
  }

  /** The target of a URL on one tenant's delivery channel (`webhook:<id>`, `agent:dispatch:<id>`). */
  static key(channel: string, url: string): string {
    try {
      return `${channel}|${new URL(url).origin}`;
    } catch {
      return `${channel}|${url}`;
    }
  }

  /**
   * Whether a request of `tenant` (a workspace id) may go to the target now; false while it cools off, or when it
   * has cooled off but a probe of the same tenant (to this target or another) is out.
   */
  mayTry(key: string, tenant: string, now = Date.now()): boolean {
    const t = this.targets.get(key);
    if (!t) return true;
    if (now < t.until || t.probing || this.probing.has(tenant)) return false;
    t.probing = true;
    this.probing.add(tenant);
    return true;
  }

  /** The request's outcome: a timeout cools the target off, anything else (an answer, an error) clears it. */
  settled(key: string, tenant: string, timedOut: boolean, now = Date.now()): void {
    const t = this.targets.get(key);
    if (t?.probing) this.probing.delete(t.tenant);
    if (!timedOut) {
      this.targets.delete(key);
      return;
    }
    // A bound on what forgotten targets can hold: those cooling off longest ago go first.
    if (this.targets.size >= 10_000) {
      for (const [k, v] of this.targets) if (!v.probing && v.until < now) this.targets.delete(k);
    }
    this.targets.set(key, { until: now + this.coolOffMs, probing: false, tenant });
  }
}

/** Where cool-offs are kept for every process (SlowTargets.shared: the database). */
export interface SharedCoolOffs {
  /** Until when (ms since the epoch) another process cooled the target off, if it still does. */
  until(key: string): Promise<number | undefined>;
  /** Cools the tenant's (a workspace id) target off until then for every process; null clears it. */
  set(key: string, tenant: string, until: number | null): Promise<void>;
}

interface Queryable {
  query<R extends object>(text: string, values: unknown[]): Promise<{ rows: R[] }>;
}
