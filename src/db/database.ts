/**
 * Connections. Two pools over the same database:
 *  - `api`: every connection switches to the request role (svc_visitor) when opened, so a query that
 *    forgets the caller's identity sees nothing (RLS denies without a workspace) instead of everything;
 *  - `owner`: the schema owner, for migrations, the operator CLI, the worker and batched bookkeeping.
 */
import pg from 'pg';
import type { Config } from '../config.ts';
import { ensureDatabase, openEmbeddedCluster, type Progress } from './embedded.ts';

// int8 (counts, sequences) as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DatabaseTarget {
  ownerUrl: string;
  description: string;
  /** True when the embedded cluster was created just now (SVC_DATA_DIR held none). */
  created?: boolean;
  /** Stops the embedded server when this process started it. */
  close(): Promise<void>;
}

/** DATABASE_URL when set, else the embedded cluster in SVC_DATA_DIR (started if not already running). */
export async function resolveDatabase(config: Config, progress?: Progress, warn?: Progress): Promise<DatabaseTarget> {
  if (config.databaseUrl) {
    return { ownerUrl: config.databaseUrl, description: 'DATABASE_URL', close: async () => {} };
  }
  const cluster = await openEmbeddedCluster(config.dataDir, progress, warn ?? progress);
  await ensureDatabase(cluster.url('postgres'), 'svc', cluster.ownerRole);
  return {
    ownerUrl: cluster.ownerUrl('svc'),
    description: `embedded PostgreSQL in ${config.dataDir}`,
    created: cluster.created,
    close: () => cluster.stop(),
  };
}

/** How long a pool waits for a connection (a new one's handshake, or a place in a full pool). */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * `work`, or a rejection once `ms` pass (code ETIMEDOUT: 503 by databaseUnavailable): for what must answer promptly
 * whatever the database does (/health, /ready, /metrics). The query itself goes on until the database or the pool's
 * timeouts end it.
 */
export function withinMs<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`the database did not answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  });
  work.catch(() => {}); // answered late, or failed after the timer: nobody waits for it any more
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export interface Pools {
  api: pg.Pool;
  owner: pg.Pool;
  end(): Promise<void>;
}

export function createPools(ownerUrl: string, opts: { apiMax?: number; ownerMax?: number } = {}): Pools {
  const api = new pg.Pool({
    connectionString: ownerUrl,
    max: opts.apiMax ?? 20,
    application_name: 'svc-api',
    statement_timeout: 30_000,
    // Keep connections (and with them their prepared statements and plpgsql plan caches) for a while:
    // with pg's default 10 s idle timeout a pause in traffic made the next burst pay for re-planning
    // every statement and recompiling every function on fresh connections.
    idleTimeoutMillis: 300_000,
    // The request role is set in the startup packet, before any query can run on the connection.
    options: '-c role=svc_visitor',
    // A database that stops answering (frozen, a network gone quiet) rather than refusing: a call waits at most this
    // long for a connection, and a query past its statement_timeout is given up by the client too. Without these, every
    // call hung for as long as the database did (503 once either passes: errors.ts databaseUnavailable).
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: 35_000,
  });
  const owner = new pg.Pool({
    connectionString: ownerUrl, max: opts.ownerMax ?? 8, application_name: 'svc-owner', connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // A client losing its server (restart, admin kill) must not crash the process.
  const ignore = () => {};
  for (const pool of [api, owner]) {
    pool.on('error', ignore);
    pool.on('connect', (client) => client.on('error', ignore));
  }
  return {
    api,
    owner,
    async end() {
      await Promise.all([api.end(), owner.end()]);
    },
  };
}

/** Runs fn inside one owner transaction. */
export async function ownerTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
