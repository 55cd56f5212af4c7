/** The operator interface, driven as an operator would: the `svc` binary in a child process. */
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/harness.ts';

const run = promisify(execFile);
const SVC = path.resolve('bin/svc.js');

async function svc(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run('node', [SVC, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Starts `svc start`, resolves with its base URL once it logs where it listens. */
function startServer(env: Record<string, string>) {
  const child = spawn('node', [SVC, 'start'], { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(/svc listening on (http:\/\/[^\s"]+)/);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`svc start exited ${code}: ${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exited, output: () => out };
}

describe('svc with DATABASE_URL', () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { DATABASE_URL: await createTestDatabase() };
  });

  it('admin commands print exactly one JSON object and exit 0', async () => {
    const ws = await svc(['admin', 'create-workspace', '--name', 'CLI Co', '--key', 'CLI', '--owner-email', 'boss@example.com', '--json'], env);
    expect(ws.code).toBe(0);
    const created = JSON.parse(ws.stdout);
    expect(created).toMatchObject({
      workspace: { key: 'CLI', name: 'CLI Co', slug: 'cli-co', id: expect.any(String) },
      owner: { email: 'boss@example.com', id: expect.any(String) },
      apiKey: { kind: 'PERSONAL', scopes: ['FULL'], prefix: created.apiKey.rawKey.slice(0, 14) },
    });

    const member = JSON.parse((await svc(['admin', 'add-member', '--workspace', 'CLI', '--email', 'dev@example.com', '--role', 'MEMBER', '--json'], env)).stdout);
    expect(member).toMatchObject({ user: { email: 'dev@example.com' }, role: 'MEMBER' });

    const agent = JSON.parse((await svc(['admin', 'create-agent', '--workspace', 'CLI', '--profile-key', 'bot', '--name', 'Bot',
      '--capabilities', 'a,b', '--provider', 'CODEX', '--runtime-mode', 'EPHEMERAL', '--json'], env)).stdout);
    expect(agent.agent).toMatchObject({ profileKey: 'bot', name: 'Bot', capabilities: ['a', 'b'], provider: 'CODEX', runtimeMode: 'EPHEMERAL' });

    const key = JSON.parse((await svc(['admin', 'create-key', '--workspace', 'CLI', '--user', 'dev@example.com', '--agent', 'bot',
      '--scopes', 'READ_ISSUES,WRITE_ISSUES', '--expires-in-days', '7', '--json'], env)).stdout);
    expect(key.apiKey).toMatchObject({ kind: 'AGENT', scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projectIds: [], labelIds: [], initiativeIds: [] });
    expect(new Date(key.apiKey.expiresAt).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);

    const revoked = await svc(['admin', 'revoke-key', '--id', key.apiKey.id, '--json'], env);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).apiKey.id).toBe(key.apiKey.id);
  });

  it('fails with a clear message on stderr and a non-zero exit', async () => {
    const dup = await svc(['admin', 'create-workspace', '--name', 'Again', '--key', 'CLI', '--owner-email', 'x@example.com', '--json'], env);
    expect(dup.code).not.toBe(0);
    expect(dup.stdout).toBe('');
    expect(dup.stderr).toMatch(/already exists/);
    const missing = await svc(['admin', 'create-workspace', '--name', 'No key', '--json'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--key/);
    const unknown = await svc(['admin', 'revoke-key', '--id', crypto.randomUUID(), '--json'], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/not found/);
  });

  it('create-webhook prints the webhook and its secret once; retry-delivery re-queues a dead letter', async () => {
    const created = await svc(['admin', 'create-webhook', '--workspace', 'CLI', '--url', 'https://hooks.example.com/svc',
      '--events', 'ISSUE_DELETED,ISSUE_CREATED', '--json'], env);
    expect(created.code).toBe(0);
    const { webhook } = JSON.parse(created.stdout);
    expect(webhook).toMatchObject({ id: expect.any(String), url: 'https://hooks.example.com/svc', events: ['ISSUE_CREATED', 'ISSUE_DELETED'],
      secret: expect.stringMatching(/^whsec_/) });
    const listed = await svc(['admin', 'list-webhooks', '--workspace', 'CLI', '--json'], env);
    expect(JSON.parse(listed.stdout).items[0]).toMatchObject({ id: webhook.id, active: true });
    expect(listed.stdout).not.toContain('whsec_');
    // An unknown kind is a usage mistake (exit 2, as an unknown scope), with the nearest kind and the list.
    const bad = await svc(['admin', 'create-webhook', '--workspace', 'CLI', '--url', 'https://x.example.com', '--events', 'ISSUE_CREATD', '--json'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown event kind ISSUE_CREATD; did you mean ISSUE_CREATED\?/);
    expect(bad.stderr).toContain('COMMENT_CREATED');
    const updated = await svc(['admin', 'update-webhook', '--id', webhook.id, '--events', 'NOPE', '--json'], env);
    expect([updated.code, updated.stderr]).toEqual([2, expect.stringMatching(/unknown event kind NOPE/)]);
    const loopback = await svc(['admin', 'create-webhook', '--workspace', 'CLI', '--url', 'http://127.0.0.1:4010/x', '--json'], { ...env, SVC_EGRESS_ALLOW_PRIVATE: '' });
    expect(loopback.code).not.toBe(0);
    expect(loopback.stderr.match(/loopback/g)).toHaveLength(1);  // said once, not again in brackets

    // A dead letter (forced here; the webhook tests produce real ones) goes back to PENDING.
    const db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    try {
      const { rows: [w] } = await db.query(`select id from app_public.workspaces where key = 'CLI'`);
      await db.query(`select app_private.record_event($1, 'ISSUE_CREATED', 'issue', null, '{}')`, [w.id]);
      const { rows: [d] } = await db.query(`update app_public.webhook_deliveries set status = 'DEAD_LETTER', attempt_count = 7
                                            where webhook_id = $1 returning id`, [webhook.id]);
      const retried = await svc(['admin', 'retry-delivery', '--id', d.id, '--json'], env);
      expect(retried.code).toBe(0);
      expect(JSON.parse(retried.stdout).delivery).toMatchObject({ id: d.id, status: 'PENDING', attemptCount: 0 });
      const twice = await svc(['admin', 'retry-delivery', '--id', d.id, '--json'], env);
      expect(twice.code).not.toBe(0);
      expect(twice.stderr).toMatch(/Only DEAD_LETTER/);
    } finally {
      await db.end();
    }
  });

  it('svc migrate is idempotent, and says when there was nothing to apply', async () => {
    expect((await svc(['migrate'], env)).code).toBe(0);
    const again = await svc(['migrate'], env);
    expect([again.code, again.stdout]).toEqual([0, expect.stringMatching(/^database schema up to date \(\d+ migrations\)\n$/)]);
  });

  it('svc start serves /health and stops cleanly on SIGTERM', async () => {
    const server = startServer(env);
    const url = await server.ready;
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('a taken PORT is said before anything starts (not after booting the database and the worker)', async () => {
    const taken = (await import('node:net')).createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      // A database that does not answer: reached first, it would be the error; the port is checked before it.
      const r = await svc(['start'], { DATABASE_URL: 'postgres://svc@127.0.0.1:1/none', PORT: String(port) });
      expect([r.code, r.stderr]).toEqual([1, `svc: port ${port} on 127.0.0.1 is in use (another svc start?); stop it or set PORT to a free port\n`]);
    } finally {
      taken.close();
    }
  });

  it('prints the line saying where it listens at LOG_LEVEL=warn too (the operator interface), and no progress lines', async () => {
    const server = startServer({ ...env, LOG_LEVEL: 'warn' });
    const url = await server.ready;
    expect(server.output()).toMatch(new RegExp(`^svc listening on ${url.replace(/[.:/]/g, '\\$&')} \\(`, 'm'));
    expect(server.output()).not.toMatch(/applying|starting the worker/);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

describe('svc on its embedded PostgreSQL', () => {
  let dataDir: string;
  beforeAll(async () => {
    const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-cli-'));
    await fs.chmod(parent, 0o755);
    dataDir = path.join(parent, 'data');
  });
  afterAll(async () => {
    await fs.rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  it('survives `svc start &` followed at once by `svc admin` on a fresh data directory (the README tour)', async () => {
    const env = { SVC_DATA_DIR: `${dataDir}-race`, DATABASE_URL: '' };
    const server = startServer(env);
    const created = await svc(['admin', 'create-workspace', '--name', 'Race', '--key', 'RACE', '--owner-email', 'r@example.com', '--json'], env);
    // Nothing on stderr, unless the admin command won the race to create the cluster: then it says so.
    expect(created.stderr).toMatch(/^(svc: no database was in \S+: created a new, empty one \(if `svc start` runs elsewhere, [^\n]*\)\n)?$/);
    expect(created.code).toBe(0);
    const url = await server.ready;
    const res = await fetch(`${url}/api/mcp/workspace.get`, {
      method: 'POST', headers: { authorization: `Bearer ${JSON.parse(created.stdout).apiKey.rawKey}`, 'content-type': 'application/json' }, body: '{}',
    });
    expect(res.status).toBe(200); // the admin command did not stop the cluster under the server
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    expect(await fs.readFile(path.join(`${dataDir}-race`, 'pg', 'postmaster.pid'), 'utf8').catch(() => undefined)).toBeUndefined();
  }, 90_000);

  it('an admin command run where no database is (another directory, another SVC_DATA_DIR) says it created a new, empty one', async () => {
    const env = { SVC_DATA_DIR: `${dataDir}-elsewhere`, DATABASE_URL: '' };
    const first = await svc(['admin', 'list-workspaces', '--json'], env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ items: [] });
    expect(first.stderr).toContain(`svc: no database was in ${dataDir}-elsewhere: created a new, empty one`);
    expect(first.stderr).toContain('SVC_DATA_DIR');
    // Once it exists, nothing more is said.
    const second = await svc(['admin', 'list-workspaces', '--json'], env);
    expect(second.stderr).toBe('');
  }, 90_000);

  it('boots without DATABASE_URL, shares the running cluster with admin commands, keeps data, stops it on SIGINT', async () => {
    const env = { SVC_DATA_DIR: dataDir, DATABASE_URL: '' };
    const server = startServer(env);
    const url = await server.ready;
    const created = await svc(['admin', 'create-workspace', '--name', 'Embedded', '--key', 'EMB', '--owner-email', 'e@example.com', '--json'], env);
    expect(created.code).toBe(0);
    const token = JSON.parse(created.stdout).apiKey.rawKey;
    const res = await fetch(`${url}/api/mcp/issues.create`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'kept' }),
    });
    expect(res.status).toBe(200);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    const pid = await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').catch(() => undefined);
    expect(pid).toBeUndefined(); // the embedded server stopped with us

    // Data survives a restart; an admin command on a stopped cluster starts it for its own duration.
    const again = await svc(['admin', 'add-member', '--workspace', 'EMB', '--email', 'f@example.com', '--role', 'ADMIN', '--json'], env);
    expect(again.code).toBe(0);
    const second = startServer(env);
    const url2 = await second.ready;
    const list = await fetch(`${url2}/api/mcp/issues.list`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}',
    });
    expect((await list.json()).items.map((i: { title: string }) => i.title)).toEqual(['kept']);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 90_000);

  it('a copy of a running data directory (`cp -a`) gets a server of its own: nothing done on the copy reaches the original', async () => {
    const env = { SVC_DATA_DIR: dataDir, DATABASE_URL: '' };
    const copy = { SVC_DATA_DIR: `${dataDir}-copy`, DATABASE_URL: '' };
    const server = startServer(env);
    await server.ready;
    try {
      // Its lock file names the original's live postmaster, its embedded.json the original's port.
      await run('cp', ['-a', dataDir, copy.SVC_DATA_DIR]);
      // Its URL, before its own server ran, would reach the original's: said so.
      const url = await svc(['db', 'url'], copy);
      expect(url.stderr).toContain('another server holds its port');
      const made = await svc(['admin', 'create-workspace', '--name', 'Copy', '--key', 'COPYX', '--owner-email', 'c@example.com', '--json'], copy);
      expect(made.code).toBe(0);
      expect(made.stderr).toContain('stale postmaster.pid');
      expect(made.stderr).toMatch(/port \d+ is taken by another server/);
      const keys = async (e: Record<string, string>) =>
        JSON.parse((await svc(['admin', 'list-workspaces', '--json'], e)).stdout).items.map((w: { key: string }) => w.key);
      expect(await keys(copy)).toContain('COPYX');
      expect(await keys(env)).not.toContain('COPYX');
      expect(await keys(env)).toContain('EMB');
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
    // The copy's server stopped with its last command; the original's with its svc.
    for (const dir of [dataDir, copy.SVC_DATA_DIR]) {
      expect(await fs.readFile(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').catch(() => undefined), dir).toBeUndefined();
    }
  }, 120_000);
});
