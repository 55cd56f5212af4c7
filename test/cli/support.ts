/** Running the `svc` binary as an operator would, in a child process. */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const SVC = path.resolve('bin/svc.js');

export interface SvcResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function svc(args: string[], env: Record<string, string> = {}): Promise<SvcResult> {
  try {
    const { stdout, stderr } = await run('node', [SVC, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `svc ... --json` that must succeed: its one JSON object. */
export async function svcJson<T = any>(args: string[], env: Record<string, string>): Promise<T> {
  const r = await svc([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`svc ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A data directory the embedded PostgreSQL (the `postgres` OS user when we are root) can reach. */
export async function tempDataDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-cli-'));
  await fs.chmod(parent, 0o755);
  return { dir: path.join(parent, 'data'), remove: () => fs.rm(parent, { recursive: true, force: true }) };
}

/** PID of the postmaster on this data directory while it runs. */
export async function postmasterPid(dataDir: string): Promise<number | undefined> {
  const text = await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').catch(() => undefined);
  const pid = text ? Number(text.split('\n')[0]) : NaN;
  if (!Number.isInteger(pid)) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Spawns a long-running command and collects its output. */
export function spawnCollect(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}
