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
 *
 * Within a workspace's share, one endpoint (a webhook, an agent's dispatch URL: `svc_target:<channel>`) runs at most
 * half of it: a receiver answering in 3 s (under the deadline, so never cooled off) held all of its workspace's
 * places, and the workspace's other webhooks got one delivery in two, 66 a minute, however fast they answered.
 */

const FLAG = 'svc_outbound:';
const TARGET_FLAG = 'svc_target:';

/** What of a Graphile Worker job says whose it is. */
type Flagged = { flags?: Readonly<Record<string, unknown>> | null };

export class TenantShare {
  private readonly running = new Map<string, number>();
  private readonly byTarget = new Map<string, number>();
  /** Places one endpoint may hold: half its workspace's share, at least one. */
  readonly perTarget: number;

  constructor(readonly perTenant: number) {
    this.perTarget = Math.max(1, Math.floor(perTenant / 2));
  }

  /** The share of a worker running `concurrency` jobs at once: half of them, at least one. */
  static of(concurrency: number): TenantShare {
    return new TenantShare(Math.max(1, Math.floor(concurrency / 2)));
  }

  /** What the job's flag of that prefix names (a workspace, an endpoint); undefined when it has none. */
  private static flagged(job: Flagged, prefix: string): string | undefined {
    for (const flag of Object.keys(job.flags ?? {})) if (flag.startsWith(prefix)) return flag.slice(prefix.length);
    return undefined;
  }

  /** The workspace an outbound job belongs to (from its flag); undefined for other jobs and ones queued without it. */
  static tenantOf(job: Flagged): string | undefined {
    return TenantShare.flagged(job, FLAG);
  }

  /** The endpoint an outbound job goes to (its target flag); undefined for jobs queued without one. */
  static targetOf(job: Flagged): string | undefined {
    return TenantShare.flagged(job, TARGET_FLAG);
  }

  /** Graphile Worker's forbiddenFlags: the flags of the workspaces whose share is running, and of the busy endpoints. */
  readonly forbiddenFlags = (): string[] => {
    const full: string[] = [];
    for (const [tenant, n] of this.running) if (n >= this.perTenant) full.push(FLAG + tenant);
    for (const [target, n] of this.byTarget) if (n >= this.perTarget) full.push(TARGET_FLAG + target);
    return full;
  };

  /** Takes a place of the job's workspace (and endpoint); false when either is full (the job should be put back). */
  take(tenant: string, target?: string): boolean {
    const n = this.running.get(tenant) ?? 0;
    const m = target === undefined ? 0 : this.byTarget.get(target) ?? 0;
    if (n >= this.perTenant || m >= this.perTarget) return false;
    this.running.set(tenant, n + 1);
    if (target !== undefined) this.byTarget.set(target, m + 1);
    return true;
  }

  release(tenant: string, target?: string): void {
    for (const [counts, key] of [[this.running, tenant], [this.byTarget, target]] as const) {
      if (key === undefined) continue;
      const n = (counts.get(key) ?? 1) - 1;
      if (n > 0) counts.set(key, n);
      else counts.delete(key);
    }
  }

  /**
   * Runs an outbound job within its workspace's share: `run` if a place is free, else `putBack` (re-queue it).
   * Jobs without a workspace flag run as they are.
   */
  async within(job: Flagged, run: () => Promise<void>, putBack: () => Promise<void>): Promise<void> {
    const tenant = TenantShare.tenantOf(job);
    if (tenant === undefined) return run();
    const target = TenantShare.targetOf(job);
    if (!this.take(tenant, target)) return putBack();
    try {
      await run();
    } finally {
      this.release(tenant, target);
    }
  }
}
