/**
 * GET /metrics (Prometheus text, prom-client): tool calls and their latency per tool, surface and status;
 * database pool use; the Graphile Worker queue depth; SSE clients; webhook deliveries by status (from the
 * database, so every worker counts) and the attempts this process made. Per app a registry of its own (tests
 * run several apps in one process); the worker's counters and the process metrics are process-wide.
 */
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventHub } from '../events/hub.ts';
import { withinMs } from '../db/database.ts';

/** How long a gauge read from the database may take before /metrics answers without it. */
const DATABASE_GAUGE_MS = 2000;

/** Process-wide: what the worker does (it may run without HTTP) and the Node process itself. */
export const processRegistry = new Registry();
let defaultsCollected = false;

/** Webhook delivery attempts made by this process's worker, by outcome (delivered, retry, dead_letter, canceled, gone). */
export const webhookAttempts = new Counter({
  name: 'svc_webhook_attempts_total',
  help: 'Webhook and agent dispatch delivery attempts made by this process, by outcome',
  labelNames: ['outcome'] as const,
  registers: [processRegistry],
});

/** Background jobs that threw (Graphile Worker retries them with its own backoff), by task. */
export const jobFailures = new Counter({
  name: 'svc_job_failures_total',
  help: 'Graphile Worker jobs that failed in this process, by task',
  labelNames: ['task'] as const,
  registers: [processRegistry],
});

export interface AppMetricsSources {
  ownerPool: pg.Pool;
  apiPool?: pg.Pool;
  events?: EventHub;
}

/** Where a tool call came in: a REST alias, JSON-RPC, or a GraphQL tool mutation. */
export type ToolSurface = 'rest' | 'rpc' | 'graphql';

export class AppMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'tool' | 'surface' | 'status'>;
  private readonly latency: Histogram<'tool' | 'surface' | 'status'>;

  constructor(sources: AppMetricsSources) {
    if (!defaultsCollected) {
      defaultsCollected = true;
      collectDefaultMetrics({ register: processRegistry });
    }
    const registers = [this.registry];
    this.calls = new Counter({
      name: 'svc_tool_calls_total',
      help: 'Tool calls by tool, surface (rest, rpc, graphql) and HTTP status of the outcome',
      labelNames: ['tool', 'surface', 'status'] as const,
      registers,
    });
    this.latency = new Histogram({
      name: 'svc_tool_call_duration_seconds',
      help: 'Tool call latency by tool, surface and status',
      labelNames: ['tool', 'surface', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const pools: Array<[string, pg.Pool]> = [['owner', sources.ownerPool]];
    if (sources.apiPool && sources.apiPool !== sources.ownerPool) pools.push(['api', sources.apiPool]);
    new Gauge({
      name: 'svc_db_pool_connections',
      help: 'Database pool connections by pool (api, owner) and state (total, idle, waiting = queued requests)',
      labelNames: ['pool', 'state'] as const,
      registers,
      collect() {
        for (const [name, pool] of pools) {
          this.set({ pool: name, state: 'total' }, pool.totalCount);
          this.set({ pool: name, state: 'idle' }, pool.idleCount);
          this.set({ pool: name, state: 'waiting' }, pool.waitingCount);
        }
      },
    });
    const owner = sources.ownerPool;
    new Gauge({
      name: 'svc_job_queue_depth',
      help: 'Graphile Worker jobs waiting or running (graphile_worker.jobs), by state (ready, scheduled, locked, failing)',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        this.reset();
        try {
          const { rows } = await withinMs(DATABASE_GAUGE_MS, owner.query<{ state: string; n: string }>(`
            select case when locked_at is not null then 'locked'
                        when attempts > 0 and last_error is not null then 'failing'
                        when run_at > now() then 'scheduled' else 'ready' end as state, count(*) as n
              from graphile_worker.jobs group by 1`));
          for (const state of ['ready', 'scheduled', 'locked', 'failing']) this.set({ state }, 0);
          for (const r of rows) this.set({ state: r.state }, Number(r.n));
        } catch {
          // No worker schema yet (a database the worker never ran on), or a database not answering: nothing to report.
        }
      },
    });
    if (sources.events) {
      const hub = sources.events;
      new Gauge({
        name: 'svc_sse_clients',
        help: 'Clients connected to the event stream (GET /api/plugins/events) of this process',
        registers,
        collect() {
          this.set(hub.subscriberCount);
        },
      });
    }
    new Gauge({
      name: 'svc_event_stream_backlog',
      help: 'Committed activity events not yet given a stream position (SSE and MCP notifications wait for it); near 0 when healthy',
      registers,
      async collect() {
        try {
          const { rows } = await withinMs(DATABASE_GAUGE_MS, owner.query<{ n: string }>(
            'select count(*) as n from app_public.activity_events where stream_pos is null'));
          this.set(Number(rows[0]?.n ?? 0));
        } catch {
          // Tables not migrated yet, or a database not answering.
        }
      },
    });
    new Gauge({
      name: 'svc_webhook_deliveries',
      help: 'Webhook and agent dispatch deliveries by status (PENDING, DELIVERED, DEAD_LETTER, CANCELED), all workspaces',
      labelNames: ['status'] as const,
      registers,
      async collect() {
        this.reset();
        try {
          const { rows } = await withinMs(DATABASE_GAUGE_MS, owner.query<{ status: string; n: string }>(
            'select status, count(*) as n from app_public.webhook_deliveries group by status'));
          for (const status of ['PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED']) this.set({ status }, 0);
          for (const r of rows) this.set({ status: r.status }, Number(r.n));
        } catch {
          // Tables not migrated yet, or a database not answering.
        }
      },
    });
  }

  /** Times one tool call and counts it under the status it ended with (500 for unexpected failures). */
  async time<T>(tool: string, surface: ToolSurface, fn: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    let status = 500;
    try {
      const result = await fn();
      status = 200;
      return result;
    } catch (err) {
      const s = (err as { status?: unknown }).status;
      if (typeof s === 'number') status = s;
      throw err;
    } finally {
      const labels = { tool, surface, status: String(status) };
      this.calls.inc(labels);
      this.latency.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /** The Prometheus text exposition of this app's and the process's metrics. */
  async text(): Promise<{ contentType: string; body: string }> {
    const merged = Registry.merge([this.registry, processRegistry]);
    return { contentType: merged.contentType, body: await merged.metrics() };
  }
}
