import os from 'node:os';
import path from 'node:path';
import { originOf } from './http/origin-guard.ts';
import { egressAllowPrivateFromEnv } from './webhooks/registration.ts';

/** Days an ended webhook or agent delivery is kept (SVC_DELIVERY_RETENTION_DAYS) when nothing says otherwise. */
export const DEFAULT_DELIVERY_RETENTION_DAYS = 30;
export const DEFAULT_WEBHOOK_DISABLE_AFTER_HOURS = 72;

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
  /**
   * Connections of the request pool (tool calls, GraphQL, SSE catch-up). Default 2 × CPUs + 1: PostgreSQL runs
   * no more statements at once than it has cores, and more connections only make them take turns, which held
   * up this process's own event loop (search p99 at 200–300 req/s on 2 cores: 13–422 ms with 20, 11–46 ms with 4).
   * Requests past it wait in the pool's queue.
   */
  dbPoolSize: number;
  /** Jobs one worker process runs at once (webhook deliveries are mostly waiting on the network). */
  workerConcurrency: number;
  /** Deadline of one webhook delivery attempt (decisions.md: 10 s). */
  webhookTimeoutMs: number;
  /** Days an ended webhook or agent delivery (and its attempts) is kept; 0 = forever. */
  deliveryRetentionDays: number;
  /** Hours a webhook may fail every delivery attempt before it is deactivated; 0 = never. */
  webhookDisableAfterHours: number;
  /** Seconds a stop (SIGINT/SIGTERM) may take before the process exits anyway (SVC_STOP_TIMEOUT_SECONDS). */
  stopTimeoutSeconds: number;
  /** Attachment blobs on S3 (SVC_S3_BUCKET set); otherwise files under dataDir served by the service. */
  s3?: { bucket: string; region?: string; endpoint?: string };
  /** SVC_CORS_ORIGINS: browser origins allowed besides SVC_PUBLIC_URL (comma list; also CORS for GraphQL, /api/ and /blobs/). */
  corsOrigins: string[];
  /** Event streams (SSE, MCP notification streams) one key / one workspace may hold open per API process. */
  streamsPerKey: number;
  streamsPerWorkspace: number;
}

/** A bad environment value: `svc` prints the message as one line and exits 2 (no stack trace). */
export class ConfigError extends Error {
  readonly exitCode = 2;
}

/** http://HOST:PORT, an IPv6 host bracketed (http://[::1]:3000). */
export const httpUrl = (host: string, port: number): string =>
  `http://${host.includes(':') ? `[${host.replace(/^\[|\]$/g, '')}]` : host}:${port}`;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env = process.env): Config {
  if (!env.SVC_S3_BUCKET && (env.SVC_S3_ENDPOINT || env.SVC_S3_REGION)) {
    throw new ConfigError('SVC_S3_ENDPOINT/SVC_S3_REGION are set but SVC_S3_BUCKET is not: set the bucket to store attachments on S3, or unset them for the embedded store');
  }
  // A value under min is refused, not raised to it: SVC_DB_POOL_SIZE=0 ran with 1, and a stream limit of 0 read as
  // "none" (as a rate limit's 0 does) was 1.
  const int = (name: string, fallback: number, max = Number.MAX_SAFE_INTEGER, min = 0): number => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n > max || n < min) {
      throw new ConfigError(`${name} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`}, got ${JSON.stringify(env[name])}`);
    }
    return n;
  };
  const port = int('PORT', 3000, 65535);
  const host = env.HOST || '127.0.0.1';
  // HOST=256.1.1.1 was refused as an invalid SVC_PUBLIC_URL (one not even set), the default built from it.
  if (!originOf(httpUrl(host, port))) {
    throw new ConfigError(`HOST must be a host name or an IP address this machine listens on (127.0.0.1, 0.0.0.0, ::1), got ${JSON.stringify(env.HOST)}`);
  }
  // An endpoint that is not a URL failed only at the first upload, as a 500.
  const s3Endpoint = env.SVC_S3_ENDPOINT?.trim();
  if (s3Endpoint && (!/^https?:\/\/[^/]/i.test(s3Endpoint) || !URL.canParse(s3Endpoint) || !new URL(s3Endpoint).hostname)) {
    throw new ConfigError(`SVC_S3_ENDPOINT must be an http:// or https:// URL of an S3-compatible service, got ${JSON.stringify(env.SVC_S3_ENDPOINT)}`);
  }
  const logLevel = (env.LOG_LEVEL || 'info').trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}`);
  }
  // The links the service hands out start with it: a value that is not an http(s) URL would only show up later,
  // as links nobody can open. An IPv6 HOST is bracketed in the default (http://[::1]:3000).
  // A user:password in it was handed to every caller in each link; a query or fragment cut the links' own path off.
  // Links are built from the URL as parsed (https:\\host\path and https://@host were handed out as written).
  const rawPublicUrl = env.SVC_PUBLIC_URL?.trim() || httpUrl(host, port);
  if (!originOf(rawPublicUrl) || !plainUrl(rawPublicUrl)) {
    throw new ConfigError(`SVC_PUBLIC_URL must be an http:// or https:// URL (the base of the links the service hands out) with no user, password, query or fragment, got ${JSON.stringify(env.SVC_PUBLIC_URL)}`);
  }
  const publicUrl = new URL(rawPublicUrl).href.replace(/\/+$/, '');
  // An origin is scheme, host and port: an entry with more (a path, a user) was cut down to its origin without a word.
  const corsOrigins = (env.SVC_CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    const origin = originOf(entry);
    if (!origin || !plainUrl(entry) || new URL(entry).pathname !== '/') {
      throw new ConfigError(`SVC_CORS_ORIGINS takes a comma list of browser origins such as https://app.example.com (scheme, host and port only); ${JSON.stringify(entry)} is not one`);
    }
    return origin;
  });
  // A value pg cannot read as a server address failed later as "getaddrinfo ENOTFOUND base". libpq's form for a Unix
  // socket, a user and no host (postgres://svc@/svc?host=/run/postgresql), is no WHATWG URL but is what pg reads.
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  const socketForm = (url: string) => url.replace(/^([a-z]+:\/\/[^/?#]*@)(?=[/?#]|$)/i, '$1localhost');
  if (databaseUrl && (!/^(postgres|postgresql|socket):\/\/./i.test(databaseUrl) || !URL.canParse(socketForm(databaseUrl)))) {
    throw new ConfigError('DATABASE_URL must be a postgres:// (or postgresql://) connection URL, such as postgres://svc:secret@db.example.com:5432/svc');
  }
  // Off unless said on; a value that is neither was taken as off without a word.
  const allowPrivate = (env.SVC_EGRESS_ALLOW_PRIVATE ?? '').trim().toLowerCase();
  if (!['', '0', '1', 'false', 'true'].includes(allowPrivate)) {
    throw new ConfigError(`SVC_EGRESS_ALLOW_PRIVATE must be 1 (or true) to allow private addresses, 0 (or false, or unset) to refuse them, got ${JSON.stringify(env.SVC_EGRESS_ALLOW_PRIVATE)}`);
  }
  return {
    databaseUrl,
    dataDir: path.resolve(env.SVC_DATA_DIR || './.svc-data'),
    port,
    host,
    publicUrl,
    logLevel,
    egressAllowPrivate: egressAllowPrivateFromEnv(env),
    rateLimitRpcPerMin: int('SVC_RATE_LIMIT_RPC_PER_MIN', 600),
    rateLimitRestPerMin: int('SVC_RATE_LIMIT_REST_PER_MIN', 300),
    dbPoolSize: int('SVC_DB_POOL_SIZE', 2 * os.availableParallelism() + 1, 1000, 1),
    workerConcurrency: int('SVC_WORKER_CONCURRENCY', 8, Number.MAX_SAFE_INTEGER, 1),
    webhookTimeoutMs: int('SVC_WEBHOOK_TIMEOUT_MS', 10_000, Number.MAX_SAFE_INTEGER, 100),
    deliveryRetentionDays: int('SVC_DELIVERY_RETENTION_DAYS', DEFAULT_DELIVERY_RETENTION_DAYS, 36_500, 0),
    webhookDisableAfterHours: int('SVC_WEBHOOK_DISABLE_AFTER_HOURS', DEFAULT_WEBHOOK_DISABLE_AFTER_HOURS, 8_760, 0),
    stopTimeoutSeconds: int('SVC_STOP_TIMEOUT_SECONDS', 20, 3_600, 1),
    s3: env.SVC_S3_BUCKET
      ? { bucket: env.SVC_S3_BUCKET, region: env.SVC_S3_REGION || undefined, endpoint: env.SVC_S3_ENDPOINT || undefined }
      : undefined,
    corsOrigins,
    streamsPerKey: int('SVC_STREAMS_PER_KEY', 20, Number.MAX_SAFE_INTEGER, 1),
    streamsPerWorkspace: int('SVC_STREAMS_PER_WORKSPACE', 200, Number.MAX_SAFE_INTEGER, 1),
  };
}

/**
 * A URL (one originOf takes) with nothing but scheme, host, port and path: no user, password, query or fragment, and
 * none of what URL parsing would quietly drop or turn around (blanks, control characters, backslashes, a bare `@`).
 */
function plainUrl(url: string): boolean {
  const u = new URL(url);
  return !u.username && !u.password && !/[?#@\\\s\p{Cc}]/u.test(url);
}
