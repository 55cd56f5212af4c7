/** GET /api/plugins/events with a real HTTP SSE client: live delivery, isolation, narrowing, resume, limits. */
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, insertLabel, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { callerValues } from '../../src/db/as-caller.ts';
import { openSse, type SseClient, type SseMessage } from '../support/sse.ts';
import { until } from '../support/until.ts';

let t: TestApp;
let url: string;
let ws: Workspace;
let subscriber: { id: string; token: string };
const open: SseClient[] = [];

async function sse(token: string, opts: { lastEventId?: string } = {}) {
  const c = await openSse(url, token, opts);
  open.push(c);
  return c;
}

/** Records an event as the owner would (no request identity), committed at once. */
async function recordEvent(w: Workspace, kind = 'AGENT_UPDATED', subjectType = 'agent', payload: object = {}): Promise<string> {
  const { rows } = await t.pools.owner.query('select app_private.record_event($1, $2, $3, null, $4) as id', [w.id, kind, subjectType, payload]);
  return rows[0].id;
}

/** The events' rows once the sequencer has given each its stream position (it runs moments after commit). */
async function sequenced(ids: string[]): Promise<Record<string, any>> {
  const rows = await until(
    async () => (await t.pools.owner.query('select id, seq, stream_pos from app_public.activity_events where id = any($1)', [ids])).rows,
    (rs) => rs.length === ids.length && rs.every((r) => r.stream_pos !== null), 2000);
  return Object.fromEntries(rows.map((r) => [r.id, r]));
}

const data = (m: SseMessage) => JSON.parse(m.data);
const storedIds = (c: SseClient) => c.messages.filter((m) => m.id).map((m) => m.id);

beforeAll(async () => {
  t = await startTestApp({ hub: { heartbeatMs: 300, replayLimit: 20 } });
  url = await t.listen();
  ws = await createWorkspace(t);
  subscriber = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS'] });
});
afterAll(async () => {
  for (const c of open) c.close();
  await t.close();
});

describe('access', () => {
  it('needs a valid key (401) with SUBSCRIBE_EVENTS (403 scope_required)', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/plugins/events' });
    expect(none.statusCode).toBe(401);
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'ADMIN'] });
    const denied = await t.app.inject({ method: 'GET', url: '/api/plugins/events', headers: { authorization: `Bearer ${reader.token}` } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ error: 'scope_required', scope: 'SUBSCRIBE_EVENTS' });
  });

  it('takes no filters: a query parameter other than lastEventId is a 400 naming it (?kinds= was ignored and streamed everything)', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/plugins/events?kinds=ISSUE_CREATED&subjectType=comment', headers: { authorization: `Bearer ${ws.token}` } });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ error: 'invalid_input', issues: { kinds: expect.stringContaining('lastEventId'), subjectType: expect.any(String) } });
  });

  it('answers with an event stream and heartbeats', async () => {
    const c = await sse(subscriber.token);
    expect(c.status).toBe(200);
    await c.waitForComment((x) => x === 'heartbeat', 3000);
    c.close();
  });

  it('uses the spec heartbeat interval by default', async () => {
    const { EventHub } = await import('../../src/events/hub.ts');
    const hub = new EventHub(t.pools.api, t.notifier);
    expect((hub as unknown as { opts: { heartbeatMs: number } }).opts.heartbeatMs).toBe(25_000);
    await hub.close();
  });
});

describe('live delivery', () => {
  it('delivers a committed event within 1 s, as an SSE frame with id, event name and the spec fields', async () => {
    const c = await sse(subscriber.token);
    await c.waitForComment((x) => x === 'connected');
    const before = performance.now();
    const issue = await ok(t, ws.token, 'issues.create', { title: 'streamed' });
    const committed = performance.now();
    const m = await c.waitFor((x) => data(x).subjectId === issue.id, 1000);
    expect(m.at - committed).toBeLessThan(1000);
    expect(m.at).toBeGreaterThan(before);
    expect(m.event).toBe('message');
    const event = data(m);
    expect(m.id).toBe(event.id);
    expect(Object.keys(event).sort()).toEqual(['createdAt', 'id', 'kind', 'payload', 'subjectId', 'subjectType']);
    expect(event).toMatchObject({ kind: 'ISSUE_CREATED', subjectType: 'issue', subjectId: issue.id, payload: { key: issue.key } });
    const recent = await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id });
    expect(recent.items[0].id).toBe(event.id);
    // An issue subject by key too, as every issue tool takes it; any other subject is an id.
    expect((await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.key })).items.map((e: any) => e.id)).toEqual(recent.items.map((e: any) => e.id));
    expect((await rest(t, ws.token, 'events.recent', { subjectType: 'comment', subjectId: issue.key })).body.issues).toHaveProperty('subjectId');
    c.close();
  });

  it('never sends a rolled-back event, and keeps commit order', async () => {
    const c = await sse(subscriber.token);
    await c.waitForComment((x) => x === 'connected');
    const client = await t.pools.owner.connect();
    try {
      await client.query('begin');
      await client.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{"rolledBack":true}')`, [ws.id]);
      await client.query('rollback');
    } finally {
      client.release();
    }
    const ids = [await recordEvent(ws), await recordEvent(ws), await recordEvent(ws)];
    await c.waitFor((m) => m.id === ids[2]);
    expect(storedIds(c)).toEqual(ids);
    expect(c.messages.some((m) => data(m).payload.rolledBack)).toBe(false);
    c.close();
  });

  it("never delivers another workspace's events", async () => {
    const other = await createWorkspace(t);
    const c = await sse(subscriber.token);
    await c.waitForComment((x) => x === 'connected');
    const foreign = await recordEvent(other);
    await ok(t, other.token, 'issues.create', { title: 'elsewhere' });
    const sentinel = await recordEvent(ws);
    await c.waitFor((m) => m.id === sentinel);
    expect(storedIds(c)).toEqual([sentinel]);
    expect(storedIds(c)).not.toContain(foreign);
    c.close();
  });

  it('gives a narrowed key issue events only for issues it can see (other subjects still arrive)', async () => {
    const { rows: [pa] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'A') returning id`, [ws.id]);
    const { rows: [pb] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'B') returning id`, [ws.id]);
    const narrowed = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS'], projects: [pa.id] });
    const n = await sse(narrowed.token);
    const full = await sse(subscriber.token);
    await n.waitForComment((x) => x === 'connected');
    await full.waitForComment((x) => x === 'connected');
    const inA = await ok(t, ws.token, 'issues.create', { title: 'in A', projectId: pa.id });
    const inB = await ok(t, ws.token, 'issues.create', { title: 'in B', projectId: pb.id });
    const loose = await ok(t, ws.token, 'issues.create', { title: 'no project' });
    const projectEvent = await recordEvent(ws); // an agent event: no narrowing applies to it
    await n.waitFor((m) => m.id === projectEvent);
    await full.waitFor((m) => m.id === projectEvent);
    const subjects = (c: SseClient) => c.messages.map((m) => data(m).subjectId);
    expect(subjects(n)).toContain(inA.id);
    expect(subjects(n)).not.toContain(inB.id);
    expect(subjects(n)).not.toContain(loose.id);
    expect(subjects(full)).toEqual(expect.arrayContaining([inA.id, inB.id, loose.id]));
    n.close();
    full.close();
  });

  it('a narrowed key hears the event of an issue leaving its view (project moved, label taken off), then nothing more of it', async () => {
    const { rows: [pa] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Leave A') returning id`, [ws.id]);
    const { rows: [pb] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Leave B') returning id`, [ws.id]);
    const label = await insertLabel(t, ws, 'leave-label');
    const byProject = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS', 'READ_ISSUES'], projects: [pa.id] });
    const byLabel = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS', 'READ_ISSUES'], labels: [label] });
    const moved = await ok(t, ws.token, 'issues.create', { title: 'moves to B', projectId: pa.id });
    const relabelled = await ok(t, ws.token, 'issues.create', { title: 'loses its label', projectId: pb.id, labelIds: [label] });
    const p = await sse(byProject.token);
    const l = await sse(byLabel.token);
    await p.waitForComment((x) => x === 'connected');
    await l.waitForComment((x) => x === 'connected');

    await ok(t, ws.token, 'issues.update', { id: moved.id, projectId: pb.id });
    await ok(t, ws.token, 'issues.update', { id: relabelled.id, labelIds: [] });
    await ok(t, ws.token, 'issues.update', { id: moved.id, title: 'out of sight' });
    await ok(t, ws.token, 'issues.update', { id: relabelled.id, title: 'out of sight too' });
    const sentinel = await recordEvent(ws);
    await p.waitFor((m) => m.id === sentinel);
    await l.waitFor((m) => m.id === sentinel);

    // (A stream opened just after the issues were made may still carry their ISSUE_CREATED.)
    const of = (c: SseClient, id: string) => c.messages.map(data).filter((e) => e.subjectId === id && e.kind !== 'ISSUE_CREATED');
    expect(of(p, moved.id)).toEqual([expect.objectContaining({
      kind: 'ISSUE_UPDATED',
      payload: expect.objectContaining({ changes: ['projectId'], before: { projectId: pa.id, labelIds: [], cycleId: null } }),
    })]);
    expect(of(l, relabelled.id)).toEqual([expect.objectContaining({
      kind: 'ISSUE_UPDATED',
      payload: expect.objectContaining({ changes: ['labelIds'], before: { projectId: pb.id, labelIds: [label], cycleId: null } }),
    })]);
    // Neither key hears of the other issue, and the issue itself stays out of reach.
    expect(of(p, relabelled.id)).toEqual([]);
    expect(of(l, moved.id)).toEqual([]);
    expect((await rest(t, byProject.token, 'issues.get', { id: moved.id })).status).toBe(404);

    // Back into its view: the key hears it, but not where it was (B's id is not the key's to know).
    await ok(t, ws.token, 'issues.update', { id: moved.id, projectId: pa.id });
    const back = (await ok(t, byProject.token, 'events.recent', { subjectType: 'issue', subjectId: moved.id, kinds: ['ISSUE_UPDATED'], limit: 1 })).items[0];
    expect(back.payload.changes).toEqual(['projectId']);
    expect(back.payload).not.toHaveProperty('before');
    // An unnarrowed key reads it whole.
    expect((await ok(t, ws.token, 'events.get', { id: back.id })).payload.before).toEqual({ projectId: pb.id, labelIds: [], cycleId: null });
    // Made in B and moved in: its ISSUE_CREATED names no project the key cannot see.
    const bornHidden = await ok(t, ws.token, 'issues.create', { title: 'born in B', projectId: pb.id });
    await ok(t, ws.token, 'issues.update', { id: bornHidden.id, projectId: pa.id });
    const created = (await ok(t, byProject.token, 'events.recent', { subjectType: 'issue', subjectId: bornHidden.id, kinds: ['ISSUE_CREATED'] })).items[0];
    expect(created.payload.projectId).toBeNull();
    expect(JSON.stringify((await ok(t, byProject.token, 'events.recent', { subjectType: 'issue', subjectId: bornHidden.id })).items)).not.toContain(pb.id);
    expect((await ok(t, ws.token, 'events.get', { id: created.id })).payload.projectId).toBe(pb.id);
  });

  it('keys with the same narrowing but another agent or user do not share what only one may see', async () => {
    const { rows: [p] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Shared narrowing') returning id`, [ws.id]);
    await createAgent(t, ws, 'sse-one');
    await createAgent(t, ws, 'sse-two');
    const one = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS', 'READ_ISSUES'], projects: [p.id], agent: 'sse-one' });
    const two = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS', 'READ_ISSUES'], projects: [p.id], agent: 'sse-two' });
    const agentOne = (await t.pools.owner.query(`select id from app_public.agents where workspace_id = $1 and profile_key = 'sse-one'`, [ws.id])).rows[0].id;
    // `two` subscribes first: were the group read as its first member, `one` would miss its own request.
    const c2 = await sse(two.token);
    const c1 = await sse(one.token);
    await c2.waitForComment((x) => x === 'connected');
    await c1.waitForComment((x) => x === 'connected');
    const req = await ok(t, ws.token, 'actionRequests.create', { title: 'For sse-one only', assignedAgentId: agentOne,
      options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    const marker = await recordEvent(ws);
    await c1.waitFor((m) => m.id === marker);
    await c2.waitFor((m) => m.id === marker);
    expect(c1.messages.some((m) => data(m).subjectId === req.id)).toBe(true);
    expect(c2.messages.some((m) => data(m).subjectId === req.id)).toBe(false);
    c1.close();
    c2.close();
  });

  it('serves every subscriber of several API processes on one database', async () => {
    const second = await startTestApp({ ownerUrl: t.ownerUrl });
    try {
      const url2 = await second.listen();
      const a = await sse(subscriber.token);
      const b = await openSse(url2, subscriber.token);
      open.push(b);
      await a.waitForComment((x) => x === 'connected');
      await b.waitForComment((x) => x === 'connected');
      const id = await recordEvent(ws);
      await a.waitFor((m) => m.id === id);
      await b.waitFor((m) => m.id === id);
      b.close();
      a.close();
    } finally {
      await second.close();
    }
  });

  it('publishes ephemeral events without storing them or giving them an id, to those who see their chat thread', async () => {
    const c = await sse(subscriber.token);
    await c.waitForComment((x) => x === 'connected');
    // A thread the subscriber's user opened; another member's stream gets none of its drafts.
    const agent = await createAgent(t, ws, 'sse-drafts');
    const { rows: [thread] } = await t.pools.owner.query(
      `insert into app_public.chat_threads (workspace_id, agent_id, created_by_user_id)
       select $1, $2, k.user_id from app_private.api_keys k where k.id = $3 returning id`, [ws.id, agent.id, subscriber.id]);
    const threadId: string = thread.id;
    await admin(t, 'add-member', { workspace: ws.key, email: 'sse-bystander@example.com', role: 'MEMBER', json: true });
    const bystander = await sse((await createKey(t, ws, { user: 'sse-bystander@example.com', scopes: ['SUBSCRIBE_EVENTS'] })).token);
    await bystander.waitForComment((x) => x === 'connected');
    const { rows: [r] } = await t.pools.owner.query(
      `select app_private.publish_ephemeral_event($1, 'CHAT_MESSAGE_POSTED', 'chat-thread-stream', $2, $3) as e`,
      [ws.id, threadId, { phase: 'delta', threadId, delta: 'Hel', seq: 1 }]);
    const m = await c.waitFor((x) => data(x).subjectId === threadId);
    expect(m.id).toBeUndefined();
    expect(data(m)).toMatchObject({ id: r.e.id, kind: 'CHAT_MESSAGE_POSTED', subjectType: 'chat-thread-stream', payload: { phase: 'delta', delta: 'Hel' } });
    const { rows } = await t.pools.owner.query('select count(*)::int as n from app_public.activity_events where id = $1', [r.e.id]);
    expect(rows[0].n).toBe(0);
    // The request role can publish too, in its own workspace only.
    const pool = t.pools.api;
    const ctx = `select app_hidden.publish_ephemeral_event('CHAT_MESSAGE_POSTED', 'chat-thread-stream', $2, '{"phase":"started"}') as e
                 from (select app_hidden.set_request_context($1)) identity`;
    const caller = await t.keys.authenticate(`Bearer ${subscriber.token}`);
    const { rows: [own] } = await pool.query(ctx, [...callerValues(caller, []), threadId]);
    await c.waitFor((x) => data(x).id === own.e.id);
    await expect(t.pools.owner.query(`select app_private.publish_ephemeral_event($1, 'X', 'chat-thread-stream', null, $2)`,
      [ws.id, { big: 'x'.repeat(9000) }])).rejects.toMatchObject({ code: 'SV400' });
    // A stored event after them reaches the bystander, the drafts before it did not; nor does a draft of a thread
    // that does not exist reach anyone.
    await t.pools.owner.query(`select app_private.publish_ephemeral_event($1, 'CHAT_MESSAGE_POSTED', 'chat-thread-stream', $2, '{}')`, [ws.id, crypto.randomUUID()]);
    const after = await recordEvent(ws);
    await bystander.waitFor((m) => m.id === after);
    await c.waitFor((m) => m.id === after);
    expect(bystander.messages.filter((m) => data(m).subjectType === 'chat-thread-stream')).toEqual([]);
    expect(c.messages.filter((m) => data(m).subjectType === 'chat-thread-stream')).toHaveLength(2);
    c.close();
    bystander.close();
  });

  it('ends the stream of a revoked key', async () => {
    const key = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS'] });
    const c = await sse(key.token);
    await c.waitForComment((x) => x === 'connected');
    await t.pools.owner.query('select app_private.revoke_api_key($1)', [key.id]);
    await c.ended;
  });
});

describe('resume with Last-Event-ID', () => {
  it('replays what was missed from the stored log, then continues live: no gap, no duplicate', async () => {
    const first = await sse(subscriber.token);
    await first.waitForComment((x) => x === 'connected');
    const a = await recordEvent(ws);
    await first.waitFor((m) => m.id === a);
    first.close();
    const missed = [await recordEvent(ws), await recordEvent(ws)];
    const issue = await ok(t, ws.token, 'issues.create', { title: 'while away' });
    const again = await sse(subscriber.token, { lastEventId: first.lastEventId });
    const created = await again.waitFor((m) => data(m).subjectId === issue.id);
    const live = await recordEvent(ws);
    await again.waitFor((m) => m.id === live);
    expect(storedIds(again)).toEqual([...missed, created.id, live]);
  });

  it('gets an event whose transaction allocated its seq earlier but committed later', async () => {
    const c = await sse(subscriber.token);
    await c.waitForComment((x) => x === 'connected');
    const slow = await t.pools.owner.connect();
    try {
      await slow.query('begin');
      const { rows: [early] } = await slow.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{"slow":true}') as id`, [ws.id]);
      const later = await recordEvent(ws); // higher seq, committed first
      await c.waitFor((m) => m.id === later);
      c.close(); // the client leaves before the slow transaction commits
      await slow.query('commit');
      const byId = await sequenced([early.id, later]);
      expect(byId[early.id].seq).toBeLessThan(byId[later].seq); // "seq > last" would skip it
      expect(byId[early.id].stream_pos).toBeGreaterThan(byId[later].stream_pos);
      const again = await sse(subscriber.token, { lastEventId: later });
      const m = await again.waitFor((x) => x.id === early.id);
      expect(data(m).payload).toEqual({ slow: true });
      const live = await recordEvent(ws);
      await again.waitFor((x) => x.id === live);
      expect(storedIds(again)).toEqual([early.id, live]);
    } finally {
      slow.release();
    }
  });

  it('resumes a narrowed key without the events it may not see', async () => {
    const { rows: [p] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Resume') returning id`, [ws.id]);
    const narrowed = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS'], projects: [p.id] });
    const c = await sse(narrowed.token);
    await c.waitForComment((x) => x === 'connected');
    const mark = await recordEvent(ws);
    await c.waitFor((m) => m.id === mark);
    c.close();
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'hidden' });
    const seen = await ok(t, ws.token, 'issues.create', { title: 'seen', projectId: p.id });
    const again = await sse(narrowed.token, { lastEventId: mark });
    await again.waitFor((m) => data(m).subjectId === seen.id);
    expect(again.messages.map((m) => data(m).subjectId)).not.toContain(hidden.id);
  });

  it("a narrowed key hears a comment's deletion, replays it, and resumes from an event of a comment or issue it no longer sees", async () => {
    const { rows: [p] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Comments') returning id`, [ws.id]);
    const narrowed = await createKey(t, ws, { scopes: ['SUBSCRIBE_EVENTS', 'READ_ISSUES'], projects: [p.id] });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'commented', projectId: p.id });
    const c = await sse(narrowed.token);
    await c.waitForComment((x) => x === 'connected');
    const comment = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'soon gone' });
    const created = await c.waitFor((m) => data(m).kind === 'COMMENT_CREATED' && data(m).subjectId === comment.id);
    c.close();
    await ok(t, ws.token, 'comments.delete', { id: comment.id });
    // Live: the deletion reaches the narrowed key, as it reaches the owner.
    const live = await sse(narrowed.token);
    await live.waitForComment((x) => x === 'connected');
    const again = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'gone at once' });
    await ok(t, ws.token, 'comments.delete', { id: again.id });
    const deleted = await live.waitFor((m) => data(m).kind === 'COMMENT_UPDATED' && data(m).subjectId === again.id);
    expect(data(deleted).payload).toMatchObject({ deleted: true, issueId: issue.id });
    // Resume from the deleted comment's own event: a replay, not a reset, with its deletion in it.
    const resumed = await sse(narrowed.token, { lastEventId: created.id });
    await resumed.waitFor((m) => data(m).kind === 'COMMENT_UPDATED' && data(m).subjectId === comment.id);
    expect(resumed.messages.some((m) => m.event === 'reset')).toBe(false);
    // events.recent tells the same story.
    const recent = await ok(t, narrowed.token, 'events.recent', { subjectType: 'comment', subjectId: comment.id });
    expect(recent.items.map((e: { kind: string }) => e.kind)).toEqual(['COMMENT_UPDATED', 'COMMENT_CREATED']);

    // The issue leaves the key's project: a resume from its event still replays what followed (and only what it sees:
    // of the issue that left, the event of its leaving).
    const { rows: [elsewhere] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Elsewhere') returning id`, [ws.id]);
    const watch = await sse(narrowed.token);
    await watch.waitForComment((x) => x === 'connected');
    const leaving = await ok(t, ws.token, 'issues.create', { title: 'leaving', projectId: p.id });
    const leavingCreated = await watch.waitFor((m) => data(m).kind === 'ISSUE_CREATED' && data(m).subjectId === leaving.id);
    watch.close();
    await ok(t, ws.token, 'issues.update', { id: leaving.id, projectId: elsewhere.id });
    const stays = await ok(t, ws.token, 'issues.create', { title: 'stays', projectId: p.id });
    const after = await sse(narrowed.token, { lastEventId: leavingCreated.id });
    await after.waitFor((m) => data(m).kind === 'ISSUE_CREATED' && data(m).subjectId === stays.id);
    expect(after.messages.some((m) => m.event === 'reset')).toBe(false);
    // Of the issue that left, only the event of its leaving (it names where the issue was).
    expect(after.messages.filter((m) => m.id && data(m).subjectId === leaving.id).map((m) => data(m).kind)).toEqual(['ISSUE_UPDATED']);
  });

  it('sends event: reset for an unknown Last-Event-ID or a backlog beyond the bound, then goes live', async () => {
    const unknown = await sse(subscriber.token, { lastEventId: crypto.randomUUID() });
    const reset = await unknown.waitFor((m) => m.event === 'reset');
    expect(data(reset)).toEqual({ reason: 'last_event_id_unknown' });
    const live = await recordEvent(ws);
    await unknown.waitFor((m) => m.id === live);
    unknown.close();

    // An id of this workspace older than the 24 hours a resume reaches back: too old, not unknown.
    const old = await recordEvent(ws);
    await t.pools.owner.query(`update app_public.activity_events set created_at = now() - interval '25 hours' where id = $1`, [old]);
    const stale = await sse(subscriber.token, { lastEventId: old });
    expect(data(await stale.waitFor((m) => m.event === 'reset'))).toEqual({ reason: 'too_old' });
    stale.close();

    const garbage = await sse(subscriber.token, { lastEventId: 'not-an-id' });
    await garbage.waitFor((m) => m.event === 'reset');
    garbage.close();

    // replayLimit is 20 in this file's hub
    const start = await recordEvent(ws);
    const rest: string[] = [];
    for (let i = 0; i < 25; i++) rest.push(await recordEvent(ws));
    await sequenced([start, ...rest]); // a Last-Event-ID not sequenced yet resumes from the head instead
    const behind = await sse(subscriber.token, { lastEventId: start });
    const tooFar = await behind.waitFor((m) => m.event === 'reset');
    expect(data(tooFar)).toEqual({ reason: 'too_far_behind' });
    expect(storedIds(behind)).toEqual([]);
    const after = await recordEvent(ws);
    await behind.waitFor((m) => m.id === after);
    behind.close();
  });

  it('catches up from the log when the LISTEN connection drops and comes back', async () => {
    const c = await sse(subscriber.token);
    await c.waitForComment((x) => x === 'connected');
    const reconnected = new Promise((resolve) => t.notifier.once('connected', resolve));
    await t.pools.owner.query(`select pg_terminate_backend(pid) from pg_stat_activity
                               where application_name = 'svc-listen' and datname = current_database() and pid <> pg_backend_pid()`);
    const during = [await recordEvent(ws), await recordEvent(ws)];
    await reconnected;
    const afterwards = await recordEvent(ws);
    await c.waitFor((m) => m.id === afterwards, 5000);
    expect(storedIds(c)).toEqual([...during, afterwards]);
    c.close();
  });
});

describe('stream limits', () => {
  it('a key and a workspace hold a bounded number of event streams (SSE and MCP together); past it 429 too_many_streams', async () => {
    const capped = await startTestApp({ ownerUrl: t.ownerUrl, streamLimits: { perKey: 2, perWorkspace: 3 } });
    const opened: Array<{ close(): void }> = [];
    try {
      const base = await capped.listen();
      const other = await createKey(t, ws, { scopes: ['READ_ISSUES', 'SUBSCRIBE_EVENTS'] });
      const stream = async (token: string) => {
        const c = await openSse(base, token);
        opened.push(c);
        return c;
      };
      expect((await stream(subscriber.token)).status).toBe(200);
      // An MCP notification stream counts too.
      const init = await fetch(`${base}/api/mcp`, { method: 'POST', headers: { authorization: `Bearer ${subscriber.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'limits', version: '1' } } }) });
      const sessionId = init.headers.get('mcp-session-id')!; // made for this key (a session id it was not given is 404)
      const mcp = await fetch(`${base}/api/mcp`, { headers: { authorization: `Bearer ${subscriber.token}`, accept: 'text/event-stream', 'mcp-session-id': sessionId } });
      expect(mcp.status).toBe(200);
      const third = await fetch(`${base}/api/plugins/events`, { headers: { authorization: `Bearer ${subscriber.token}`, accept: 'text/event-stream' } });
      expect([third.status, third.headers.get('retry-after'), (await third.json()).error]).toEqual([429, '30', 'too_many_streams']);
      // The refusal closes its connection (a refused client kept the socket, and its file descriptor, open).
      const refusedAgain = await capped.app.inject({ method: 'GET', url: '/api/plugins/events', headers: { authorization: `Bearer ${subscriber.token}`, accept: 'text/event-stream' } });
      expect([refusedAgain.statusCode, refusedAgain.headers.connection]).toEqual([429, 'close']);
      // HEAD of a stream answers its headers at once and takes no place (it was held open as a stream: 20 HEADs
      // and the key's next stream was 429), whether the key's places are all taken or not.
      for (const url of ['/api/plugins/events', '/api/mcp']) {
        const head = await fetch(`${base}${url}`, { method: 'HEAD', signal: AbortSignal.timeout(5000),
          headers: { authorization: `Bearer ${other.token}`, accept: 'text/event-stream', ...(url === '/api/mcp' ? { 'mcp-session-id': sessionId } : {}) } });
        if (url === '/api/mcp') expect(head.status).toBe(404); // the session is the subscriber's, not this key's
        else expect([head.status, head.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
      }
      const ownHead = await fetch(`${base}/api/mcp`, { method: 'HEAD', signal: AbortSignal.timeout(5000),
        headers: { authorization: `Bearer ${subscriber.token}`, accept: 'text/event-stream', 'mcp-session-id': sessionId } });
      expect([ownHead.status, ownHead.headers.get('mcp-session-id')]).toEqual([200, sessionId]);
      // The workspace's third place goes to another key; a fourth stream of the workspace is refused.
      expect((await stream(other.token)).status).toBe(200);
      const fourth = await fetch(`${base}/api/plugins/events`, { headers: { authorization: `Bearer ${other.token}`, accept: 'text/event-stream' } });
      expect([fourth.status, (await fourth.json()).message]).toEqual([429, expect.stringMatching(/workspace has 3 event streams/)]);
      // A stream that ends gives its place back.
      await mcp.body?.cancel();
      await expect.poll(async () => {
        const again = await fetch(`${base}/api/plugins/events`, { headers: { authorization: `Bearer ${other.token}`, accept: 'text/event-stream' } });
        if (again.status === 200) opened.push({ close: () => void again.body?.cancel() });
        else await again.body?.cancel();
        return again.status;
      }).toBe(200);
    } finally {
      for (const c of opened) c.close();
      await capped.close();
    }
  });
});

describe('slow clients', () => {
  it('disconnects a client that stops reading once its buffer is over budget', async () => {
    const slowApp = await startTestApp({ ownerUrl: t.ownerUrl, hub: { maxBufferBytes: 256 * 1024 } });
    try {
      const base = new URL(await slowApp.listen());
      const socket = net.connect(Number(base.port), base.hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /api/plugins/events HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${subscriber.token}\r\nAccept: text/event-stream\r\n\r\n`);
      await new Promise((resolve) => socket.once('data', resolve));
      socket.pause(); // stop reading: the kernel buffers fill, then the server's
      const closed = new Promise((resolve) => socket.once('close', resolve));
      expect(slowApp.hub.subscriberCount).toBe(1);
      const big = 'x'.repeat(200_000);
      const writer = new pg.Client({ connectionString: t.ownerUrl });
      await writer.connect();
      try {
        for (let i = 0; i < 200 && slowApp.hub.subscriberCount > 0; i++) {
          await writer.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, $2)`, [ws.id, { big }]);
          if (i % 20 === 19) await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await writer.end();
      }
      // The last events reach the hub moments after their commit (the sequencer): give it that moment.
      await until(() => slowApp.hub.subscriberCount, (n) => n === 0, 5000);
      expect(slowApp.hub.subscriberCount).toBe(0);
      // Reading again, the client finds its stream cut short by the server. (What it still reads first depends
      // on the kernel: data queued towards a socket that is reset may be dropped, so no count is asserted.)
      socket.on('error', () => {});
      socket.resume();
      await closed;
      expect(socket.destroyed).toBe(true);
    } finally {
      await slowApp.close();
    }
  }, 60_000);
});
