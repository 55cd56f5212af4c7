/**
 * Assembles a running service: database (embedded or DATABASE_URL), migrations, pools, the LISTEN
 * connection, key cache, HTTP and the worker. `stop()` drains in that order, reversed.
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { KeyAuthenticator } from './auth/keys.ts';
import { EmbeddedBlobStore } from './blobs/embedded.ts';
import { createBlobStore } from './blobs/index.ts';
import { ConfigError, httpUrl, type Config } from './config.ts';
import { createPools, resolveDatabase, type Pools } from './db/database.ts';
import { applyMigrations, pendingMigrationCount, refuseUpgradeUnderRunningServer } from './db/migrate.ts';
import { EventHub } from './events/hub.ts';
import { Notifier } from './events/notifier.ts';
import { buildApp } from './http/app.ts';
import { isLoopbackHost } from './http/origin-guard.ts';
import { ToolRunner } from './tools/invoke.ts';
import { createLogger } from './log.ts';
import { startWorker, superviseWorker } from './worker.ts';

export interface Service {
  app?: FastifyInstance;
  pools: Pools;
  url?: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  http: boolean;
  worker: boolean;
  /** Use this database instead of resolving one from the config (tests). */
  ownerUrl?: string;
  /** Human lines about what start-up is doing (creating the cluster, migrations, worker). */
  progress?: (line: string) => void;
  /** Aborted (SIGINT/SIGTERM during start-up): stop what was started so far and reject. */
  signal?: AbortSignal;
}

/**
 * Fails at once when the HTTP port is taken (a second `svc start`), before a PostgreSQL is booted and migrations are
 * checked for nothing: listen found it ~10 s later. The port is let go at once; a race with another process
 * still ends in listen's own EADDRINUSE.
 */
async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE'
      ? new Error(`port ${port} on ${host} is in use (another svc start?); stop it or set PORT to a free port`)
      // A HOST no interface of this machine has is the operator's setting to fix (exit 2), not a crash.
      : err.code === 'ENOTFOUND' || err.code === 'EADDRNOTAVAIL' || err.code === 'EAI_AGAIN'
        ? new ConfigError(`HOST ${host} is not an address this machine can listen on (${err.code}); set HOST to one of its addresses, such as 127.0.0.1 or 0.0.0.0`)
        : err));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

export async function startService(config: Config, opts: ServiceOptions): Promise<Service> {
  const progress = opts.progress ?? (() => {});
  if (opts.http) await assertPortFree(config.host, config.port);
  const target = opts.ownerUrl
    ? { ownerUrl: opts.ownerUrl, description: 'given database', close: async () => {} }
    : await resolveDatabase(config, progress);
  const stops: Array<() => Promise<unknown>> = [() => target.close()];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => {});
  };
  const checkpoint = () => opts.signal?.throwIfAborted();
  try {
    checkpoint();
    const { pending, total } = await pendingMigrationCount(target.ownerUrl);
    await refuseUpgradeUnderRunningServer(target.ownerUrl, pending, total);
    progress(pending ? `applying ${pending} of ${total} migrations` : `database schema up to date (${total} migrations)`);
    await applyMigrations(target.ownerUrl);
    checkpoint();
    // The worker's jobs use owner connections: room for each concurrent job plus the API's own use.
    const pools = createPools(target.ownerUrl, { apiMax: config.dbPoolSize, ownerMax: opts.worker ? config.workerConcurrency + 4 : 8 });
    stops.push(() => pools.end());

    const blobs = createBlobStore(config);
    // One pino logger for HTTP and the worker (background failures are logged with ids, never secrets).
    const logger = createLogger(config.logLevel);
    if (opts.worker) {
      progress(`starting the worker (${config.workerConcurrency} jobs at once)`);
      const workerOptions = {
        blobs, concurrency: config.workerConcurrency, allowPrivate: config.egressAllowPrivate, timeoutMs: config.webhookTimeoutMs,
        deliveryRetentionDays: config.deliveryRetentionDays, disableAfterHours: config.webhookDisableAfterHours, logger,
      };
      const supervised = await superviseWorker(() => startWorker(pools.owner, workerOptions), logger);
      stops.push(() => supervised.stop());
      checkpoint();
    }

    let app: FastifyInstance | undefined;
    let url: string | undefined;
    if (opts.http) {
      const notifier = new Notifier(target.ownerUrl, (err) =>
        logger.error({ err: err.message }, 'event sequencing failed: events do not stream until it recovers (retrying)'));
      await notifier.start();
      stops.push(() => notifier.close());
      const keys = new KeyAuthenticator(pools.api, pools.owner);
      stops.push(() => keys.close());
      notifier.on('svc_keys', (keyId: string) => keys.forget(keyId));
      notifier.on('connected', () => keys.forgetAll());
      const events = new EventHub(pools.api, notifier);
      stops.push(() => events.close());
      const runner = new ToolRunner(pools.api, { blobs, allowPrivateEgress: config.egressAllowPrivate });
      ({ app } = buildApp({
        ownerPool: pools.owner,
        keys,
        runner,
        rateLimits: { rpc: config.rateLimitRpcPerMin, rest: config.rateLimitRestPerMin },
        apiPool: pools.api,
        origins: { publicUrl: config.publicUrl, corsOrigins: config.corsOrigins, loopback: isLoopbackHost(config.host) },
        logLevel: config.logLevel,
        logger,
        events,
        streamLimits: { perKey: config.streamsPerKey, perWorkspace: config.streamsPerWorkspace },
        graphql: { pool: pools.api },
        blobs,
      }));
      stops.push(() => app!.close());
      checkpoint();
      const where = `${target.description}${opts.worker ? ', worker running' : ''}`;
      // The start-up line scripts wait for: where it listens.
      // An IPv6 address is bracketed, as in any URL (Fastify wrote http://::1:3000).
      const listening = (address: string) => `svc listening on ${address.replace(/^(https?:\/\/)([^[\]/]*:[^[\]/]*):(\d+)$/, '$1[$2]:$3')} (${where})`;
      await app.listen({ port: config.port, host: config.host, listenTextResolver: listening });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      url = httpUrl(config.host, port);
      // The operator interface promises this line at any LOG_LEVEL but silent: below info, as plain text (as
      // "svc stopped" is), since Fastify logged it at info.
      if (!logger.isLevelEnabled('info') && logger.level !== 'silent') process.stdout.write(`${listening(url)}\n`);
      // Links to the embedded store follow the real port when no SVC_PUBLIC_URL was given (PORT=0).
      if (blobs instanceof EmbeddedBlobStore && config.publicUrl === httpUrl(config.host, config.port)) blobs.setPublicUrl(url);
    }
    return { app, pools, url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
