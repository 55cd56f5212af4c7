import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerValues } from '../../src/db/as-caller.ts';
import { admin, createKey, createWorkspace, ok, rest, rpc, startTestApp, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

describe('authentication (spec part 5)', () => {
  it('a missing token is 401', async () => {
    const r = await rest(t, undefined, 'workspace.get', {});
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid');
    expect((await rpc(t, undefined, 'tools/list')).status).toBe(401);
  });

  it('an unknown or malformed token is 401 invalid', async () => {
    expect((await rest(t, 'svc_sk_' + 'x'.repeat(43), 'workspace.get', {})).body).toMatchObject({ error: 'invalid' });
    expect((await rest(t, 'not-a-key', 'workspace.get', {})).body).toMatchObject({ error: 'invalid' });
  });

  it('a revoked key is 401 revoked on its very next call, over REST and MCP', async () => {
    const key = await createKey(t, ws);
    expect((await rest(t, key.token, 'workspace.get', {})).status).toBe(200); // now cached
    await admin(t, 'revoke-key', { id: key.id, json: true });
    const r = await rest(t, key.token, 'workspace.get', {});
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('revoked');
    const m = await rpc(t, key.token, 'tools/list');
    expect(m.status).toBe(401);
    // On the MCP endpoint the same rejection is a JSON-RPC error envelope (issue 9).
    expect(m.body.error.data).toMatchObject({ error: 'revoked', status: 401 });
  });

  it('the database takes a call\'s identity from its key\'s row, whose identity never changes; an unknown key id is refused', async () => {
    const label = (await ok(t, ws.token, 'labels.create', { name: 'only-this' })).id;
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES'], labels: [label] });
    const caller = await t.keys.authenticate(`Bearer ${narrowed.token}`);
    const identity = async (values: unknown[]) => (await t.pools.api.query(
      `select identity.key_id as k, app_hidden.current_workspace_id() as w, current_setting('svc.user_id') as u,
              current_setting('svc.scopes') as s, current_setting('svc.label_ids') as l, current_setting('svc.project_ids') as p
       from (select app_hidden.set_request_context($1) as key_id) as identity`, values)).rows[0];
    expect(await identity(callerValues(caller, []))).toEqual({ k: narrowed.id, w: ws.id, u: caller.userId, s: '{READ_ISSUES}', l: `{${label}}`, p: '{}' });
    // API processes and their open streams keep the row they authenticated: the row's identity is never edited (a key
    // is rotated), so the call and the process cannot disagree. Not even by the schema owner.
    for (const change of ["label_ids = '{}'", `project_ids = '{${ws.id}}'`, "scopes = '{FULL}'", 'user_id = null', "kind = 'SESSION'"]) {
      await expect(t.pools.owner.query(`update app_private.api_keys set ${change} where id = $1`, [narrowed.id]), change)
        .rejects.toMatchObject({ code: 'SV409' });
    }
    expect(await identity(callerValues(caller, []))).toMatchObject({ s: '{READ_ISSUES}', l: `{${label}}`, p: '{}' });
    await t.pools.owner.query('update app_private.api_keys set last_used_at = now() where id = $1', [narrowed.id]); // the rest may change
    await expect(identity([crypto.randomUUID()])).rejects.toMatchObject({ code: 'SV401' });
  });

  it('an expired key is 401 expired', async () => {
    const key = await createKey(t, ws, { kind: 'SESSION', ttlHours: 1 });
    expect((await rest(t, key.token, 'workspace.get', {})).status).toBe(200);
    await t.pools.owner.query(`update app_private.api_keys set expires_at = now() - interval '1 second' where id = $1`, [key.id]);
    const r = await rest(t, key.token, 'workspace.get', {});
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('expired');
  });

  it('checks in order invalid → revoked → expired', async () => {
    const key = await createKey(t, ws, { kind: 'SESSION', ttlHours: 1 });
    await t.pools.owner.query(`update app_private.api_keys set expires_at = now() - interval '1 hour', revoked_at = now() where id = $1`, [key.id]);
    t.keys.forget(key.id);
    expect((await rest(t, key.token, 'workspace.get', {})).body.error).toBe('revoked');
  });

  it('stores only the SHA-256 and a 14-character prefix', async () => {
    const key = await createKey(t, ws);
    const { rows } = await t.pools.owner.query('select * from app_private.api_keys where id = $1', [key.id]);
    const row = rows[0];
    expect(row.prefix).toBe(key.token.slice(0, 14));
    expect(row.token_hash.length).toBe(32);
    expect(JSON.stringify(row)).not.toContain(key.token.slice(14));
    expect(key.token).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
  });

  it('bumps lastUsedAt in batches, not on every call', async () => {
    const key = await createKey(t, ws);
    await rest(t, key.token, 'workspace.get', {});
    const before = await t.pools.owner.query('select last_used_at from app_private.api_keys where id = $1', [key.id]);
    expect(before.rows[0].last_used_at).toBeNull();
    await t.keys.flushLastUsed();
    const after = await t.pools.owner.query('select last_used_at from app_private.api_keys where id = $1', [key.id]);
    expect(after.rows[0].last_used_at).toBeInstanceOf(Date);
  });

  it("lastUsedAt is the time of the use, not of the batch's write: never after a revocation that followed the use", async () => {
    const key = await createKey(t, ws);
    const usedBy = Date.now();
    await rest(t, key.token, 'workspace.get', {});
    const usedUntil = Date.now();
    await new Promise((r) => setTimeout(r, 50));
    await t.pools.owner.query('select app_private.revoke_api_key($1)', [key.id]);
    await new Promise((r) => setTimeout(r, 50));
    await t.keys.flushLastUsed();
    const { rows: [k] } = await t.pools.owner.query('select last_used_at, revoked_at from app_private.api_keys where id = $1', [key.id]);
    expect(k.last_used_at.getTime()).toBeGreaterThanOrEqual(usedBy - 1);
    expect(k.last_used_at.getTime()).toBeLessThanOrEqual(usedUntil);
    expect(k.last_used_at.getTime()).toBeLessThan(k.revoked_at.getTime());
  });

  it('a key of one workspace never sees another workspace', async () => {
    const other = await createWorkspace(t);
    const created = await rest(t, other.token, 'issues.create', { title: 'secret of the other workspace' });
    expect(created.status).toBe(200);
    expect((await rest(t, ws.token, 'workspace.get', {})).body.id).toBe(ws.id);
    expect((await rest(t, ws.token, 'issues.get', { id: created.body.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.get', { id: created.body.key })).status).toBe(404);
    const list = await rest(t, ws.token, 'issues.list', {});
    expect(list.body.items.map((i: { id: string }) => i.id)).not.toContain(created.body.id);
    const events = await rest(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: created.body.id });
    expect(events.status).toBe(404);
    const all = await rest(t, ws.token, 'events.recent', { limit: 200 });
    expect(JSON.stringify(all.body)).not.toContain(created.body.id);
    const statuses = await rest(t, ws.token, 'statuses.list', {});
    const otherStatuses = await rest(t, other.token, 'statuses.list', {});
    expect(statuses.body.map((s: { id: string }) => s.id)).not.toContain(otherStatuses.body[0].id);
    // Another workspace's status cannot be used either.
    const cross = await rest(t, ws.token, 'issues.create', { title: 'x', statusId: otherStatuses.body[0].id });
    expect(cross.status).toBe(404);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After past the per-key limit', async () => {
    const limited = await startTestApp({ rateLimits: { rpc: 2, rest: 2 } });
    try {
      const w = await createWorkspace(limited);
      expect((await rest(limited, w.token, 'workspace.get', {})).status).toBe(200);
      expect((await rest(limited, w.token, 'workspace.get', {})).status).toBe(200);
      const r = await rest(limited, w.token, 'workspace.get', {});
      expect(r.status).toBe(429);
      expect(r.body.error).toBe('rate_limited');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
