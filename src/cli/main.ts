/**
 * svc: start | worker | migrate | admin <command>. The operator interface (see README and
 * docs/operator-interface.md in ../shared) is a contract: names here are never renamed or dropped.
 */
import '../polyfills.ts';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../config.ts';
import { resolveDatabase } from '../db/database.ts';
import { applyMigrations } from '../db/migrate.ts';
import { ApiError, fromPgError } from '../errors.ts';
import { startService } from '../service.ts';
import { ADMIN_COMMANDS, type Flags } from './admin.ts';

const USAGE = `usage:
  svc start [--no-worker]     migrate, then serve HTTP (and run the worker)
  svc worker                  run only the background worker
  svc migrate                 apply committed migrations and exit
  svc admin <command> [--json] ...
     ${Object.keys(ADMIN_COMMANDS).join(' | ')}`;

const [command, ...rest] = process.argv.slice(2);
const config = loadConfig();

async function serve(http: boolean, worker: boolean) {
  const service = await startService(config, { http, worker });
  if (!http) process.stdout.write('svc worker running\n');
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      process.stderr.write(`svc: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    service.stop().then(
      () => {
        process.stdout.write(`svc stopped (${signal})\n`);
        process.exit(0);
      },
      (err) => {
        process.stderr.write(`svc: error during shutdown: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

async function migrateOnly() {
  const target = await resolveDatabase(config);
  try {
    await applyMigrations(target.ownerUrl);
    process.stdout.write('migrations applied\n');
  } finally {
    await target.close();
  }
}

async function admin(args: string[]) {
  const [sub, ...flagArgs] = args;
  const fn = sub ? ADMIN_COMMANDS[sub] : undefined;
  if (!fn) throw new Error(`unknown admin command ${sub ?? ''}\n${USAGE}`);
  const { values } = parseArgs({ args: flagArgs, options: flagOptions(flagArgs), strict: false, allowPositionals: false });
  const flags = values as Flags;
  const target = await resolveDatabase(config);
  try {
    await applyMigrations(target.ownerUrl);
    const client = new pg.Client({ connectionString: target.ownerUrl, application_name: 'svc-admin' });
    await client.connect();
    try {
      await client.query('begin');
      const result = await fn(client, flags);
      await client.query('commit');
      process.stdout.write(flags.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      await client.end();
    }
  } finally {
    await target.close();
  }
}

/** Every --flag takes a value except --json. */
function flagOptions(args: string[]) {
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const a of args) if (a.startsWith('--') && a !== '--json') options[a.slice(2).split('=')[0]!] = { type: 'string' };
  return options;
}

async function main() {
  switch (command) {
    case 'start':
      return serve(true, !rest.includes('--no-worker'));
    case 'worker':
      return serve(false, true);
    case 'migrate':
      return migrateOnly();
    case 'admin':
      return admin(rest);
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      throw new Error(`unknown command ${command}\n${USAGE}`);
  }
}

main().catch((err) => {
  const apiErr = err instanceof ApiError ? err : fromPgError(err);
  if (apiErr) {
    const details = apiErr.body.issues ? ` (${Object.entries(apiErr.body.issues).map(([k, v]) => `${k}: ${v}`).join('; ')})` : '';
    process.stderr.write(`svc: ${apiErr.message}${details}\n`);
  } else {
    process.stderr.write(`svc: ${(err as Error)?.message ?? err}\n`);
  }
  process.exit(1);
});
