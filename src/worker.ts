/**
 * The background worker: Graphile Worker over the owner pool. Tasks: webhook and agent dispatch
 * deliveries (src/webhooks/tasks.ts), the dispatcher and the watchdog sweep (src/dispatch/tasks.ts),
 * attachment upload expiry and link titles (src/blobs/tasks.ts).
 * `svc start` and `svc worker` run the same runner on every node; jobs are shared through
 * Graphile Worker's SKIP LOCKED queue and new jobs wake workers through its LISTEN channel.
 */
import { Logger as WorkerLogger, run, type Runner } from 'graphile-worker';
import type pg from 'pg';
import { dispatchTasks } from './dispatch/tasks.ts';
import { attachmentTasks } from './blobs/tasks.ts';
import type { BlobStore } from './blobs/store.ts';
import { jobFailures } from './http/metrics.ts';
import { createLogger, type Logger } from './log.ts';
import { isSchemaMissing, leaseMs, warnSchemaMissing, webhookTasks, type WebhookTaskOptions } from './webhooks/tasks.ts';
import { SlowTargets } from './outbound/slow-targets.ts';
import { TenantShare } from './outbound/tenant-share.ts';

/** Graphile Worker's own messages through our logger: its start-up chatter at debug, warnings and errors as such. */
const workerLogger = (logger: Logger) => new WorkerLogger((scope) => (level, message, meta) => {
  const fields = { component: 'worker', ...(scope.label ? { scope: scope.label } : {}), ...(scope.taskIdentifier ? { task: scope.taskIdentifier } : {}), ...(scope.jobId ? { jobId: scope.jobId } : {}) };
  void meta; // may carry the job payload or the error object with its query: left out
  // Its "Failed task …" lines quote the raw error (values from the payload): the job:error handler below logs them.
  if (message.startsWith('Failed task')) return;
  if (level === 'error') logger.error(fields, message);
  else if (level === 'warning') logger.warn(fields, message);
  else logger.debug(fields, message);
});

export interface WorkerOptions extends WebhookTaskOptions {
  concurrency?: number;
  /** How often future-dated jobs (retries) are looked for; new jobs arrive by LISTEN at once. */
  pollInterval?: number;
  /** Where attachment blobs live (the expiry job deletes blobs of uploads never finalized). */
  blobs?: BlobStore;
  linkTitleTimeoutMs?: number;
  /** Where failed jobs and deliveries are logged (default: pino on stdout at LOG_LEVEL, else warn). */
  logger?: Logger;
}

export async function startWorker(pool: pg.Pool, opts: WorkerOptions): Promise<Runner> {
  const logger = opts.logger ?? createLogger(process.env.LOG_LEVEL?.trim().toLowerCase() || 'warn');
  // Targets that timed out, for deliveries and link titles alike: this process's memory, and the database's for all.
  const slowTargets = opts.slowTargets ?? SlowTargets.shared(pool);
  const concurrency = opts.concurrency ?? 8;
  // At most half the slots run one workspace's outbound jobs; the rest stay free for the others.
  const share = TenantShare.of(concurrency);
  const runner = await run({
    pgPool: pool,
    taskList: { ...webhookTasks({ ...opts, logger, slowTargets, share }), ...dispatchTasks(), ...attachmentTasks({ ...opts, slowTargets, share }) },
    concurrency,
    forbiddenFlags: share.forbiddenFlags,
    noHandleSignals: true,
    pollInterval: opts.pollInterval ?? 1000,
    // Completing or failing a job goes through Graphile Worker's batcher. Unbatched, 0.18 does not await those writes,
    // and one that met a restarting database (ECONNREFUSED, "Connection terminated") was an unhandled rejection: the
    // whole process, API included, exited. Batched, such a failure stops the pool (0.18's batcher gives up at the
    // first one), and superviseWorker starts it again.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    logger: workerLogger(logger),
    // Recovery for deliveries whose worker died; never backfilled (a sweep covers everything at once).
    // Watchdogs fire at most once per (issue, kind) per 24 h, so a missed minute needs no backfill either.
    crontab: '* * * * * svc_webhooks_sweep\n* * * * * svc_watchdog_sweep\n17 * * * * svc_deliveries_prune',
  });
  // A job that threw: logged with its id, task and attempt (never its payload); counted in /metrics.
  runner.events.on('job:error', ({ job, error }) => {
    jobFailures.inc({ task: job.task_identifier });
    const fields = { component: 'worker', jobId: job.id, task: job.task_identifier, attempt: job.attempts, maxAttempts: job.max_attempts, error: errorText(error) };
    if (job.attempts >= job.max_attempts) logger.error(fields, 'background job failed for good');
    else logger.warn(fields, 'background job failed; Graphile Worker will retry it');
  });
  // Start-up recovery: re-queue what a previous (killed) worker left, and come back when the leases
  // of deliveries that were in flight expire.
  try {
    await pool.query('select app_private.webhook_deliveries_sweep($1, true)', [leaseMs(opts)]);
    // Queued work a killed worker's dispatcher job held (locked for hours): handed out now, not at the minute.
    await pool.query('select app_private.dispatch_sweep()');
  } catch (err) {
    if (!isSchemaMissing(err)) {
      await runner.stop().catch(() => {});
      throw err;
    }
    warnSchemaMissing();
  }
  return runner;
}

/**
 * The worker kept running: Graphile Worker stops its pool when it cannot record a job's end (0.18 gives up at the first
 * failure of a batched write: a database restart), and the API would go on with no deliveries, dispatch or watchdogs.
 * Started again after `restartMs` until it runs; its start-up sweep re-queues what the stopped pool held.
 */
export async function superviseWorker(start: () => Promise<Runner>, logger: Logger, restartMs = 5000): Promise<{ runner(): Runner; stop(): Promise<void> }> {
  let current: Runner;
  // Every pool started: one replaced while its shutdown hung is stopped again at the end (it may hold a connection).
  const started: Runner[] = [];
  let stopping = false;
  const restartLater = (why: string) => {
    if (stopping) return;
    logger.error({ component: 'worker' }, `the background worker stopped (${why}); starting it again in ${restartMs / 1000} s`);
    setTimeout(() => {
      if (!stopping) start().then(watch, (err) => restartLater(errorText(err)));
    }, restartMs).unref();
  };
  const watch = (runner: Runner) => {
    current = runner;
    started.push(runner);
    let ended = false;
    const once = (why: string) => {
      if (ended) return;
      ended = true;
      restartLater(why);
    };
    // A pool that starts shutting down on its own is done taking jobs: started again without waiting for its end,
    // which may never come (its shutdown releases jobs through the database it lost: two freezes in six left the
    // worker dead until the process restarted).
    runner.events.on('pool:gracefulShutdown', ({ message }) => once(message));
    runner.promise.then(() => once('its pool ended'), (err) => once(errorText(err)));
  };
  watch(await start());
  return {
    runner: () => current,
    async stop() {
      stopping = true;
      // A pool that already ended has nothing to stop; one whose shutdown hangs gets 5 s.
      await Promise.race([
        Promise.all(started.map((r) => r.stop().catch(() => {}))),
        new Promise((resolve) => setTimeout(resolve, 5000).unref()),
      ]);
    },
  };
}

/** An error's message for a log line (its class and message; no stack, no attached query values). */
function errorText(err: unknown): string {
  // A database error's message can quote the offending value (the payload): its SQLSTATE says enough.
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `database error ${code}`;
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 1000);
  return String(err).slice(0, 1000);
}
