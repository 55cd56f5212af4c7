/**
 * Graphile Worker tasks of the dispatcher and the watchdogs.
 *
 *  svc_dispatch {workspaceId}   assign queued, unassigned issues to eligible agents, one transaction per
 *                               assignment (app_private.dispatch_next) until nothing is left to do. Queued by
 *                               triggers (app_private.wake_dispatcher), a job per wake; a job first removes its
 *                               workspace's other waiting jobs (app_private.dispatch_coalesce), whose changes it sees.
 *  svc_watchdog_sweep           AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH and stale runs, and a dispatcher wake for
 *                               queued work no job will hand out (a killed worker held it): every minute.
 */
import type pg from 'pg';
import type { Task, TaskList } from 'graphile-worker';
import { isSchemaMissing } from '../webhooks/tasks.ts';

/** Safety valve: one job hands out at most this many issues, then queues its successor. */
const MAX_PER_JOB = 1_000;

export async function dispatchWorkspace(client: pg.ClientBase, workspaceId: string): Promise<number> {
  await client.query('select app_private.dispatch_coalesce($1)', [workspaceId]);
  let assigned = 0;
  while (assigned < MAX_PER_JOB) {
    const { rows } = await client.query<{ r: unknown }>('select app_private.dispatch_next($1) as r', [workspaceId]);
    if (rows[0]?.r == null) return assigned;
    assigned++;
  }
  await client.query('select app_private.wake_dispatcher($1)', [workspaceId]);
  return assigned;
}

/**
 * Runs every sweep due at `now` (watchdogs; ACTIVE runs quiet past agentRunStaleMinutes → STALLED; agents silent
 * as long → OFFLINE; OFFLINE agents silent past offlineReclaimMinutes lose their runs and issues; dispatchers woken
 * for queued work nobody will hand out) and returns what fired, as `svc admin sweep` prints it (the wakes are jobs, not events: not listed).
 */
export async function sweep(client: pg.ClientBase, now?: Date): Promise<{ kind: string; subjectId: string }[]> {
  type Fired = { kind: string; subjectId: string }[];
  const { rows } = await client.query<{ watchdogs: Fired; runs: Fired; agents: Fired; reclaimed: Fired }>(
    `select app_private.watchdog_sweep(coalesce($1::timestamptz, now())) as watchdogs,
            app_private.sweep_stale_runs(coalesce($1::timestamptz, now())) as runs,
            app_private.sweep_silent_agents(coalesce($1::timestamptz, now())) as agents,
            app_private.sweep_offline_agents_work(coalesce($1::timestamptz, now())) as reclaimed,
            app_private.dispatch_sweep() as dispatchers_woken,
            app_private.purge_idempotent_calls() as idempotency_keys_forgotten`, [now ?? null]);
  const r = rows[0]!;
  return [...r.watchdogs, ...[...r.runs, ...r.agents, ...r.reclaimed].map(({ kind, subjectId }) => ({ kind, subjectId }))];
}

export function dispatchTasks(): TaskList {
  const dispatchTask: Task = async (payload, helpers) => {
    const { workspaceId } = payload as { workspaceId: string };
    await helpers.withPgClient((client) => dispatchWorkspace(client, workspaceId));
  };
  const sweepTask: Task = async (_payload, helpers) => {
    await helpers.withPgClient((client) => sweep(client)).catch((err) => {
      if (!isSchemaMissing(err)) throw err; // a database behind this code: nothing to sweep yet
    });
  };
  return { svc_dispatch: dispatchTask, svc_watchdog_sweep: sweepTask };
}
