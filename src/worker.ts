/**
 * The background worker: Graphile Worker over the owner pool. Tasks: webhook and agent dispatch
 * deliveries (src/webhooks/tasks.ts), the dispatcher and the watchdog sweep (src/dispatch/tasks.ts),
 * attachment upload expiry and link titles (src/blobs/tasks.ts).
 * `svc start` and `svc worker` run the same runner on every node; jobs are shared through
 * Graphile Worker's SKIP LOCKED queue and new jobs wake workers through its LISTEN channel.
 */
import { Logger, run, type Runner } from 'graphile-worker';
import type pg from 'pg';
import { dispatchTasks } from './dispatch/tasks.ts';
import { attachmentTasks } from './blobs/tasks.ts';
import type { BlobStore } from './blobs/store.ts';
import { isSchemaMissing, leaseMs, warnSchemaMissing, webhookTasks, type WebhookTaskOptions } from './webhooks/tasks.ts';

// Worker start-up chatter stays quiet; warnings and errors reach stderr.
const workerLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`worker ${level}: ${message}\n`);
});

export interface WorkerOptions extends WebhookTaskOptions {
  concurrency?: number;
  /** How often future-dated jobs (retries) are looked for; new jobs arrive by LISTEN at once. */
  pollInterval?: number;
  /** Where attachment blobs live (the expiry job deletes blobs of uploads never finalized). */
  blobs?: BlobStore;
  linkTitleTimeoutMs?: number;
}

export async function startWorker(pool: pg.Pool, opts: WorkerOptions): Promise<Runner> {
  const runner = await run({
    pgPool: pool,
    taskList: { ...webhookTasks(opts), ...dispatchTasks(), ...attachmentTasks(opts) },
    concurrency: opts.concurrency ?? 8,
    noHandleSignals: true,
    pollInterval: opts.pollInterval ?? 1000,
    logger: workerLogger,
    // Recovery for deliveries whose worker died; never backfilled (a sweep covers everything at once).
    // Watchdogs fire at most once per (issue, kind) per 24 h, so a missed minute needs no backfill either.
    crontab: '* * * * * svc_webhooks_sweep\n* * * * * svc_watchdog_sweep',
  });
  // Start-up recovery: re-queue what a previous (killed) worker left, and come back when the leases
  // of deliveries that were in flight expire.
  try {
    await pool.query('select app_private.webhook_deliveries_sweep($1, true)', [leaseMs(opts)]);
  } catch (err) {
    if (!isSchemaMissing(err)) {
      await runner.stop().catch(() => {});
      throw err;
    }
    warnSchemaMissing();
  }
  return runner;
}
