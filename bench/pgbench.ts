/**
 * Runs statements through pgbench (Debian's postgresql-client: /usr/bin/pgbench, or $PGBENCH) with
 * prepared statements, so the database is measured and not the load generator: on a 2-core machine a
 * Node loop of prepared statements (pg.Pool) reached 7,750 tx/s where pgbench reached 17,000 tx/s on
 * the same primary-key read.
 *
 * pgbench cannot build strings, so every distinct parameter set is a "leaf": the same statement text with
 * its own variables (passed with -D). Each transaction picks one leaf through a binary tree of \if on
 * :v, which a chooser sets (random, or round robin per client). Parameters stay parameters ($n in the
 * prepared statement); a NULL parameter is written as the literal null (pgbench has no NULL variables).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pgUtils from 'pg/lib/utils.js';

/**
 * Runs a load generator (pgbench, wrk) to its end: its exit code and its stdout and stderr as one text;
 * code null when it could not be started (not installed).
 */
export async function runTool(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const code = await new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('exit', resolve);
  });
  return { code, out };
}

export const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';

export async function pgbenchVersion(): Promise<string | undefined> {
  const { code, out } = await runTool(PGBENCH, ['--version']);
  return code === 0 ? out.trim() : undefined;
}

/** One parameter set for a statement whose parameters are $1, $2, … */
export type Leaf = unknown[];

export interface PgbenchCase {
  /** The statement, parameters written $1, $2, … (node-pg style). */
  text: string;
  leaves: Leaf[];
  /**
   * pgbench lines that set :v to the leaf index (0 … leaves.length - 1). Default: uniformly at random.
   * Variables other than :v persist per client between transactions.
   */
  chooser?: string[];
  /** Extra -D variables the chooser needs (e.g. a counter). */
  init?: Record<string, string>;
}

export interface Target {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** Role set at connection start (PGOPTIONS -c role=…), as the service's pools do. */
  role: string;
}

export interface Measured {
  txPerSec: number;
  p50Ms: number;
  p99Ms: number;
  transactions: number;
  /** Every transaction's latency, sorted (to merge runs). */
  latenciesMs: number[];
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Several runs of the same thing as one: rate = all transactions / all time, percentiles over all. */
export function merge(runs: Measured[]): Measured {
  const transactions = runs.reduce((n, r) => n + r.transactions, 0);
  const seconds = runs.reduce((t, r) => t + (r.txPerSec > 0 ? r.transactions / r.txPerSec : 0), 0);
  const latenciesMs = runs.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  return {
    txPerSec: seconds > 0 ? transactions / seconds : 0, transactions, latenciesMs,
    p50Ms: percentile(latenciesMs, 50), p99Ms: percentile(latenciesMs, 99),
  };
}

/** The text node-pg would send for a parameter value (arrays as array literals, objects as JSON). */
const pgText = (value: unknown): string | null => {
  const v = (pgUtils as unknown as { prepareValue(v: unknown): unknown }).prepareValue(value);
  return v === null || v === undefined ? null : String(v);
};

export function buildScript(c: PgbenchCase): { script: string; variables: Record<string, string> } {
  const variables: Record<string, string> = { ...(c.init ?? {}) };
  const byValue = new Map<string, string>();
  const variableFor = (value: string) => {
    let name = byValue.get(value);
    if (!name) {
      name = `p${byValue.size}`;
      byValue.set(value, name);
      variables[name] = value;
    }
    return name;
  };
  const oneLine = c.text.replace(/\s+/g, ' ').trim();
  const statement = (leaf: Leaf) =>
    `${oneLine.replace(/\$(\d+)/g, (_m, n: string) => {
      const text = pgText(leaf[Number(n) - 1]);
      return text === null ? 'null' : `:${variableFor(text)}`;
    })};`;
  const tree = (lo: number, hi: number): string[] => {
    if (hi - lo === 1) return [statement(c.leaves[lo]!)];
    const mid = (lo + hi) >> 1;
    return [`\\if :v < ${mid}`, ...tree(lo, mid), '\\else', ...tree(mid, hi), '\\endif'];
  };
  const chooser = c.chooser ?? [`\\set v random(0, ${c.leaves.length - 1})`];
  return { script: [...chooser, ...tree(0, c.leaves.length)].join('\n') + '\n', variables };
}

export async function pgbench(target: Target, c: PgbenchCase, opts: { clients: number; seconds: number; threads?: number }): Promise<Measured> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-pgbench-'));
  try {
    const { script, variables } = buildScript(c);
    const file = path.join(dir, 'script.sql');
    await fs.writeFile(file, script);
    const args = [
      '-h', target.host, '-p', String(target.port), '-U', target.user, '-n', '-M', 'prepared',
      '-c', String(opts.clients), '-j', String(opts.threads ?? Math.min(opts.clients, Math.max(1, os.cpus().length))),
      '-T', String(opts.seconds), '-f', file, '-l', `--log-prefix=${path.join(dir, 'tx')}`,
      ...Object.entries(variables).flatMap(([k, v]) => ['-D', `${k}=${v}`]),
      target.database,
    ];
    const { code, out } = await runTool(PGBENCH, args,
      { ...process.env, PGPASSWORD: target.password, PGOPTIONS: `-c role=${target.role}`, PGAPPNAME: 'svc-bench' });
    if (code !== 0 || /aborted|error/i.test(out.replace(/number of failed transactions: 0/, ''))) {
      throw new Error(`pgbench failed (exit ${code}):\n${out.slice(-3000)}\nscript head:\n${script.slice(0, 1500)}`);
    }
    const tps = Number(out.match(/tps = ([\d.]+) \(without initial connection time\)/)?.[1]);
    const latencies: number[] = [];
    for (const name of await fs.readdir(dir)) {
      if (!name.startsWith('tx.')) continue;
      for (const line of (await fs.readFile(path.join(dir, name), 'utf8')).split('\n')) {
        const f = line.split(' ');
        if (f.length >= 6) latencies.push(Number(f[2]) / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    return { txPerSec: tps, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), transactions: latencies.length, latenciesMs: latencies };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
