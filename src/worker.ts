/**
 * The background worker: Graphile Worker over the owner pool. Tasks arrive with the features that need
 * them (webhook deliveries, dispatch, watchdog sweeps); the runner is started either way so that
 * `svc start` and `svc worker` behave the same on every node.
 */
import { Logger, run, type Runner, type TaskList } from 'graphile-worker';
import type pg from 'pg';

export const tasks: TaskList = {};

// Worker start-up chatter stays quiet; warnings and errors reach stderr.
const workerLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`worker ${level}: ${message}\n`);
});

export async function startWorker(pool: pg.Pool, concurrency = 4): Promise<Runner> {
  return run({ pgPool: pool, taskList: tasks, concurrency, noHandleSignals: true, pollInterval: 2000, logger: workerLogger });
}
