/**
 * Schema changes are owned by graphile-migrate: committed migrations in migrations/committed,
 * work in progress in migrations/current/ (applied only by `npm run gm -- watch` and the tests).
 * Graphile Worker's own schema is installed first: our event trigger enqueues webhook jobs with
 * graphile_worker.add_job in the event's transaction, so the queue must exist before any event does.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@graphile/logger';
import { migrate, watch, type Settings } from 'graphile-migrate';
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import pg from 'pg';

// graphile-migrate keeps its pools alive 200 ms after use and exits the process if one errors, which
// happens when the embedded server stops inside that window. Release them as soon as we are done.
const { clearAllPools } = createRequire(import.meta.url)('graphile-migrate/dist/pgReal.js') as { clearAllPools(): void };

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const migrationsFolder = path.join(projectRoot, 'migrations');

// graphile-migrate is chatty on stdout; `svc --json` commands must print exactly one object.
const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error') process.stderr.write(`${message}\n`);
});

export function migrateSettings(connectionString: string, extra: Partial<Settings> = {}): Settings {
  return { connectionString, migrationsFolder, logger: quietLogger, ...extra };
}

const quietWorkerLogger = new WorkerLogger(() => (level, message) => {
  if (level === 'error') process.stderr.write(`${message}\n`);
});

// graphile-migrate takes a try-lock and fails when another process migrates; several `svc` processes
// starting together wait their turn on this lock instead.
const MIGRATION_LOCK = 7_134_212_001;

export async function applyMigrations(ownerUrl: string, opts: { includeCurrent?: boolean; migrationsFolder?: string } = {}): Promise<void> {
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    await requireServerVersion(client);
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await runWorkerMigrations({ connectionString: ownerUrl, logger: quietWorkerLogger });
    const settings = migrateSettings(ownerUrl, opts.migrationsFolder ? { migrationsFolder: opts.migrationsFolder } : {});
    if (opts.includeCurrent) await watch(settings, true);
    else await migrate(settings);
  } finally {
    clearAllPools();
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}

/** The oldest PostgreSQL the migrations run on (`ALTER COLUMN … SET EXPRESSION`, migrations 000064 and 000184). */
export const MIN_SERVER_VERSION = { num: 170000, name: '17' };

/**
 * Refuses a server older than MIN_SERVER_VERSION before anything is applied: on Debian 12's PostgreSQL 15 the
 * migrations stopped at the 64th with "syntax error at or near "expression"" (an outside probe), naming neither.
 */
export async function requireServerVersion(client: pg.ClientBase, min = MIN_SERVER_VERSION): Promise<void> {
  const { rows } = await client.query<{ num: number; version: string }>(
    `select current_setting('server_version_num')::int as num, current_setting('server_version') as version`);
  if (rows[0]!.num < min.num) {
    throw new Error(`this release needs PostgreSQL ${min.name} or newer; the server at DATABASE_URL is PostgreSQL ${rows[0]!.version}` +
      ' (leave DATABASE_URL unset for the embedded PostgreSQL 17)');
  }
}

/**
 * Committed migrations not yet applied to this database (all of them on a fresh one). A database with more applied
 * than this release ships was migrated by a newer release: refused (this code would run against SQL it does not
 * know; an older release started on upgraded data and served writes).
 */
export async function pendingMigrationCount(ownerUrl: string): Promise<{ pending: number; total: number }> {
  const fs = await import('node:fs/promises');
  const files = (await fs.readdir(path.join(migrationsFolder, 'committed'))).filter((f) => f.endsWith('.sql'));
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    await requireServerVersion(client);
    const { rows } = await client.query(`select to_regclass('graphile_migrate.migrations') is not null as present`);
    const applied = rows[0].present ? (await client.query('select count(*)::int as n from graphile_migrate.migrations')).rows[0].n : 0;
    if (applied > files.length) {
      throw new Error(`the database has ${applied} migrations applied and this release knows ${files.length}: it was upgraded by a newer release; run that release (or restore a backup taken before the upgrade)`);
    }
    return { pending: files.length - applied, total: files.length };
  } finally {
    await client.end();
  }
}

/** The application names of a running svc's connections to its database (API, worker and owner pools, LISTEN). */
const SERVER_CONNECTIONS = ['svc-api', 'svc-owner', 'svc-listen'];

/**
 * Before an upgrade (pending migrations on a database an older release set up): refused while another svc server
 * still uses the database. The upgrade probe found `svc start` of a new release migrating in silence under an older
 * server, which went on serving with its own code over the new SQL (only its /ready said 503).
 */
export async function refuseUpgradeUnderRunningServer(ownerUrl: string, pending: number, total: number): Promise<void> {
  if (pending === 0 || pending === total) return;  // nothing to apply, or a new database
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number; since: Date }>(
      `select count(*)::int as n, min(backend_start) as since from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid() and application_name = any($1)`, [SERVER_CONNECTIONS]);
    const { n, since } = rows[0]!;
    if (n > 0) {
      throw new Error(`another svc server is using this database (${n} connection${n === 1 ? '' : 's'}, the oldest from `
        + `${since.toISOString()}): stop it before this release upgrades the database (${pending} of ${total} `
        + 'migrations to apply); take a backup first (README, Backups)');
    }
  } finally {
    await client.end();
  }
}

