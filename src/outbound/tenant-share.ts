/**
 * A worker process runs at most half its slots of one workspace's outbound jobs (webhook and agent deliveries, link
 * titles). Each request to an endpoint that never answers holds its slot for the whole deadline; without a share, a
 * workspace with eight webhooks to eight hanging hosts it had never called before held all eight slots, and every
 * other workspace's deliveries waited (src/outbound/slow-targets.ts only helps once a target has timed out).
 *
 * The jobs carry their workspace as a Graphile Worker flag (`svc_outbound:<workspaceId>`, app_private.outbound_flags);
 * while a workspace has its share running, the worker fetches none of its jobs (`forbiddenFlags`), so they wait in
 * the queue without a slot, in their order. Slots freed at the same moment can still fetch several of one
 * workspace's jobs before any of them starts: a job over the share is put back (re-queued 250 ms later) by its task.
 */

const FLAG = 'svc_outbound:';

/** What of a Graphile Worker job says whose it is. */
type Flagged = { flags?: Readonly<Record<string, unknown>> | null };

export class TenantShare {
  private readonly running = new Map<string, number>();

  constructor(readonly perTenant: number) {}

  /** The share of a worker running `concurrency` jobs at once: half of them, at least one. */
  static of(concurrency: number): TenantShare {
    return new TenantShare(Math.max(1, Math.floor(concurrency / 2)));
  }

  /** The workspace an outbound job belongs to (from its flag); undefined for other jobs and ones queued without it. */
  static tenantOf(job: Flagged): string | undefined {
    for (const flag of Object.keys(job.flags ?? {})) if (flag.startsWith(FLAG)) return flag.slice(FLAG.length);
    return undefined;
  }

  /** Graphile Worker's forbiddenFlags: the flags of the workspaces whose share is running. */
  readonly forbiddenFlags = (): string[] => {
    const full: string[] = [];
    for (const [tenant, n] of this.running) if (n >= this.perTenant) full.push(FLAG + tenant);
    return full;
  };

  /** Takes a place of the job's workspace; false when its share is running (the job should be put back). */
  take(tenant: string): boolean {
    const n = this.running.get(tenant) ?? 0;
    if (n >= this.perTenant) return false;
    this.running.set(tenant, n + 1);
    return true;
  }

  release(tenant: string): void {
    const n = (this.running.get(tenant) ?? 1) - 1;
    if (n > 0) this.running.set(tenant, n);
    else this.running.delete(tenant);
  }

  /**
   * Runs an outbound job within its workspace's share: `run` if a place is free, else `putBack` (re-queue it).
   * Jobs without a workspace flag run as they are.
   */
  async within(job: Flagged, run: () => Promise<void>, putBack: () => Promise<void>): Promise<void> {
    const tenant = TenantShare.tenantOf(job);
    if (tenant === undefined) return run();
    if (!this.take(tenant)) return putBack();
    try {
      await run();
    } finally {
      this.release(tenant);
    }
  }
}
