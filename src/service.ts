/**
 * Assembles a running service: database (embedded or DATABASE_URL), migrations, pools, the LISTEN
 * connection, key cache, HTTP and the worker. `stop()` drains in that order, reversed.
 */
import type { FastifyInstance } from 'fastify';
import type { Runner } from 'graphile-worker';
import { KeyAuthenticator } from './auth/keys.ts';
import type { Config } from './config.ts';
import { createPools, resolveDatabase, type Pools } from './db/database.ts';
import { applyMigrations } from './db/migrate.ts';
import { EventHub } from './events/hub.ts';
import { Notifier } from './events/notifier.ts';
import { buildApp } from './http/app.ts';
import { isLoopbackHost } from './http/origin-guard.ts';
import { ToolRunner } from './tools/invoke.ts';
import { startWorker } from './worker.ts';

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
}

export async function startService(config: Config, opts: ServiceOptions): Promise<Service> {
  const target = opts.ownerUrl
    ? { ownerUrl: opts.ownerUrl, description: 'given database', close: async () => {} }
    : await resolveDatabase(config);
  const stops: Array<() => Promise<unknown>> = [() => target.close()];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => {});
  };
  try {
    await applyMigrations(target.ownerUrl);
    // The worker's jobs use owner connections: room for each concurrent job plus the API's own use.
    const pools = createPools(target.ownerUrl, { ownerMax: opts.worker ? config.workerConcurrency + 4 : 8 });
    stops.push(() => pools.end());

    let worker: Runner | undefined;
    if (opts.worker) {
      worker = await startWorker(pools.owner, {
        concurrency: config.workerConcurrency,
        allowPrivate: config.egressAllowPrivate,
        timeoutMs: config.webhookTimeoutMs,
      });
      stops.push(() => worker!.stop());
    }

    let app: FastifyInstance | undefined;
    let url: string | undefined;
    if (opts.http) {
      const notifier = new Notifier(target.ownerUrl);
      await notifier.start();
      stops.push(() => notifier.close());
      const keys = new KeyAuthenticator(pools.api, pools.owner);
      stops.push(() => keys.close());
      notifier.on('svc_keys', (keyId: string) => keys.forget(keyId));
      const events = new EventHub(pools.api, notifier);
      stops.push(() => events.close());
      const runner = new ToolRunner(pools.api);
      ({ app } = buildApp({
        ownerPool: pools.owner,
        keys,
        runner,
        rateLimits: { rpc: config.rateLimitRpcPerMin, rest: config.rateLimitRestPerMin },
        apiPool: pools.api,
        origins: { publicUrl: config.publicUrl, corsOrigins: config.corsOrigins, loopback: isLoopbackHost(config.host) },
        logLevel: config.logLevel,
        events,
        graphql: { pool: pools.api },
      }));
      stops.push(() => app!.close());
      const where = `${target.description}${opts.worker ? ', worker running' : ''}`;
      // The one start-up line: where it listens.
      await app.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `svc listening on ${address} (${where})` });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      url = `http://${config.host}:${port}`;
    }
    return { app, pools, url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
