import path from 'node:path';

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
  /** Attachment blobs on S3 (SVC_S3_BUCKET set); otherwise files under dataDir served by the service. */
  s3?: { bucket: string; region?: string; endpoint?: string };
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

export function loadConfig(env = process.env): Config {
  if (!env.SVC_S3_BUCKET && (env.SVC_S3_ENDPOINT || env.SVC_S3_REGION)) {
    throw new Error('SVC_S3_ENDPOINT/SVC_S3_REGION are set but SVC_S3_BUCKET is not: set the bucket to store attachments on S3, or unset them for the embedded store');
  }
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
    s3: env.SVC_S3_BUCKET
      ? { bucket: env.SVC_S3_BUCKET, region: env.SVC_S3_REGION || undefined, endpoint: env.SVC_S3_ENDPOINT || undefined }
      : undefined,
  };
}
