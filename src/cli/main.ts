/**
 * svc: start | worker | migrate | admin <command> | db url | psql. The operator interface (README,
 * "Operator commands") is a contract: names here are never renamed or dropped.
 *
 * Every command is declared once (flags.ts): the declaration drives parsing (util.parseArgs, strict),
 * validation and --help. Exit codes: 0 done, 1 the command failed, 2 a usage or configuration mistake.
 */
import '../polyfills.ts';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import type { DatabaseTarget } from '../db/database.ts';
import { ApiError, databaseUnavailable, fromPgError } from '../errors.ts';
import { ADMIN_SPECS } from './admin.ts';
import { commandFlags, parseCommand, suggestion, synopsis, usage, UsageError, wantsHelp, type CommandSpec, type FlagSpecs } from './flags.ts';

interface TopCommand<F extends FlagSpecs = FlagSpecs> extends CommandSpec<F> {
  /** Runs with the remaining argv (after the command word). */
  main(args: string[]): Promise<void>;
}

function top<F extends FlagSpecs>(name: string, summary: string, flags: F, run: (v: ReturnType<typeof parseCommand<F>>, extra: string[]) => Promise<void>, notes?: string[]): TopCommand<F> {
  const spec: TopCommand<F> = {
    name: `svc ${name}`, summary, flags, notes,
    async main(args) {
      // `svc psql -- -c 'select 1'`: what follows `--` belongs to psql.
      const end = args.indexOf('--');
      const own = end === -1 ? args : args.slice(0, end);
      const extra = end === -1 ? [] : args.slice(end + 1);
      if (wantsHelp(own)) return void process.stdout.write(`${usage(spec)}\n`);
      await run(parseCommand(spec, own), extra);
    },
  };
  return spec;
}

/** Aborted by the first SIGINT/SIGTERM while a command is still setting up. */
const interrupted = new AbortController();

/** Start-up progress on stderr, for people (LOG_LEVEL warn or quieter hides it). */
function progressPrinter(config: Config) {
  const quiet = ['warn', 'error', 'fatal', 'silent'].includes(config.logLevel);
  return (line: string) => {
    if (!quiet) process.stderr.write(`svc: ${line}\n`);
  };
}

const COMMANDS: Record<string, TopCommand> = {
  start: top('start', 'Apply pending migrations, then serve HTTP and run the background worker in one process.', {
    'no-worker': { kind: 'switch', description: 'serve HTTP only (run `svc worker` elsewhere)' },
  }, async (v) => serve(true, !v['no-worker']), [
    'Environment: DATABASE_URL (else embedded PostgreSQL in SVC_DATA_DIR, default ./.svc-data), PORT (3000),',
    'HOST (127.0.0.1), LOG_LEVEL (info). SIGINT/SIGTERM drain HTTP and the worker, then stop the embedded server.',
  ]) as unknown as TopCommand,

  worker: top('worker', 'Run only the background worker (webhook and agent deliveries, sweeps).', {}, async () => serve(false, true)) as unknown as TopCommand,

  migrate: top('migrate', 'Apply committed migrations to the database and exit.', {}, async () => {
    const config = loadConfig();
    const { pendingMigrationCount, applyMigrations, refuseUpgradeUnderRunningServer } = await import('../db/migrate.ts');
    await withDatabase(config, async (target) => {
      // Says what it did, as `svc start` does: "applied 3 of 135 migrations", or that there was nothing to apply.
      const { pending, total } = await pendingMigrationCount(target.ownerUrl);
      await refuseUpgradeUnderRunningServer(target.ownerUrl, pending, total);
      await applyMigrations(target.ownerUrl);
      process.stdout.write(pending ? `applied ${pending} of ${total} migrations\n` : `database schema up to date (${total} migrations)\n`);
    }, { migrate: false });
  }) as unknown as TopCommand,

  admin: {
    name: 'svc admin', summary: 'Operator commands on workspaces, members, agents, keys and webhooks.', flags: {},
    async main(args) {
      const [sub, ...rest] = args;
      if (sub === undefined) throw new UsageError('svc admin needs a command', adminUsage());
      if (sub === '--help' || sub === '-h' || sub === 'help') return void process.stdout.write(`${adminUsage()}\n`);
      const spec = ADMIN_SPECS[sub];
      if (!spec) throw new UsageError(`unknown admin command ${JSON.stringify(sub)}; ${suggestion(sub, Object.keys(ADMIN_SPECS))} (svc admin --help lists them)`);
      if (wantsHelp(rest)) return void process.stdout.write(`${usage(spec)}\n`);
      const values = parseCommand(spec, rest);
      const config = loadConfig();
      await withDatabase(config, async (target) => {
        const client = new pg.Client({ connectionString: target.ownerUrl, application_name: 'svc-admin' });
        await client.connect();
        try {
          await client.query('begin');
          const result = await spec.run(client, values);
          await client.query('commit');
          process.stdout.write(values.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
        } catch (err) {
          await client.query('rollback').catch(() => {});
          throw err;
        } finally {
          await client.end();
        }
      }, { sayIfCreated: true });
    },
  },

  db: {
    name: 'svc db', summary: 'Database helpers: `svc db url` prints the connection string.', flags: {},
    async main(args) {
      const [sub, ...rest] = args;
      if (sub === undefined) throw new UsageError('svc db needs a command', `usage: ${synopsis(DB_URL)}`);
      if (sub === '--help' || sub === '-h') return void process.stdout.write(`usage: ${synopsis(DB_URL)}\n\n${DB_URL.summary}\n`);
      if (sub !== 'url') throw new UsageError(`unknown db command ${JSON.stringify(sub)}; did you mean url? (svc db url --help)`);
      await DB_URL.main(rest);
    },
  },

  psql: top('psql', 'Open psql on the service\'s database (embedded or DATABASE_URL); arguments after -- go to psql.', {}, async (_v, extra) => {
    const config = loadConfig();
    if (!(await onPath('psql'))) throw new Error(PSQL_MISSING);
    await withDatabase(config, async (target) => {
      const code = await runPsql(target.ownerUrl, extra);
      process.exitCode = code;
    }, { migrate: false });
  }, ['Example: svc psql -- -c \'\\dp app_public.*\'   (needs psql: apt-get install postgresql-client)']) as unknown as TopCommand,
};

const DB_URL = top('db url', 'Print the connection string of the database (the embedded one in SVC_DATA_DIR, or DATABASE_URL).', {
  json: { kind: 'switch', description: 'print {"url","embedded","running"}' },
  superuser: { kind: 'switch', description: 'embedded: the postgres superuser\'s URL instead of the owner\'s' },
}, async (v) => {
  const config = loadConfig();
  let url: string;
  let running = true;
  if (config.databaseUrl) {
    url = config.databaseUrl;
    // Asked, not assumed: a server that does not answer within 3 s is not running as far as a client can tell; one
    // that answers with a refusal (a wrong password or database: a SQLSTATE) is running, and says why it refused.
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    const refusal = await client.connect().then(() => undefined, (err: { code?: string; message?: string }) => err);
    await client.end().catch(() => {});
    running = !refusal || /^[0-9A-Z]{5}$/.test(refusal.code ?? '');
    if (!v.json && refusal) {
      process.stderr.write(running ? `svc: the database at DATABASE_URL answers but refuses the connection: ${redactSecrets(refusal.message ?? '')}\n`
        : 'svc: the database at DATABASE_URL does not answer now\n');
    }
  } else {
    const { embeddedClusterInfo } = await import('../db/embedded.ts');
    const info = await embeddedClusterInfo(config.dataDir);
    if (!info) throw new Error(`no embedded database in ${config.dataDir} yet: run svc start (or svc migrate) first`);
    url = v.superuser ? info.url('svc') : info.ownerUrl('svc');
    running = info.running;
    if (info.portTaken) {
      // A copy of a data directory whose original still runs: its URL reaches the original (an outside re-test connected
      // to production's database with it).
      process.stderr.write(`svc: this directory's server is not running, and another server holds its port ${info.port} (is this a copy of a `
        + 'running data directory?): this URL reaches that server, not this directory\'s. Run svc admin or svc start here first; it moves to a free port\n');
    } else if (!running && !v.json) {
      process.stderr.write('svc: the embedded server is not running now (svc start runs it; svc psql starts it for its session)\n');
    }
  }
  process.stdout.write(v.json ? `${JSON.stringify({ url, embedded: !config.databaseUrl, running })}\n` : `${url}\n`);
});

function mainUsage(): string {
  const lines = ['usage: svc <command> [flags]   (svc <command> --help for its flags)', ''];
  for (const spec of [...Object.values(COMMANDS).filter((c) => c.name !== 'svc db'), DB_URL]) {
    lines.push(`  ${spec.name.replace(/^svc /, '').padEnd(10)}${spec.summary}`);
  }
  lines.push('', 'Exit status: 0 done, 1 the command failed, 2 a usage or configuration mistake.');
  return lines.join('\n');
}

function adminUsage(): string {
  const names = Object.keys(ADMIN_SPECS);
  const width = Math.max(...names.map((n) => n.length)) + 2;
  return ['usage: svc admin <command> [flags] [--json]   (svc admin <command> --help for its flags)', '',
    ...names.map((n) => `  ${n.padEnd(width)}${ADMIN_SPECS[n]!.summary}`)].join('\n');
}

/**
 * Opens the database (starting the embedded server for this command's duration when needed), applies
 * migrations, runs fn, and always closes it again; a SIGINT/SIGTERM meanwhile stops at the next step.
 */
async function withDatabase(config: Config, fn: (target: DatabaseTarget) => Promise<void>, opts: { migrate?: boolean; sayIfCreated?: boolean } = {}) {
  const onSignal = () => interrupted.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Loaded on use: help and usage errors stay fast.
  const [{ resolveDatabase }, { applyMigrations, pendingMigrationCount }] = await Promise.all([import('../db/database.ts'), import('../db/migrate.ts')]);
  const target = await resolveDatabase(config, undefined, (line) => process.stderr.write(`svc: ${line}\n`));
  if (target.created && opts.sayIfCreated) {
    // A command run away from `svc start`'s directory would otherwise work on a new, empty database in silence.
    process.stderr.write(`svc: no database was in ${config.dataDir}: created a new, empty one `
      + '(if `svc start` runs elsewhere, run svc commands in its directory or set SVC_DATA_DIR to its data directory)\n');
  }
  try {
    interrupted.signal.throwIfAborted();
    if (opts.migrate !== false) {
      // A new, empty database is set up; one an older release migrated is not upgraded by the way (a read-only
      // `svc admin list-keys` did, in silence, under a server still running the old code, and before any backup).
      // A database a newer release migrated is refused here as by `svc start`.
      const { pending, total } = await pendingMigrationCount(target.ownerUrl);
      if (pending > 0 && pending < total) {
        throw new Error(`the database was migrated by an older release (${total - pending} of this release's ${total} migrations): `
          + 'take a backup (README, Backups), then upgrade it with `svc migrate` or `svc start` of this release');
      }
      if (pending > 0) await applyMigrations(target.ownerUrl);
    }
    interrupted.signal.throwIfAborted();
    await fn(target);
  } finally {
    await target.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const PSQL_MISSING = 'psql is not installed (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq). '
  + '`svc db url` prints the connection string for another client.';

async function onPath(program: string): Promise<boolean> {
  const { access, constants } = await import('node:fs/promises');
  const path = await import('node:path');
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    if (await access(path.join(dir, program), constants.X_OK).then(() => true, () => false)) return true;
  }
  return false;
}

function runPsql(url: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    // psql handles Ctrl-C itself (cancels the query); we stay until it exits, then stop what we started.
    const ignore = () => {};
    process.on('SIGINT', ignore);
    // The password goes in the environment, not on psql's command line (where `ps` shows it). Not through new URL():
    // libpq's socket form with a user and no host (postgres://svc@/svc?host=/run/postgresql) is none.
    const userinfo = url.match(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):([^@/?#]*)@/i);
    const password = userinfo ? decodeURIComponent(userinfo[2]!) : '';
    const bare = userinfo ? `${userinfo[1]}@${url.slice(userinfo[0].length)}` : url;
    const child = spawn('psql', [bare, ...args], { stdio: 'inherit', env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } });
    child.on('error', (err: NodeJS.ErrnoException) => {
      process.off('SIGINT', ignore);
      reject(err.code === 'ENOENT' ? new Error(PSQL_MISSING) : err);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', ignore);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/**
 * Under `npx svc` / `npm exec` / `npm start`, npm runs us through `sh -c` and forwards SIGTERM/SIGINT
 * to that shell only; dash dies without passing the signal on, leaving us orphaned with PostgreSQL
 * running. So when npm started us and our parent goes away, we shut down as if signalled.
 */
function watchNpmParent(onGone: () => void) {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      onGone();
    }
  }, 250);
  timer.unref();
}

async function serve(http: boolean, worker: boolean) {
  const config = loadConfig();
  const progress = progressPrinter(config);
  const { startService } = await import('../service.ts');
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      process.stderr.write(`svc: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    if (!service) {
      // Still starting: startService stops what it started so far (embedded PostgreSQL included).
      progress(`${signal} during start-up: stopping what was started`);
      interrupted.abort(new Error(`${signal} during start-up`));
      return;
    }
    // A stop that cannot finish (the database's network frozen: closing its connections waits for it) still ends
    // before a supervisor's patience does (systemd's TimeoutStopSec=30 in the README): it hung 4 minutes, silent.
    const deadline = setTimeout(() => {
      process.stderr.write(`svc: still stopping after ${config.stopTimeoutSeconds} s (SVC_STOP_TIMEOUT_SECONDS; the database does not answer?): exiting now\n`);
      process.exit(1);
    }, config.stopTimeoutSeconds * 1000);
    deadline.unref();
    service.stop().then(
      () => {
        // LOG_LEVEL=silent says nothing, as it hides the line saying where it listens.
        if (config.logLevel !== 'silent') process.stdout.write(`svc stopped (${signal})\n`);
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
  // The npm shell going away while a stop is under way is that same stop (`pkill -f "svc start"` signals npm, its
  // shell and us at once), not a second request to exit at once without stopping PostgreSQL.
  watchNpmParent(() => { if (!stopping) shutdown('SIGTERM via npm'); });
  try {
    service = await startService(config, { http, worker, progress, signal: interrupted.signal });
  } catch (err) {
    if (interrupted.signal.aborted) {
      if (config.logLevel !== 'silent') process.stdout.write('svc stopped during start-up\n');
      process.exit(0);
    }
    throw err;
  }
  if (!http) process.stdout.write('svc worker running\n');
  if (interrupted.signal.aborted) {
    // The signal arrived in the last step of start-up.
    stopping = false;
    shutdown('signal');
  }
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  // Nothing to do is a usage mistake (exit 2, usage on stderr): a script calling `svc $CMD` with CMD unset fails.
  if (command === undefined) throw new UsageError('no command given', mainUsage());
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${mainUsage()}\n`);
    return;
  }
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command ${JSON.stringify(command)}; ${suggestion(command, Object.keys(COMMANDS))} (svc --help lists them)`);
  await spec.main(rest);
}

/**
 * A secret pasted where it does not belong (a raw key as --workspace or --user, a webhook secret as a flag) is never
 * repeated in an error: terminal scrollback and CI logs keep what goes to stderr.
 */
const redactSecrets = (text: string) => text.replace(/(svc_sk_|whsec_)[A-Za-z0-9+/=_-]+/gi, '$1…');

main().catch((err) => {
  if (err instanceof UsageError || err instanceof ConfigError) {
    process.stderr.write(`svc: ${redactSecrets(err.message)}\n`);
    if (err instanceof UsageError && err.usage) process.stderr.write(`\n${err.usage}\n`);
    process.exit(2);
  }
  if (interrupted.signal.aborted) {
    process.stderr.write('svc: interrupted\n');
    process.exit(130);
  }
  // What the database says about the operator's own setup (a role without CREATEROLE, a role missing after a restore,
  // the server down) is said in its words: the API's ("Not permitted for this key", "input: not a valid value", exit 2)
  // sent the operator looking at their flags.
  const pgErr = err as { code?: string; severity?: string; message?: string; detail?: string; hint?: string } | undefined;
  // (A Unix socket that is not there is a server not listening too.)
  if (databaseUnavailable(err) || (pgErr?.code === 'ENOENT' && /\.s\.PGSQL\.\d+/.test(pgErr.message ?? ''))) {
    process.stderr.write(`svc: the database is not reachable (${redactSecrets(String(pgErr?.message ?? err))})\n`);
    process.exit(1);
  }
  if (pgErr?.severity === 'FATAL' || /^(42501|42704|28|3D|0A|53|58|XX)/.test(pgErr?.code ?? '')) {
    const extra = [pgErr!.detail, pgErr!.hint].filter(Boolean).join(' ');
    process.stderr.write(`svc: PostgreSQL refused: ${redactSecrets(`${pgErr!.message}${extra ? ` (${extra})` : ''}`)}\n`);
    process.exit(1);
  }
  const apiErr = err instanceof ApiError ? err : fromPgError(err);
  if (apiErr) {
    // The fields at fault, without repeating the message when it is the one issue's own ("events: unknown event kind X"),
    // each named by its flag when the command has one (email → --email, linkedAgentId → --agent).
    // A value that names nothing (an unknown workspace, agent, user, key or label id: 404) is named by its flag too, and
    // so is one already taken or that may not change (409: a workspace key, an agent's profile key, the last owner).
    const field = typeof apiErr.body.field === 'string' && (apiErr.status === 404 || apiErr.status === 409) ? apiErr.body.field
      : apiErr.status === 404 && commandFlags.includes('id') ? 'id' : undefined;
    const issues = Object.entries(apiErr.body.issues ?? (field ? { [field]: apiErr.message } : {}));
    const named = issues.map(([field, message]) => [flagOf(field), message] as const);
    // One issue that the message already says (as it is, or after its field's name) is said once.
    const line = issues.length === 1 && (issues[0]![1] === apiErr.message || apiErr.message === `${issues[0]![0]} ${issues[0]![1]}`)
      ? `${named[0]![0]}: ${named[0]![1]}`
      : `${apiErr.message}${named.length ? ` (${named.map(([k, v]) => `${k}: ${v}`).join('; ')})` : ''}`;
    process.stderr.write(`svc: ${redactSecrets(line)}\n`);
    // Refused input is the caller's mistake, as a bad flag is: exit 2; so is a value that names nothing (every lookup
    // of an admin command is of a value given by a flag).
    // A value already taken (409: a workspace key, an agent's profile key) is refused input too.
    process.exit(apiErr.status === 400 || apiErr.status === 404 || apiErr.status === 409 ? 2 : 1);
  } else {
    process.stderr.write(`svc: ${redactSecrets(String((err as Error)?.message ?? err))}\n`);
  }
  process.exit(1);
});

/** The flag a service field came from: its kebab-case name when the command has that flag, else the field. */
function flagOf(field: string): string {
  const kebab = field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const candidates = [...(FLAG_ALIASES[field] ?? []), kebab];
  const flag = candidates.find((c) => commandFlags.includes(c));
  return flag ? `--${flag}` : field;
}

/** Service fields whose flag is named otherwise (create-workspace's email is --owner-email; a rule's targetAgentId is --target). */
const FLAG_ALIASES: Record<string, string[]> = {
  linkedAgentId: ['agent'], agentId: ['agent'], targetAgentId: ['target'], projectIds: ['projects'], labelIds: ['labels'],
  initiativeIds: ['initiatives'], labelId: ['label'], projectId: ['project'], email: ['owner-email'], cursor: ['before'],
};
