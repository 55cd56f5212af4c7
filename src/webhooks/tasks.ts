/**
 * Graphile Worker tasks for webhook and agent dispatch deliveries.
 *
 *  svc_webhook_deliver {deliveryId}  lease the delivery, POST it, record the attempt (and the next
 *                                    retry or dead letter) — retries are scheduled by us, not by
 *                                    Graphile Worker's own backoff, so the schedule is decisions.md's.
 *  svc_webhooks_sweep                re-queue deliveries whose worker died mid-attempt (expired lease)
 *                                    or whose job went missing; at worker start-up and every minute.
 *  svc_deliveries_prune              hourly: delete deliveries (and attempts) that ended more than the retention ago.
 *  svc_webhook_fanout {workspaceId}  queue the jobs of deliveries a large transaction wrote without them (past its first
 *                                    200: tg_activity_events__webhooks), a batch at a time, after it committed.
 */
import type { JobHelpers, Task, TaskList } from 'graphile-worker';
import { DEFAULT_DELIVERY_RETENTION_DAYS, DEFAULT_WEBHOOK_DISABLE_AFTER_HOURS } from '../config.ts';
import { webhookAttempts } from '../http/metrics.ts';
import { hostOf, LogThrottle, type Logger } from '../log.ts';
import { SlowTargets } from '../outbound/slow-targets.ts';
import type { TenantShare } from '../outbound/tenant-share.ts';
import { deliver, type AttemptResult, type DeliveryWork } from './deliver.ts';

/** decisions.md: about 5 s, 1 min, 10 min, 1 h, 6 h, 24 h, then DEAD_LETTER. */
export const DEFAULT_BACKOFF_SECONDS = [5, 60, 600, 3600, 21_600, 86_400];
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface WebhookTaskOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  backoffSeconds?: number[];
  /** Added to the timeout to form the lease: how long a dead worker's delivery waits before a sweep takes it. */
  leaseGraceMs?: number;
  /** Where failed attempts are logged (ids, host, status, error; never the secret, URL path or body). */
  logger?: Logger;
  /** Targets that timed out lately (shared with the link-title task); default: this task list's own. */
  slowTargets?: SlowTargets;
  /** Each workspace's share of the worker's slots (shared with the link-title task); default: no share. */
  share?: TenantShare;
  /** Days an ended delivery (and its attempts) is kept (SVC_DELIVERY_RETENTION_DAYS); 0 keeps them all. */
  deliveryRetentionDays?: number;
  /** Hours a webhook may fail every attempt before it is deactivated (SVC_WEBHOOK_DISABLE_AFTER_HOURS); 0 never. */
  disableAfterHours?: number;
}

/** Deliveries pruned per statement: short transactions, each holding few row locks. */
const PRUNE_BATCH = 5000;
/** Deliveries a fan-out job queues per statement: each batch commits, so their deliveries start while the rest are queued. */
const FANOUT_BATCH = 1000;

/**
 * Failed attempts that will be retried are logged at warn once a minute per endpoint (per process), the next such
 * line counting those in between (`suppressed`); the rest at debug. A tenant's broken receivers wrote 12,842 warn
 * lines in 20 minutes (an outside probe): the operator's log, shared by every tenant. Dead letters and 410s are
 * always logged.
 */
const retryLogs = new LogThrottle();

/** Logs one recorded attempt that did not deliver and counts every attempt's outcome in /metrics. */
function reportAttempt(logger: Logger | undefined, work: DeliveryWork, attempt: AttemptResult, recorded: { status?: string; nextAttemptAt?: string; deactivated?: boolean; reason?: string }) {
  const status = recorded.status ?? 'GONE';
  const outcome = status === 'PENDING' ? 'retry' : status.toLowerCase();
  webhookAttempts.inc({ outcome });
  if (status === 'DELIVERED' || status === 'GONE' && !attempt.error && !attempt.statusCode) return;
  const fields = {
    deliveryId: work.deliveryId, eventId: work.eventId, eventKind: work.kind, channel: work.channel, attempt: work.attempt,
    host: hostOf(work.url), statusCode: attempt.statusCode, error: attempt.error, durationMs: attempt.durationMs, deliveryStatus: status,
    ...(recorded.nextAttemptAt ? { nextAttemptAt: recorded.nextAttemptAt } : {}),
    ...(recorded.deactivated ? { webhookDeactivated: true } : {}),
  };
  if (status === 'DEAD_LETTER') logger?.error(fields, 'webhook delivery dead-lettered: retries spent');
  else if (status === 'CANCELED' && recorded.reason === 'failing') logger?.warn(fields, 'webhook deactivated: every delivery attempt failed for longer than SVC_WEBHOOK_DISABLE_AFTER_HOURS');
  else if (status === 'CANCELED') logger?.warn(fields, 'webhook delivery canceled: the endpoint answered 410 Gone');
  // An attempt not made (its endpoint timed out moments ago) says nothing the timeout's own line did not: at the
  // default level one hanging receiver wrote a line per event per retry (6 MB in 20 minutes).
  else if (status === 'PENDING' && attempt.notTried) logger?.debug(fields, 'webhook delivery not tried: its endpoint is cooling off; will retry');
  else if (status === 'PENDING') {
    const { warn, suppressed } = retryLogs.take(work.channel);
    if (warn) logger?.warn(suppressed ? { ...fields, suppressed } : fields, 'webhook delivery attempt failed; will retry');
    else logger?.debug(fields, 'webhook delivery attempt failed; will retry');
  }
}

export function leaseMs(opts: WebhookTaskOptions): number {
  return (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) + (opts.leaseGraceMs ?? 5_000);
}

export function webhookTasks(opts: WebhookTaskOptions): TaskList {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const backoff = opts.backoffSeconds ?? DEFAULT_BACKOFF_SECONDS;
  const disableAfterSeconds = (opts.disableAfterHours ?? DEFAULT_WEBHOOK_DISABLE_AFTER_HOURS) * 3600;
  const lease = leaseMs(opts);
  const slow = opts.slowTargets ?? new SlowTargets();

  const deliverTask: Task = async (payload, helpers) => {
    const { deliveryId } = payload as { deliveryId: string };
    if (!opts.share) return deliverNow(deliveryId, helpers);
    await opts.share.within(helpers.job, () => deliverNow(deliveryId, helpers), async () => {
      await helpers.withPgClient((client) => client.query(
        "select app_private.enqueue_delivery_job($1, now() + interval '250 milliseconds')", [deliveryId]));
    });
  };

  const deliverNow = async (deliveryId: string, helpers: JobHelpers) => {
    const work = await helpers.withPgClient(async (client) => {
      const { rows } = await client.query<{ w: DeliveryWork | null }>(
        'select app_private.webhook_delivery_claim($1, $2) as w', [deliveryId, lease]);
      return rows[0]?.w ?? null;
    });
    if (!work) return;
    // A target that timed out lately fails at once (recorded, retried with the backoff) instead of holding a slot.
    const target = SlowTargets.key(work.channel, work.url);
    let attempt: AttemptResult;
    if (await slow.mayTryShared(target, work.workspaceId)) {
      attempt = await deliver(work, { allowPrivate: opts.allowPrivate, timeoutMs });
      await slow.settledShared(target, work.workspaceId, attempt.timedOut === true);
    } else {
      attempt = { url: work.url, startedAt: new Date().toISOString(), durationMs: 0, notTried: true,
        error: `not tried: this endpoint timed out in the last ${slow.coolOffMs / 1000} s` };
    }
    const recorded = await helpers.withPgClient(async (client) =>
      (await client.query('select app_private.webhook_delivery_record($1, $2::jsonb, $3::numeric[], $4) as r',
        [deliveryId, JSON.stringify(storable(attempt)), backoff, disableAfterSeconds])).rows[0]?.r);
    reportAttempt(opts.logger, work, attempt, recorded ?? {});
  };

  const sweepTask: Task = async (_payload, helpers) => {
    await helpers.withPgClient((client) => client.query('select app_private.webhook_deliveries_sweep($1, false)', [lease]))
      .catch((err) => {
        if (!isSchemaMissing(err)) throw err;
        warnSchemaMissing();
      });
  };

  const fanoutTask: Task = async (payload, helpers) => {
    const workspaceId = (payload as { workspaceId?: string } | null)?.workspaceId;
    if (!workspaceId) return;
    let after: string | null = null;
    for (;;) {
      const { rows } = await helpers.withPgClient((client) =>
        client.query<{ r: { queued: number; after: string | null } }>('select app_private.webhook_fanout($1, $2, $3) as r', [workspaceId, FANOUT_BATCH, after]));
      after = rows[0]!.r.after;
      if (rows[0]!.r.queued < FANOUT_BATCH) break;
    }
  };

  const pruneTask: Task = async (_payload, helpers) => {
    const keepDays = opts.deliveryRetentionDays ?? DEFAULT_DELIVERY_RETENTION_DAYS;
    let pruned = 0;
    for (;;) {
      const { rows } = await helpers.withPgClient((client) =>
        client.query<{ n: number }>('select app_private.webhook_deliveries_prune($1, $2) as n', [keepDays, PRUNE_BATCH]));
      pruned += rows[0]!.n;
      if (rows[0]!.n < PRUNE_BATCH) break;
    }
    if (pruned) opts.logger?.info({ component: 'worker', pruned, keepDays }, 'pruned ended webhook deliveries past their retention');
  };

  return { svc_webhook_deliver: deliverTask, svc_webhooks_sweep: sweepTask, svc_deliveries_prune: pruneTask, svc_webhook_fanout: fanoutTask };
}

/**
 * The attempt as PostgreSQL can store it: a receiver's answer may hold NUL, which no text or jsonb value takes (22P05).
 * Unstored, the attempt failed its job, and the worker sent the event again every minute with no outcome recorded.
 */
const storable = (a: AttemptResult): AttemptResult => ({
  ...a, error: a.error?.replaceAll('\0', '\uFFFD'), responseBody: a.responseBody?.replaceAll('\0', '\uFFFD'),
});

/** The webhook schema is not migrated yet (a database behind this code): warn, do not crash. */
export const isSchemaMissing = (err: unknown) => ['42883', '42P01', '3F000'].includes((err as { code?: string })?.code ?? '');
let warned = false;
export function warnSchemaMissing() {
  if (warned) return;
  warned = true;
  process.stderr.write('worker warning: webhook tables are missing (migrations not applied?); deliveries are idle\n');
}
