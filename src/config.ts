import path from 'node:path';
import { parseOriginList } from './http/origin-guard.ts';

/** Everything the service reads from its environment, in one place (see README "Configuration"). */
export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  port: number;
  host: string;
  publicUrl: string;
  logLevel: string;
  egressAllowPrivate: boolean;
  rateLimitRpcPerMin: number;
  rateLimitRestPerMin: number;
  /** Jobs one worker process runs at once (webhook deliveries are mostly waiting on the network). */
  workerConcurrency: number;
  /** Deadline of one webhook delivery attempt (decisions.md: 10 s). */
  webhookTimeoutMs: number;
  /** SVC_CORS_ORIGINS: browser origins allowed besides SVC_PUBLIC_URL (comma list; also GraphQL CORS). */
  corsOrigins: string[];
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

export function loadConfig(env = process.env): Config {
  const port = int('PORT', 3000);
  const host = env.HOST || '127.0.0.1';
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.SVC_DATA_DIR || './.svc-data'),
    port,
    host,
    publicUrl: env.SVC_PUBLIC_URL || `http://${host}:${port}`,
    logLevel: env.LOG_LEVEL || 'info',
    egressAllowPrivate: env.SVC_EGRESS_ALLOW_PRIVATE === '1' || env.SVC_EGRESS_ALLOW_PRIVATE === 'true',
    rateLimitRpcPerMin: int('SVC_RATE_LIMIT_RPC_PER_MIN', 600),
    rateLimitRestPerMin: int('SVC_RATE_LIMIT_REST_PER_MIN', 300),
    workerConcurrency: Math.max(1, int('SVC_WORKER_CONCURRENCY', 8)),
    webhookTimeoutMs: Math.max(100, int('SVC_WEBHOOK_TIMEOUT_MS', 10_000)),
    corsOrigins: parseOriginList(env.SVC_CORS_ORIGINS),
  };
}
