/**
 * Per-file test harness: a fresh database cloned from the migrated template, the real HTTP app on it,
 * and fixtures created through the same operator functions `svc admin` uses.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Runner } from 'graphile-worker';
import pg from 'pg';
import { inject } from 'vitest';
import { KeyAuthenticator, type KeyScope } from '../../src/auth/keys.ts';
import { EmbeddedBlobStore } from '../../src/blobs/embedded.ts';
import type { BlobStore } from '../../src/blobs/store.ts';
import { ADMIN_COMMANDS, type Flags } from '../../src/cli/admin.ts';
import { createPools, type Pools } from '../../src/db/database.ts';
import { EventHub, type HubOptions } from '../../src/events/hub.ts';
import { Notifier } from '../../src/events/notifier.ts';
import { buildApp } from '../../src/http/app.ts';
import { ToolRunner } from '../../src/tools/invoke.ts';
import { createLogger } from '../../src/log.ts';
import { startWorker, type WorkerOptions } from '../../src/worker.ts';
import { eventAuditCheck, eventAuditMark, eventAuditSweep } from './event-audit.ts';
import { outputProblems } from './output-audit.ts';

export async function createTestDatabase(): Promise<string> {
  const adminUrl = inject('adminUrl');
  const name = `svc_t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${inject('templateDb')}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

export interface TestApp {
  app: FastifyInstance;
  pools: Pools;
  ownerUrl: string;
  keys: KeyAuthenticator;
  hub: EventHub;
  notifier: Notifier;
  /** Set when started with `worker`. */
  worker?: Runner;
  /** The attachment blob store (embedded in a temporary directory unless one was given). */
  blobs: BlobStore;
  /** Listens on a real port (for clients that need HTTP, e.g. the MCP SDK). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  rateLimits?: { rpc: number; rest: number };
  /** Run a Graphile Worker in this process too (webhook deliveries). Egress to loopback is allowed. */
  worker?: Partial<WorkerOptions>;
  hub?: HubOptions;
  /** Share an existing test database (a second API process on the same data). */
  ownerUrl?: string;
  /** Mount POST /graphql and GET /graphiql. */
  graphql?: boolean;
  /** Attachment blob store; default: the embedded store in a fresh temporary directory. */
  blobs?: BlobStore;
  /** Event streams per key / per workspace (default as the service's: 20 / 200). */
  streamLimits?: { perKey: number; perWorkspace: number };
}

export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const ownerUrl = opts.ownerUrl ?? await createTestDatabase();
  const pools = createPools(ownerUrl, { apiMax: 5, ownerMax: opts.worker ? 10 : 3 });
  const notifier = new Notifier(ownerUrl);
  await notifier.start();
  const keys = new KeyAuthenticator(pools.api, pools.owner);
  notifier.on('svc_keys', (id: string) => keys.forget(id));
  notifier.on('connected', () => keys.forgetAll());
  const hub = new EventHub(pools.api, notifier, opts.hub);
  const tmpDir = opts.blobs ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'svc-blobs-'));
  const blobs = opts.blobs ?? new EmbeddedBlobStore({ dataDir: tmpDir!, publicUrl: 'http://127.0.0.1:1' });
  const { app } = buildApp({
    ownerPool: pools.owner, keys, runner: new ToolRunner(pools.api, { blobs, allowPrivateEgress: true }), blobs,
    rateLimits: opts.rateLimits ?? { rpc: 0, rest: 0 }, apiPool: pools.api, logLevel: 'silent', events: hub,
    graphql: opts.graphql ? { pool: pools.api } : undefined, streamLimits: opts.streamLimits,
  });
  await app.ready();
  const worker = opts.worker
    ? await startWorker(pools.owner, { allowPrivate: true, concurrency: 4, pollInterval: 100, blobs, logger: createLogger('silent'), ...opts.worker })
    : undefined;
  return {
    app, pools, ownerUrl, keys, hub, notifier, worker, blobs,
    /** Listens on a free loopback port (once: later calls return the same URL). */
    async listen() {
      if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
      const addr = app.server.address() as { port: number };
      const url = `http://127.0.0.1:${addr.port}`;
      if (blobs instanceof EmbeddedBlobStore) blobs.setPublicUrl(url);
      return url;
    },
    async close() {
      await eventAuditSweep(ownerUrl); // SVC_EVENT_AUDIT: changes without an event made other than through rest()/rpc()
      await worker?.stop();
      await app.close();
      await hub.close();
      await keys.close();
      await notifier.close();
      await pools.end();
      if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}

/** Runs an operator command (same code path as `svc admin <name> --json`). */
export async function admin<T = any>(t: TestApp, command: string, flags: Flags): Promise<T> {
  const client = await t.pools.owner.connect();
  try {
    await client.query('begin');
    const result = await ADMIN_COMMANDS[command]!(client, flags);
    await client.query('commit');
    return result.json as T;
  } catch (err) {
    await client.query('rollback');
    throw err;
  } finally {
    client.release();
  }
}

let counter = 0;
export interface Workspace {
  id: string;
  key: string;
  ownerEmail: string;
  /** FULL-scope personal key of the owner. */
  token: string;
}

export async function createWorkspace(t: TestApp, key?: string): Promise<Workspace> {
  const wsKey = key ?? `W${(++counter).toString(36).toUpperCase()}${crypto.randomBytes(2).toString('hex').toUpperCase()}`;
  const ownerEmail = `owner-${wsKey.toLowerCase()}@example.com`;
  const r = await admin(t, 'create-workspace', { name: `Workspace ${wsKey}`, key: wsKey, 'owner-email': ownerEmail, json: true });
  return { id: r.workspace.id, key: r.workspace.key, ownerEmail, token: r.apiKey.rawKey };
}

/** The usual start of a test file: an app, the workspace under test and `other` for cross-tenant checks. */
export async function startWithWorkspaces(opts: TestAppOptions = {}): Promise<{ t: TestApp; ws: Workspace; other: Workspace }> {
  const t = await startTestApp(opts);
  return { t, ws: await createWorkspace(t), other: await createWorkspace(t) };
}

/** A project or label inserted directly (owner pool, no event), for tests of other tools. Returns its id. */
export async function insertProject(t: TestApp, w: Workspace, name: string): Promise<string> {
  const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [w.id, name]);
  return rows[0].id;
}
export async function insertLabel(t: TestApp, w: Workspace, name: string): Promise<string> {
  const { rows } = await t.pools.owner.query('insert into app_public.labels (workspace_id, name) values ($1, $2) returning id', [w.id, name]);
  return rows[0].id;
}

export async function createKey(
  t: TestApp, ws: Workspace,
  opts: { scopes?: KeyScope[]; agent?: string; projects?: string[]; labels?: string[]; initiatives?: string[]; kind?: string; user?: string; ttlHours?: number } = {},
): Promise<{ id: string; token: string }> {
  const flags: Flags = { workspace: ws.key, user: opts.user ?? ws.ownerEmail, scopes: (opts.scopes ?? ['FULL']).join(','), json: true };
  if (opts.agent) flags.agent = opts.agent;
  if (opts.projects) flags.projects = opts.projects.join(',');
  if (opts.labels) flags.labels = opts.labels.join(',');
  if (opts.initiatives) flags.initiatives = opts.initiatives.join(',');
  if (opts.kind) flags.kind = opts.kind;
  if (opts.ttlHours) flags['ttl-hours'] = String(opts.ttlHours);
  const r = await admin(t, 'create-key', flags);
  return { id: r.apiKey.id, token: r.apiKey.rawKey };
}

export async function createAgent(t: TestApp, ws: Workspace, profileKey: string, extra: Flags = {}) {
  const r = await admin(t, 'create-agent', { workspace: ws.key, 'profile-key': profileKey, name: profileKey, json: true, ...extra });
  return r.agent as { id: string; profileKey: string };
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

/** POST /api/mcp/<tool> (REST alias). */
export async function rest<T = any>(t: TestApp, token: string | undefined, tool: string, input?: unknown): Promise<CallResult<T>> {
  const mark = await eventAuditMark(t.ownerUrl);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/mcp/${tool}`,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: input === undefined ? '' : JSON.stringify(input),
  });
  const body = (res.body ? res.json() : undefined) as T;
  if (res.statusCode === 200) auditOutput(tool, body);
  // SVC_EVENT_AUDIT: a change this call made without writing its ActivityEvent (event-audit.ts).
  if (res.statusCode === 200) await eventAuditCheck(mark, tool, token, input, 'rest');
  return { status: res.statusCode, body, headers: res.headers };
}

/** Every 200 answer is what its tool's output schema declares, no more and no less (output-audit.ts). */
function auditOutput(tool: string, body: unknown): void {
  const undeclared = outputProblems(tool, body);
  if (!undeclared.length) return;
  if (process.env.SVC_OUTPUT_AUDIT) {
    fs.appendFileSync(process.env.SVC_OUTPUT_AUDIT, undeclared.map((f) => `${tool}\t${f}\n`).join(''));
    return;
  }
  throw new Error(`${tool}'s answer does not fit its declared output: ${undeclared.join(', ')}`);
}

/** Same as rest() but asserts 200 and returns the output. */
export async function ok<T = any>(t: TestApp, token: string, tool: string, input?: unknown): Promise<T> {
  const r = await rest<T>(t, token, tool, input);
  if (r.status !== 200) throw new Error(`${tool} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * Every item of a paged list tool, `limit` per page, following nextCursor until it is null. The loop as clients
 * write it: the first call sends `cursor: null`.
 */
export async function allPages<T = any>(t: TestApp, token: string, tool: string, input: object, limit: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: T[]; nextCursor: string | null } = await ok(t, token, tool, { ...input, limit, cursor });
    if (page.items.length > limit) throw new Error(`${tool}: ${page.items.length} items on a page of ${limit}`);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** The events of one subject (up to 200), oldest first. */
export async function subjectEvents(t: TestApp, token: string, subjectType: string, subjectId: string) {
  const r = await ok(t, token, 'events.recent', { subjectType, subjectId, limit: 200 });
  return (r.items as Array<{ id: string; kind: string; payload: any }>).reverse();
}

/** One JSON-RPC request to /api/mcp/rpc. */
export async function rpc<T = any>(t: TestApp, token: string | undefined, method: string, params?: unknown, query = ''): Promise<CallResult<T>> {
  const call = method === 'tools/call' && params && typeof params === 'object' ? params as { name?: unknown; arguments?: unknown } : undefined;
  const mark = call && typeof call.name === 'string' ? await eventAuditMark(t.ownerUrl) : undefined;
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/mcp/rpc${query}`,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  const body = (res.body ? res.json() : undefined) as T;
  // SVC_EVENT_AUDIT: a change this call made without writing its ActivityEvent (event-audit.ts).
  if (mark && res.statusCode === 200) await eventAuditCheck(mark, call!.name as string, token, call!.arguments, 'rpc');
  return { status: res.statusCode, body, headers: res.headers };
}
