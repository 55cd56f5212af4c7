/**
 * Webhook registration as tools: webhooks.create/update/delete/rotateSecret/test over the in-app procedures
 * (OWNER/ADMIN with the ADMIN scope, key without narrowing), the same URL checks as GraphQL and the CLI, the
 * secret only in the create and rotate answers, WEBHOOK_* events without secret nor URL path, and a test
 * delivery that a real receiver gets signed like any other.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { ToolRunner } from '../../src/tools/invoke.ts';
import { gql } from '../support/graphql.ts';
import { admin, createKey, createWorkspace, insertProject, ok, rest, rpc, startWithWorkspaces, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let receiver: Receiver;
let member: { token: string };
let noAdminScope: { token: string };
let narrowed: { token: string };

beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces({ graphql: true, worker: { backoffSeconds: [0.1, 0.1], timeoutMs: 2000 } }));
  receiver = await startReceiver();
  await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
  member = await createKey(t, ws, { user: 'member@example.com' });
  noAdminScope = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'READ_USERS'] });
  narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Narrow')] });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});
afterEach(() => { process.env.SVC_EGRESS_ALLOW_PRIVATE = '1'; });

const deliveriesOf = async (webhookId: string) =>
  (await t.pools.owner.query('select d.*, e.kind from app_public.webhook_deliveries d join app_public.activity_events e on e.id = d.event_id where d.webhook_id = $1 order by d.created_at', [webhookId])).rows;

describe('webhooks.create', () => {
  it('registers a webhook; the secret is in this answer only; WEBHOOK_CREATED carries the id and active flag, never the URL, its host, the filter or the secret', async () => {
    const made = await ok(t, ws.token, 'webhooks.create', {
      url: 'https://Hooks.Example.com:8443/in/path?token=abc', events: ['ISSUE_CREATED', 'ISSUE_CREATED', 'COMMENT_CREATED'], description: 'CI',
    });
    expect(made).toMatchObject({ url: 'https://Hooks.Example.com:8443/in/path?token=abc', events: ['COMMENT_CREATED', 'ISSUE_CREATED'], active: true, description: 'CI', secret: expect.stringMatching(/^whsec_/) });
    const got = await ok(t, ws.token, 'webhooks.get', { id: made.id });
    expect(got).not.toHaveProperty('secret');
    expect(JSON.stringify(await ok(t, ws.token, 'webhooks.list', {}))).not.toContain(made.secret);
    const [ev, ...more] = await subjectEvents(t, ws.token, 'webhook', made.id);
    expect(more).toEqual([]);
    expect(ev).toMatchObject({ kind: 'WEBHOOK_CREATED', payload: { webhookId: made.id, active: true } });
    // Every key of the workspace reads it: nothing of the URL, nor the filter (admins read them with webhooks.get).
    expect(Object.keys(ev!.payload).sort()).toEqual(['active', 'webhookId']);
    expect(JSON.stringify(ev)).not.toMatch(/whsec_|token=abc|\/in\/path|example/i);
    // Over JSON-RPC too: the secret is in the answer.
    const r = await rpc(t, ws.token, 'tools/call', { name: 'webhooks.create', arguments: { url: 'https://hooks.example.com/rpc' } });
    expect(r.body.result.structuredContent).toMatchObject({ events: [], secret: expect.stringMatching(/^whsec_/) });
  });

  it('refuses bad input with 400 naming the field (the SQL checks of every path), and writes nothing', async () => {
    const before = (await ok(t, ws.token, 'webhooks.list', {})).items.length;
    expect400(await rest(t, ws.token, 'webhooks.create', { url: 'ftp://hooks.example.com/x' }), 'url');
    expect400(await rest(t, ws.token, 'webhooks.create', { url: 'not a url' }), 'url');
    expect400(await rest(t, ws.token, 'webhooks.create', { url: '' }), 'url');
    expect400(await rest(t, ws.token, 'webhooks.create', { url: `https://hooks.example.com/${'x'.repeat(2048)}` }), 'url');
    expect400(await rest(t, ws.token, 'webhooks.create', { url: 'https://hooks.example.com/x', events: ['NOT_A_KIND'] }), 'events');
    expect400(await rest(t, ws.token, 'webhooks.create', { url: 'https://hooks.example.com/x', description: 'd'.repeat(501) }), 'description');
    expect400(await rest(t, ws.token, 'webhooks.create', { url: 'https://hooks.example.com/x', secret: 'mine' }), 'secret');
    expect400(await rest(t, ws.token, 'webhooks.create', {}), 'url');
    const creds = await rest(t, ws.token, 'webhooks.create', { url: 'https://user:pw@hooks.example.com/x' });
    expect400(creds, 'url');
    expect(creds.body.issues.url).toContain('credentials');
    expect((await ok(t, ws.token, 'webhooks.list', {})).items).toHaveLength(before);
  });

  it('refuses a private target exactly as the GraphQL mutation does (unless the server allows private egress)', async () => {
    // A runner of a server without SVC_EGRESS_ALLOW_PRIVATE (the test app's allows it, for its local receivers).
    const strict = new ToolRunner(t.pools.api, { allowPrivateEgress: false });
    const caller = await t.keys.authenticate(`Bearer ${ws.token}`);
    process.env.SVC_EGRESS_ALLOW_PRIVATE = '0';
    const gqlCreate = 'mutation($url: String!) { webhooksCreate(input: {url: $url}) { result } }';
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost./x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://10.1.2.3/x', 'https://a:b@hooks.example.com/x']) {
      const viaGraphql = (await gql(t, ws.token, gqlCreate, { url })).errors?.[0]?.extensions;
      expect(viaGraphql, url).toMatchObject({ code: 'invalid_input', status: 400 });
      const viaTool = await strict.call(caller, 'webhooks.create', { url }).then(() => undefined, (e: unknown) => e);
      expect(viaTool, url).toBeInstanceOf(ApiError);
      expect((viaTool as ApiError).status).toBe(400);
      expect((viaTool as ApiError).body).toMatchObject({ error: 'invalid_input', issues: viaGraphql!.issues });
      const upd = await strict.call(caller, 'webhooks.update', { id: crypto.randomUUID(), url }).then(() => undefined, (e: unknown) => e);
      expect((upd as ApiError).body.issues, url).toEqual(viaGraphql!.issues);
    }
    const { rows } = await t.pools.owner.query(`select count(*)::int as n from app_public.webhooks where url ~ '127\\.0\\.0\\.1:8080|localhost\\.|169\\.254|::1|10\\.1\\.2\\.3|@'`);
    expect(rows[0].n).toBe(0);
    // A public target passes the same runner.
    expect(JSON.parse(await strict.call(caller, 'webhooks.create', { url: 'https://93.184.215.14/hooks' })).secret).toMatch(/^whsec_/);
  });
});

describe('parallel registration changes', () => {
  it('ten webhooks deleted at once all go (each deletion is delivered to the others: they used to deadlock)', async () => {
    const hooks = [];
    for (let i = 0; i < 10; i++) hooks.push(await ok(t, other.token, 'webhooks.create', { url: `https://parallel-${i}.example.com/in` }));
    // A backlog: every event of the workspace is a pending delivery to each of them.
    await ok(t, other.token, 'issues.createMany', { items: Array.from({ length: 50 }, (_, i) => ({ title: `Backlog ${i}` })) });
    const answers = await Promise.all(hooks.map((h) => rest(t, other.token, 'webhooks.delete', { id: h.id })));
    expect(answers.map((r) => r.status)).toEqual(hooks.map(() => 200));
    expect((await ok(t, other.token, 'webhooks.list', {})).items.filter((w: any) => w.url.includes('parallel-'))).toEqual([]);
  });
});

describe('limit', () => {
  it('a workspace has at most 50 webhooks: the 51st is 409 webhook_limit, on the tool and the operator CLI alike', async () => {
    const w = await createWorkspace(t);
    // 49 registered directly (no events, no deliveries), then the 50th through the tool.
    await t.pools.owner.query(`insert into app_public.webhooks (workspace_id, url) select $1, 'https://limit-' || g || '.example.com/in' from generate_series(1, 49) g`, [w.id]);
    await ok(t, w.token, 'webhooks.create', { url: 'https://limit-50.example.com/in' });
    const r = await rest(t, w.token, 'webhooks.create', { url: 'https://limit-51.example.com/in' });
    expect([r.status, r.body.error]).toEqual([409, 'webhook_limit']);
    await expect(admin(t, 'create-webhook', { workspace: w.key, url: 'https://limit-52.example.com/in' })).rejects.toThrow(/at most 50 webhooks/);
    const { rows } = await t.pools.owner.query('select count(*)::int as n from app_public.webhooks where workspace_id = $1', [w.id]);
    expect(rows[0].n).toBe(50);
  });
});

describe('who may', () => {
  it('a MEMBER (admin_required), a key without ADMIN (scope_required) and a narrowed key (narrowing) are refused by every tool', async () => {
    const hook = await ok(t, ws.token, 'webhooks.create', { url: 'https://hooks.example.com/guarded' });
    const calls: Array<[string, object]> = [
      ['webhooks.create', { url: 'https://hooks.example.com/mine' }],
      ['webhooks.update', { id: hook.id, url: 'https://hooks.example.com/mine' }],
      ['webhooks.delete', { id: hook.id }],
      ['webhooks.rotateSecret', { id: hook.id }],
      ['webhooks.test', { id: hook.id }],
    ];
    for (const [tool, input] of calls) {
      expect((await rest(t, member.token, tool, input)).body, `${tool} as MEMBER`).toMatchObject({ error: 'admin_required' });
      expect((await rest(t, noAdminScope.token, tool, input)).body, `${tool} without ADMIN`).toMatchObject({ error: 'scope_required', scope: 'ADMIN' });
      const r = await rest(t, narrowed.token, tool, input);
      expect([r.status, r.body.error], `${tool} narrowed`).toEqual([403, 'narrowing']);
    }
    expect(await ok(t, ws.token, 'webhooks.get', { id: hook.id })).toMatchObject({ url: 'https://hooks.example.com/guarded', active: true });
    expect(await subjectEvents(t, ws.token, 'webhook', hook.id)).toHaveLength(1);
  });

  it('another workspace\'s webhook is 404 to every tool; a malformed id is 400', async () => {
    const hook = await ok(t, ws.token, 'webhooks.create', { url: 'https://hooks.example.com/theirs' });
    for (const [tool, input] of [
      ['webhooks.update', { id: hook.id, active: false }], ['webhooks.delete', { id: hook.id }],
      ['webhooks.rotateSecret', { id: hook.id }], ['webhooks.test', { id: hook.id }],
    ] as Array<[string, object]>) {
      expect((await rest(t, other.token, tool, input)).status, tool).toBe(404);
      expect((await rest(t, ws.token, tool, { ...input, id: crypto.randomUUID() })).status, tool).toBe(404);
      expect400(await rest(t, ws.token, tool, { ...input, id: 'hook' }), 'id');
    }
    expect(await ok(t, ws.token, 'webhooks.get', { id: hook.id })).toMatchObject({ active: true });
  });
});

describe('webhooks.update / delete / rotateSecret', () => {
  it('update changes the fields given, with WEBHOOK_UPDATED naming them, not their values; nothing changed, no event', async () => {
    const hook = await ok(t, ws.token, 'webhooks.create', { url: 'https://one.example.com/a?k=1', events: ['ISSUE_CREATED'] });
    const moved = await ok(t, ws.token, 'webhooks.update', { id: hook.id, url: 'https://two.example.com/b?k=2', events: [] });
    expect(moved).toMatchObject({ id: hook.id, url: 'https://two.example.com/b?k=2', events: [], active: true });
    expect(moved).not.toHaveProperty('secret');
    const paused = await ok(t, ws.token, 'webhooks.update', { id: hook.id, active: false, description: 'paused' });
    expect(paused).toMatchObject({ active: false, description: 'paused', deactivatedReason: 'deactivated by an admin' });
    await ok(t, ws.token, 'webhooks.update', { id: hook.id, active: false });
    await ok(t, ws.token, 'webhooks.update', { id: hook.id });
    const events = (await subjectEvents(t, ws.token, 'webhook', hook.id)).slice(1);
    expect(events.map((e) => [e.kind, e.payload.changes, e.payload.active])).toEqual([
      ['WEBHOOK_UPDATED', ['url', 'events'], true],
      ['WEBHOOK_UPDATED', ['active', 'description'], false],
    ]);
    expect(JSON.stringify(events)).not.toMatch(/example|k=1|k=2|\/a|\/b|whsec_|paused/);
    expect400(await rest(t, ws.token, 'webhooks.update', { id: hook.id, url: 'gopher://x' }), 'url');
    expect400(await rest(t, ws.token, 'webhooks.update', { id: hook.id, events: ['NOPE'] }), 'events');
    expect400(await rest(t, ws.token, 'webhooks.update', { id: hook.id, active: 'no' }), 'active');
  });

  it('rotateSecret answers a new secret once (WEBHOOK_UPDATED changes secret, without it); delete removes it (WEBHOOK_DELETED)', async () => {
    const hook = await ok(t, ws.token, 'webhooks.create', { url: 'https://rotate.example.com/in' });
    const rotated = await ok(t, ws.token, 'webhooks.rotateSecret', { id: hook.id });
    expect(rotated).toEqual({ id: hook.id, secret: expect.stringMatching(/^whsec_/), previousSecretValidUntil: expect.any(String) });
    expect(rotated.secret).not.toBe(hook.secret);
    const secrets = async () => (await t.pools.owner.query(
      `select secret, previous_secret, round(extract(epoch from previous_secret_expires_at - now()) / 3600) as hours
       from app_private.webhook_secrets where webhook_id = $1`, [hook.id])).rows[0];
    // The old secret keeps signing for 24 h by default (receivers switch without losing deliveries); 0 ends it at once.
    expect(await secrets()).toEqual({ secret: rotated.secret, previous_secret: hook.secret, hours: '24' });
    const now = await ok(t, ws.token, 'webhooks.rotateSecret', { id: hook.id, keepPreviousHours: 0 });
    expect(now.previousSecretValidUntil).toBeNull();
    expect(await secrets()).toEqual({ secret: now.secret, previous_secret: null, hours: null });
    expect400(await rest(t, ws.token, 'webhooks.rotateSecret', { id: hook.id, keepPreviousHours: 169 }), 'keepPreviousHours');
    // A pending delivery goes with the webhook (docs/decisions.md: it names the URL and was signed with the secret).
    await ok(t, ws.token, 'issues.create', { title: 'Delivered to the rotated webhook' });
    expect((await deliveriesOf(hook.id)).length).toBeGreaterThan(0);
    expect(await ok(t, ws.token, 'webhooks.delete', { id: hook.id })).toEqual({ id: hook.id, deleted: true });
    expect(await deliveriesOf(hook.id)).toEqual([]);
    expect((await rest(t, ws.token, 'webhooks.get', { id: hook.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'webhooks.delete', { id: hook.id })).status).toBe(404);
    const events = await subjectEvents(t, ws.token, 'webhook', hook.id);
    expect(events.map((e) => [e.kind, e.payload.changes])).toEqual([['WEBHOOK_CREATED', undefined], ['WEBHOOK_UPDATED', ['secret']],
      ['WEBHOOK_UPDATED', ['secret']], ['WEBHOOK_DELETED', undefined]]);
    expect(events[3]!.payload).toEqual({ webhookId: hook.id, active: true });
    expect(JSON.stringify(events)).not.toContain('whsec_');
    // No secret in any event of the workspace, nor in any delivery listing.
    const all = await ok(t, ws.token, 'events.recent', { limit: 200 });
    expect(JSON.stringify(all)).not.toContain('whsec_');
    expect(JSON.stringify(await ok(t, ws.token, 'webhooks.listDeliveries', { limit: 200 }))).not.toContain('whsec_');
  });
});

describe('events reach the other webhooks, not the subject', () => {
  it('a catch-all webhook receives WEBHOOK_CREATED of a new one; the new one does not receive its own creation', async () => {
    const w = other;
    const watcher = await ok(t, w.token, 'webhooks.create', { url: `${receiver.url}/watcher` });
    const newcomer = await ok(t, w.token, 'webhooks.create', { url: `${receiver.url}/newcomer?token=s3cret` });
    const [req] = (await receiver.waitFor((rs) => rs.some((r) => r.url === '/watcher'))).filter((r) => r.url === '/watcher');
    const body = JSON.parse(req!.body);
    expect(body).toMatchObject({ kind: 'WEBHOOK_CREATED', subjectType: 'webhook', subjectId: newcomer.id, payload: { webhookId: newcomer.id, active: true } });
    expect(req!.body).not.toContain('s3cret');
    expect(new Webhook(watcher.secret).verify(req!.body, req!.headers)).toEqual(body);
    expect(await deliveriesOf(newcomer.id)).toEqual([]);
    await ok(t, w.token, 'webhooks.delete', { id: newcomer.id });
    await ok(t, w.token, 'webhooks.delete', { id: watcher.id });
  });
});

describe('webhooks.test', () => {
  it('queues one WEBHOOK_TESTED delivery to that webhook only, signed like every delivery, listed by listDeliveries', async () => {
    const target = await ok(t, ws.token, 'webhooks.create', { url: `${receiver.url}/tested`, events: ['ISSUE_CREATED'] });
    const bystander = await ok(t, ws.token, 'webhooks.create', { url: `${receiver.url}/bystander` });
    const queued = await ok(t, ws.token, 'webhooks.test', { id: target.id });
    expect(queued).toMatchObject({ webhookId: target.id, eventKind: 'WEBHOOK_TESTED', channel: `webhook:${target.id}`, status: 'PENDING' });
    const [req] = (await receiver.waitFor((rs) => rs.some((r) => r.url === '/tested'))).filter((r) => r.url === '/tested');
    const body = JSON.parse(req!.body);
    expect(body).toMatchObject({ id: queued.eventId, kind: 'WEBHOOK_TESTED', subjectId: target.id, payload: { test: true, webhookId: target.id } });
    expect(req!.headers['x-svc-event']).toBe('WEBHOOK_TESTED');
    expect(new Webhook(target.secret).verify(req!.body, req!.headers)).toEqual(body);
    const listed = await until(() => ok(t, ws.token, 'webhooks.listDeliveries', { webhookId: target.id }),
      (p) => p.items[0]?.status === 'DELIVERED');
    expect(listed.items.map((d: { id: string; eventKind: string }) => [d.id, d.eventKind])).toEqual([[queued.id, 'WEBHOOK_TESTED']]);
    // The catch-all bystander got nothing of it; the test is in the audit trail.
    expect((await deliveriesOf(bystander.id)).map((d) => d.kind)).not.toContain('WEBHOOK_TESTED');
    expect((await subjectEvents(t, ws.token, 'webhook', target.id)).map((e) => e.kind)).toEqual(['WEBHOOK_CREATED', 'WEBHOOK_TESTED']);

    await ok(t, ws.token, 'webhooks.update', { id: target.id, active: false });
    const r = await rest(t, ws.token, 'webhooks.test', { id: target.id });
    expect([r.status, r.body.error]).toEqual([409, 'webhook_inactive']);
    await ok(t, ws.token, 'webhooks.delete', { id: target.id });
    await ok(t, ws.token, 'webhooks.delete', { id: bystander.id });
  });
});
