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
 */
export class SlowTargets {
  private readonly targets = new Map<string, { until: number; probing: boolean; tenant: string }>();
  /** Tenants with a probe out. */
  private readonly probing = new Set<string>();

  constructor(readonly coolOffMs = 30_000) {}

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
