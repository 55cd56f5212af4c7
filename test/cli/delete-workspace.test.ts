/**
 * svc admin delete-workspace: offboarding a tenant. An outside probe found no documented way to remove one, and a DBA's
 * `delete from app_public.workspaces` failed on the schema's own triggers (the rows deleted with it wrote events into a
 * sequence dropped with it). Everything of the workspace goes, nothing of another's; its keys stop and their streams end;
 * its files are deleted by the worker; people whose only workspace it was go too.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/flags.ts';
import { admin, createAgent, createKey, createWorkspace, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { seedBoardDemo } from '../support/board-demo.ts';
import { openSse } from '../support/sse.ts';
import { until } from '../support/until.ts';

const run = promisify(execFile);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-delete-ws-'));

let t: TestApp;
let url: string;
let leaving: Workspace;
let staying: Workspace;
beforeAll(async () => {
  t = await startTestApp({ worker: {} });
  url = await t.listen();
  leaving = await createWorkspace(t, 'GONE');
  staying = await createWorkspace(t, 'STAY');
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Tables of ours with a workspace_id column, and how many of their rows name the workspace. */
async function rowsOf(workspaceId: string): Promise<Record<string, number>> {
  const { rows: tables } = await t.pools.owner.query<{ t: string }>(
    `select format('%I.%I', c.table_schema, c.table_name) as t from information_schema.columns c
     join information_schema.tables tb on tb.table_schema = c.table_schema and tb.table_name = c.table_name and tb.table_type = 'BASE TABLE'
     where c.column_name = 'workspace_id' and c.table_schema in ('app_public', 'app_private') order by 1`);
  const counts: Record<string, number> = {};
  for (const { t: table } of tables) {
    const { rows } = await t.pools.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where workspace_id = $1`, [workspaceId]);
    if (rows[0]!.n > 0) counts[table] = rows[0]!.n;
  }
  return counts;
}

describe('svc admin delete-workspace', () => {
  it('deletes the workspace and everything in it, its files and its only-here people; another workspace keeps all of its own', async () => {
    // A body of work: projects, labels, a cycle, issues, an agent at work (run, usage, status comment), relations, a
    // link, a poll (board-demo), then a file, chat, notes, pins, time, a webhook, a dispatch rule, a second member who
    // also belongs to the staying workspace and one who belongs nowhere else.
    await createAgent(t, leaving, 'coder');
    const agentKey = await createKey(t, leaving, { agent: 'coder' });
    const demo = await seedBoardDemo((token, tool, input) => ok(t, token, tool, input), leaving.token, agentKey.token, 'coder');
    const issue = (await ok(t, leaving.token, 'issues.list', { limit: 1 })).items[0];
    const bytes = crypto.randomBytes(2048);
    const up = await ok(t, leaving.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'f.bin', mimeType: 'application/octet-stream', sizeBytes: bytes.length });
    const file = path.join(tmp, 'f.bin');
    fs.writeFileSync(file, bytes);
    await run('curl', ['-sS', '-f', '-o', '/dev/null', '-T', file, up.uploadUrl]);
    await ok(t, leaving.token, 'attachments.finalize', { key: up.key });
    expect(await t.blobs.size(up.key)).toBe(bytes.length);
    await ok(t, leaving.token, 'notes.create', { body: 'private' });
    await ok(t, leaving.token, 'pins.set', { issueIds: [issue.id] });
    await ok(t, leaving.token, 'time.start', { issueId: demo.search.id });
    await ok(t, leaving.token, 'webhooks.create', { url: 'http://127.0.0.1:1/hook' });
    await admin(t, 'create-dispatch-rule', { workspace: leaving.key, target: 'coder', priority: 'URGENT', json: true });
    await admin(t, 'open-chat', { workspace: leaving.key, agent: 'coder', user: leaving.ownerEmail, message: 'hello', json: true });
    await admin(t, 'add-member', { workspace: leaving.key, email: 'both@example.com', role: 'MEMBER' });
    await admin(t, 'add-member', { workspace: staying.key, email: 'both@example.com', role: 'MEMBER' });
    await admin(t, 'add-member', { workspace: leaving.key, email: 'only-here@example.com', role: 'ADMIN' });
    const stayingIssue = await ok(t, staying.token, 'issues.create', { title: 'Stays' });
    const before = await rowsOf(leaving.id);
    expect(Object.keys(before).length).toBeGreaterThan(20);
    const stayingBefore = await rowsOf(staying.id);

    // A stream open with the workspace's key ends when the key goes with the workspace.
    const stream = await openSse(url, leaving.token);
    expect(stream.status).toBe(200);

    // The key again, to confirm: another word deletes nothing.
    await expect(admin(t, 'delete-workspace', { workspace: leaving.key, confirm: 'STAY', json: true })).rejects.toThrow(UsageError);
    // (The worker keeps trying the webhook meanwhile: its deliveries and attempts move on their own.)
    const settled = ({ 'app_public.webhook_deliveries': _d, 'app_public.webhook_delivery_attempts': _a, 'app_public.activity_events': _e, ...rest }: Record<string, number>) => rest;
    expect(settled(await rowsOf(leaving.id))).toEqual(settled(before));

    const out = await admin(t, 'delete-workspace', { workspace: leaving.key, confirm: leaving.key.toLowerCase(), json: true });
    expect(out).toMatchObject({
      workspace: { id: leaving.id, key: leaving.key },
      deleted: { issues: before['app_public.issues'], comments: before['app_public.comments'], files: 1, users: ['only-here@example.com', leaving.ownerEmail].sort() },
    });
    expect(out.deleted.events).toBeGreaterThanOrEqual(before['app_public.activity_events']!);

    // Nothing of it is left in any table; its key is refused; its stream ended; its file's bytes go with the worker.
    expect(await rowsOf(leaving.id)).toEqual({});
    const { rows: people } = await t.pools.owner.query('select email from app_public.users where email = any($1) order by email',
      [['both@example.com', 'only-here@example.com', leaving.ownerEmail]]);
    expect(people.map((p: { email: string }) => p.email)).toEqual(['both@example.com']);
    expect((await rest(t, leaving.token, 'issues.list', {})).status).toBe(401);
    expect((await rest(t, agentKey.token, 'agents.heartbeat', { status: 'ONLINE' })).status).toBe(401);
    await stream.ended;
    await until(() => t.blobs.size(up.key), (size) => size === null);
    // The sequences went with it.
    const { rows: seqs } = await t.pools.owner.query(
      `select c.relname from pg_class c where c.relkind = 'S' and c.relname like '%' || replace($1::text, '-', '') || '%'`, [leaving.id]);
    expect(seqs).toEqual([]);

    // The other workspace has every row it had, and works.
    expect(settled(await rowsOf(staying.id))).toEqual(settled(stayingBefore));
    expect((await ok(t, staying.token, 'issues.get', { id: stayingIssue.id })).title).toBe('Stays');
    await ok(t, staying.token, 'issues.create', { title: 'Still writing' });
  });

  it('a workspace that does not exist is a usage mistake naming the flag; a DBA\'s DELETE of the row works too', async () => {
    await expect(admin(t, 'delete-workspace', { workspace: 'NOPE', confirm: 'NOPE', json: true })).rejects.toMatchObject({ status: 404 });
    const plain = await createWorkspace(t, 'DBA');
    await ok(t, plain.token, 'issues.create', { title: 'x' });
    await createAgent(t, plain, 'bot');
    await t.pools.owner.query('delete from app_public.workspaces where id = $1', [plain.id]);
    expect(await rowsOf(plain.id)).toEqual({});
  });
});
