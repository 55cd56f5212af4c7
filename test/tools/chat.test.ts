/**
 * Chat end to end: a person opens a thread and posts (GraphQL, svc admin open-chat); the USER message reaches
 * the agent's dispatch delivery (webhook URL) and SSE; the agent streams its reply (started/delta/finalized on
 * SSE, never stored) or answers in one piece. Then agent.context.bundle for issues and threads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { openSse, type SseClient, type SseMessage } from '../support/sse.ts';

let t: TestApp;
let baseUrl: string;
let ws: Workspace;
let other: Workspace;
let receiver: Receiver;
let hookReceiver: Receiver;
let helper: { id: string };
let helperKey: { token: string };
let rivalKey: { token: string };
let thread: { id: string };
const data = (m: SseMessage) => JSON.parse(m.data);

const OPEN = `mutation($a: UUID!, $m: String, $i: UUID, $r: String) {
  chatOpenThread(input: {agentId: $a, message: $m, issueId: $i, route: $r}) { chatThread { rowId agentId createdByUserId issueId } } }`;
const POST = `mutation($t: UUID!, $b: String!, $r: String) { chatPostMessage(input: {threadId: $t, body: $b, route: $r}) { chatMessage { rowId role body contextSnapshot } } }`;

beforeAll(async () => {
  t = await startTestApp({ graphql: true, worker: { backoffSeconds: [0.1], timeoutMs: 2000 } });
  baseUrl = await t.listen();
  receiver = await startReceiver();
  hookReceiver = await startReceiver();
  ws = await createWorkspace(t, 'CHT');
  other = await createWorkspace(t, 'CHO');
  helper = await createAgent(t, ws, 'helper', { 'webhook-url': `${receiver.url}/helper` });
  await createAgent(t, ws, 'rival');
  helperKey = await createKey(t, ws, { agent: 'helper', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'WRITE_COMMENTS', 'SUBSCRIBE_EVENTS'] });
  rivalKey = await createKey(t, ws, { agent: 'rival', scopes: ['READ_ISSUES', 'WRITE_COMMENTS'] });
  await admin(t, 'create-webhook', { workspace: ws.key, url: `${hookReceiver.url}/all`, json: true });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  await hookReceiver.close();
});

describe('a person talks to an agent', () => {
  let sse: SseClient;

  it('the USER message is stored, recorded (6.4 payload), dispatched to the agent webhook and streamed on SSE and to webhooks', async () => {
    sse = await openSse(baseUrl, helperKey.token);
    await sse.waitForComment((c) => c === 'connected');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Login fails' });
    const r = await gqlOk(t, ws.token, OPEN, { a: helper.id, m: 'Can you look at this?', i: issue.id, r: '/issues/CHT-1' });
    thread = { id: r.chatOpenThread.chatThread.rowId };
    expect(r.chatOpenThread.chatThread).toMatchObject({ agentId: helper.id, issueId: issue.id, createdByUserId: expect.any(String) });

    const [event] = (await ok(t, ws.token, 'events.recent', { subjectType: 'chat-thread', subjectId: thread.id })).items;
    expect(event).toMatchObject({ kind: 'CHAT_MESSAGE_POSTED', subjectType: 'chat-thread', subjectId: thread.id, payload: {
      threadId: thread.id, messageId: expect.any(String), agentId: helper.id, role: 'USER', body: 'Can you look at this?',
      context: { route: '/issues/CHT-1', issueId: issue.id } } });
    expect(event.payload).not.toHaveProperty('sourceRunId');
    // the agent's dispatch delivery (webhook URL), signed, on its channel
    const [req] = (await receiver.waitFor((rs) => rs.some((x) => JSON.parse(x.body).id === event.id))).filter((x) => JSON.parse(x.body).id === event.id);
    expect(req!.headers['x-svc-channel']).toBe(`agent:dispatch:${helper.id}`);
    expect(req!.headers['x-svc-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(req!.body)).toMatchObject({ kind: 'CHAT_MESSAGE_POSTED', payload: { role: 'USER', threadId: thread.id } });
    // SSE (stored: with an id) and the workspace webhook
    const m = await sse.waitFor((x) => x.id === event.id);
    expect(data(m)).toMatchObject({ kind: 'CHAT_MESSAGE_POSTED', payload: { role: 'USER' } });
    await hookReceiver.waitFor((rs) => rs.some((x) => JSON.parse(x.body).id === event.id));

    // a second USER message in the same thread
    const posted = await gqlOk(t, ws.token, POST, { t: thread.id, b: 'Still broken', r: '/inbox' });
    expect(posted.chatPostMessage.chatMessage).toMatchObject({ role: 'USER', body: 'Still broken', contextSnapshot: { route: '/inbox', issueId: issue.id } });
  });

  it('the agent streams its reply: started/delta/finalized on SSE without ids, nothing stored until finalized; replies are not dispatched', async () => {
    const from = sse.messages.length;
    const { draftId } = await ok(t, helperKey.token, 'chat.startDraft', { threadId: thread.id });
    expect(await ok(t, helperKey.token, 'chat.appendDraftChunk', { threadId: thread.id, draftId, delta: 'Looking ', seq: 0 })).toEqual({ ok: true });
    await ok(t, helperKey.token, 'chat.appendDraftChunk', { threadId: thread.id, draftId, delta: 'into it', seq: 2 });
    expect((await ok(t, helperKey.token, 'chat.getThread', { threadId: thread.id })).messages).toHaveLength(2);
    const fin = await ok(t, helperKey.token, 'chat.finalizeDraft', { threadId: thread.id, draftId, body: 'Looking into it' });
    expect(fin).toEqual({ messageId: expect.any(String), threadId: thread.id, draftId });
    const finalized = await sse.waitFor((x) => x.id === undefined && data(x).payload.phase === 'finalized', 5000, from);
    const stream = sse.messages.slice(from).filter((x) => data(x).subjectType === 'chat-thread-stream');
    expect(stream.every((x) => x.id === undefined)).toBe(true);
    expect(stream.map((x) => data(x).payload)).toEqual([
      { phase: 'started', threadId: thread.id, agentId: helper.id, draftId },
      { phase: 'delta', threadId: thread.id, agentId: helper.id, draftId, delta: 'Looking ', seq: 0 },
      { phase: 'delta', threadId: thread.id, agentId: helper.id, draftId, delta: 'into it', seq: 2 },
      { phase: 'finalized', threadId: thread.id, agentId: helper.id, draftId, messageId: fin.messageId },
    ]);
    expect(data(finalized).kind).toBe('CHAT_MESSAGE_POSTED');
    const persisted = await sse.waitFor((x) => x.id !== undefined && data(x).payload.messageId === fin.messageId, 5000, from);
    expect(data(persisted)).toMatchObject({ subjectType: 'chat-thread', payload: { role: 'AGENT', body: 'Looking into it', draftId } });
    // idempotent finalize
    expect(await ok(t, helperKey.token, 'chat.finalizeDraft', { threadId: thread.id, draftId, body: 'other' })).toEqual(fin);
    const { rows } = await t.pools.owner.query(
      `select e.payload->>'role' as role, count(d.id)::int as deliveries from app_public.activity_events e
       left join app_public.webhook_deliveries d on d.event_id = e.id and d.agent_id is not null
       where e.subject_id = $1 and e.kind = 'CHAT_MESSAGE_POSTED' group by 1 order by 1`, [thread.id]);
    expect(rows).toEqual([{ role: 'AGENT', deliveries: 0 }, { role: 'USER', deliveries: 2 }]);
    sse.close();
  });

  it('appendMessage: single-shot reply with sourceRunId; getThread shapes and paging', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Run it' });
    const run = (await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'helper' })).currentRun;
    const a = await ok(t, helperKey.token, 'chat.appendMessage', { threadId: thread.id, body: 'Fixed in a run', sourceRunId: run.id });
    const rival = (await ok(t, ws.token, 'issues.assign', { id: (await ok(t, ws.token, 'issues.create', { title: 'x' })).id, profileKey: 'rival' })).currentRun;
    expect((await rest(t, helperKey.token, 'chat.appendMessage', { threadId: thread.id, body: 'x', sourceRunId: rival.id })).body.issues).toHaveProperty('sourceRunId');
    const events = (await ok(t, ws.token, 'events.recent', { subjectType: 'chat-thread', subjectId: thread.id })).items;
    expect(events[0].payload).toMatchObject({ messageId: a.messageId, role: 'AGENT', sourceRunId: run.id, agentId: helper.id });
    const g = await ok(t, helperKey.token, 'chat.getThread', { threadId: thread.id });
    expect(g.thread).toMatchObject({ id: thread.id, agentId: helper.id, agent: { profileKey: 'helper' } });
    expect(g.messages.map((m: any) => [m.role, m.body])).toEqual([
      ['USER', 'Can you look at this?'], ['USER', 'Still broken'], ['AGENT', 'Looking into it'], ['AGENT', 'Fixed in a run']]);
    expect(g.messages[3]).toEqual({ id: a.messageId, threadId: thread.id, role: 'AGENT', body: 'Fixed in a run', contextSnapshot: null,
      sourceRunId: run.id, createdAt: expect.any(String), finalizedDraftId: null, authorUserId: expect.any(String), authorAgentId: helper.id });
    expect(g.messages[2].finalizedDraftId).toEqual(expect.any(String));
    // A paging loop starts with before null, as every other list takes its cursor.
    const page = await ok(t, helperKey.token, 'chat.getThread', { threadId: thread.id, limit: 2, before: null });
    expect(page.messages.map((m: any) => m.body)).toEqual(['Looking into it', 'Fixed in a run']);
    const older = await ok(t, helperKey.token, 'chat.getThread', { threadId: thread.id, limit: 2, before: page.nextCursor });
    expect(older.messages.map((m: any) => m.body)).toEqual(['Can you look at this?', 'Still broken']);
    expect(older.nextCursor).toBeNull();
    const r = await rpc(t, helperKey.token, 'tools/call', { name: 'chat.getThread', arguments: { threadId: thread.id, limit: 1 } });
    expect(r.body.result.structuredContent.messages).toHaveLength(1);
  });

  it('addressee gating, agent keys only, scope, bad input, other workspace', async () => {
    for (const [tool, args] of [
      ['chat.appendMessage', { threadId: thread.id, body: 'hi' }], ['chat.startDraft', { threadId: thread.id }],
      ['chat.appendDraftChunk', { threadId: thread.id, draftId: crypto.randomUUID(), delta: 'x', seq: 1 }],
      ['chat.finalizeDraft', { threadId: thread.id, draftId: crypto.randomUUID(), body: 'x' }], ['chat.getThread', { threadId: thread.id }],
    ] as const) {
      expect((await rest(t, rivalKey.token, tool, args)).body, tool).toMatchObject({ error: 'not_addressee' });
      expect((await rest(t, ws.token, tool, args)).body, tool).toMatchObject({ error: 'agent_key_required' });
    }
    expect((await rest(t, helperKey.token, 'chat.appendMessage', { threadId: thread.id, body: '  ' })).body.issues).toHaveProperty('body');
    expect((await rest(t, helperKey.token, 'chat.appendDraftChunk', { threadId: thread.id, draftId: 'x', delta: 'x', seq: 1 })).body.issues).toHaveProperty('draftId');
    // The delta's limit holds for any text: 4,000 plain characters pass; escaped or multi-byte text past the
    // encoded limit is a 400 on delta (it was a 400 on a field "payload" the input does not have).
    const { draftId } = await ok(t, helperKey.token, 'chat.startDraft', { threadId: thread.id });
    expect(await ok(t, helperKey.token, 'chat.appendDraftChunk', { threadId: thread.id, draftId, delta: 'a'.repeat(4000), seq: 1 })).toEqual({ ok: true });
    for (const delta of ['\n'.repeat(4000), 'é'.repeat(3700), '\u0001'.repeat(1500)]) {
      const r = await rest(t, helperKey.token, 'chat.appendDraftChunk', { threadId: thread.id, draftId, delta, seq: 2 });
      expect([r.status, Object.keys(r.body.issues)]).toEqual([400, ['delta']]);
    }
    expect(await ok(t, helperKey.token, 'chat.appendDraftChunk', { threadId: thread.id, draftId, delta: 'é'.repeat(2900), seq: 3 })).toEqual({ ok: true });
    expect((await rest(t, helperKey.token, 'chat.getThread', { threadId: thread.id, limit: 500 })).body.issues).toHaveProperty('limit');
    const noWrite = await createKey(t, ws, { agent: 'helper', scopes: ['READ_ISSUES'] });
    expect((await rest(t, noWrite.token, 'chat.getThread', { threadId: thread.id })).body).toMatchObject({ error: 'scope_required', scope: 'WRITE_COMMENTS' });
    await createAgent(t, other, 'helper');
    const otherKey = await createKey(t, other, { agent: 'helper', scopes: ['WRITE_COMMENTS', 'READ_ISSUES'] });
    expect((await rest(t, otherKey.token, 'chat.getThread', { threadId: thread.id })).status).toBe(404);
    expect((await rest(t, otherKey.token, 'chat.appendMessage', { threadId: thread.id, body: 'x' })).status).toBe(404);
    // A thread follows the narrowing of its issue: a key narrowed to another project does not find it (nor its
    // messages, events or drafts); once the issue is in the key's project, the agent talks in it again.
    const { rows: [project] } = await t.pools.owner.query("insert into app_public.projects (workspace_id, name) values ($1, 'N') returning id", [ws.id]);
    const narrowed = await createKey(t, ws, { agent: 'helper', scopes: ['WRITE_COMMENTS', 'READ_ISSUES'], projects: [project.id] });
    for (const [tool, args] of [['chat.getThread', { threadId: thread.id }], ['chat.appendMessage', { threadId: thread.id, body: 'x' }],
      ['chat.startDraft', { threadId: thread.id }], ['chat.listMessages', { threadId: thread.id }]] as const) {
      expect((await rest(t, narrowed.token, tool, args)).status, tool).toBe(404);
    }
    expect((await ok(t, narrowed.token, 'chat.listThreads', {})).items.map((x: any) => x.id)).not.toContain(thread.id);
    expect((await ok(t, narrowed.token, 'events.recent', { subjectType: 'chat-thread', subjectId: thread.id })).items).toEqual([]);
    const { rows: [{ issue_id: issueId }] } = await t.pools.owner.query('select issue_id from app_public.chat_threads where id = $1', [thread.id]);
    await ok(t, ws.token, 'issues.update', { id: issueId, projectId: project.id });
    expect((await ok(t, narrowed.token, 'chat.getThread', { threadId: thread.id })).messages.length).toBe(4);
    expect((await ok(t, narrowed.token, 'events.recent', { subjectType: 'chat-thread', subjectId: thread.id })).items.length).toBeGreaterThan(0);
    await ok(t, ws.token, 'issues.update', { id: issueId, projectId: null });
  });

  it('listThreads: the agent\'s own threads, latest activity first, awaitingReply after a person speaks; paged; nobody else\'s', async () => {
    const opened = (await gqlOk(t, ws.token, OPEN, { a: helper.id, m: `New question ${'?'.repeat(600)}` })).chatOpenThread.chatThread;
    const all = await ok(t, helperKey.token, 'chat.listThreads', {});
    expect(all.items.map((x: any) => x.id)).toEqual([opened.rowId, thread.id]);
    expect(all.items[0]).toMatchObject({ id: opened.rowId, agentId: helper.id, awaitingReply: true,
      lastMessage: { role: 'USER', truncated: true, body: expect.stringMatching(/^New question \?+$/) } });
    expect(all.items[0].lastMessage.body).toHaveLength(500);
    expect(all.items[1]).toMatchObject({ id: thread.id, awaitingReply: false, lastMessage: { role: 'AGENT', body: 'Fixed in a run', truncated: false } });
    expect((await ok(t, helperKey.token, 'chat.listThreads', { awaitingReply: true })).items.map((x: any) => x.id)).toEqual([opened.rowId]);
    expect((await ok(t, helperKey.token, 'chat.listThreads', { awaitingReply: false })).items.map((x: any) => x.id)).toEqual([thread.id]);
    // Ordered by latest activity, not by opening: a new message in the older thread moves it ahead.
    await ok(t, helperKey.token, 'chat.appendMessage', { threadId: opened.rowId, body: 'On it' });
    await ok(t, helperKey.token, 'chat.appendMessage', { threadId: thread.id, body: 'One more thing' });
    const first = await ok(t, helperKey.token, 'chat.listThreads', { limit: 1 });
    expect(first.items.map((x: any) => [x.id, x.awaitingReply, x.lastMessage.body])).toEqual([[thread.id, false, 'One more thing']]);
    const next = await ok(t, helperKey.token, 'chat.listThreads', { limit: 1, cursor: first.nextCursor });
    expect([next.items.map((x: any) => x.id), next.nextCursor]).toEqual([[opened.rowId], null]);
    // Another agent, a person's key, another workspace: none of these threads.
    expect((await ok(t, rivalKey.token, 'chat.listThreads', {})).items).toEqual([]);
    expect((await rest(t, ws.token, 'chat.listThreads', {})).body).toMatchObject({ error: 'agent_key_required' });
    await createAgent(t, other, 'lister');
    const otherKey = await createKey(t, other, { agent: 'lister', scopes: ['WRITE_COMMENTS'] });
    expect((await ok(t, otherKey.token, 'chat.listThreads', {})).items).toEqual([]);
    expect((await rest(t, helperKey.token, 'chat.listThreads', { cursor: 'forged' })).body.issues).toHaveProperty('cursor');
    expect((await rest(t, helperKey.token, 'chat.listThreads', { limit: 101 })).body.issues).toHaveProperty('limit');
  });

  it('in-app: only the opener (or an admin) sees a thread; agent keys cannot post USER messages; svc admin open-chat', async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
    const member = await createKey(t, ws, { user: 'member@example.com', scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS', 'WRITE_COMMENTS'] });
    expect((await gqlError(t, member.token, POST, { t: thread.id, b: 'sneaky' })).status).toBe(404);
    const mine = await gqlOk(t, member.token, OPEN, { a: helper.id });
    expect(mine.chatOpenThread.chatThread.agentId).toBe(helper.id);
    const list = await gqlOk(t, member.token, '{ chatThreads { nodes { rowId } } }');
    expect(list.chatThreads.nodes.map((n: any) => n.rowId)).toEqual([mine.chatOpenThread.chatThread.rowId]);
    const agentGql = await createKey(t, ws, { agent: 'helper', scopes: ['FULL'] });
    expect((await gqlError(t, agentGql.token, POST, { t: thread.id, b: 'as user' })).code).toBe('person_key_required');
    // Blank in any script's spaces is blank, as the tools' own check says.
    for (const blank of ['\n\t', '\u00a0', '\u3000 \u2009']) {
      expect(await gqlError(t, ws.token, POST, { t: thread.id, b: blank })).toMatchObject({ code: 'invalid_input', status: 400 });
    }
    const noWrite = await createKey(t, ws, { user: 'member@example.com', scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] });
    expect((await gqlError(t, noWrite.token, OPEN, { a: helper.id })).code).toBe('scope_required');
    await t.pools.owner.query("update app_public.agents set archived_at = now() where workspace_id = $1 and profile_key = 'rival'", [ws.id]);
    const rival = (await t.pools.owner.query("select id from app_public.agents where workspace_id = $1 and profile_key = 'rival'", [ws.id])).rows[0];
    expect((await gqlError(t, ws.token, OPEN, { a: rival.id })).code).toBe('agent_archived');
    // Nor a message in a thread opened before the archive (it would wait in a queue no one serves).
    await t.pools.owner.query('update app_public.agents set archived_at = null where id = $1', [rival.id]);
    const rivalThread = (await gqlOk(t, ws.token, OPEN, { a: rival.id })).chatOpenThread.chatThread.rowId;
    await t.pools.owner.query('update app_public.agents set archived_at = now() where id = $1', [rival.id]);
    expect((await gqlError(t, ws.token, POST, { t: rivalThread, b: 'are you there?' })).code).toBe('agent_archived');
    expect((await admin(t, 'open-chat', { workspace: ws.key, agent: 'rival', user: 'member@example.com', json: true }).catch((e: Error) => e.message)))
      .toMatch(/archived/);
    await t.pools.owner.query('update app_public.agents set archived_at = null where id = $1', [rival.id]);  // later tests act as rival
    expect((await gql(t, ws.token, POST, { t: thread.id, b: '' })).errors?.[0]?.extensions?.code).toBe('invalid_input');

    const cli = await admin(t, 'open-chat', { workspace: ws.key, agent: 'helper', user: 'member@example.com', message: 'From the CLI', json: true });
    expect(cli).toEqual({ thread: { id: expect.any(String), agentId: helper.id }, message: { id: expect.any(String) } });
    const bare = await admin(t, 'open-chat', { workspace: ws.key, agent: 'helper', user: 'member@example.com', json: true });
    expect(bare.message).toBeNull();
    expect(bare.thread.id).not.toBe(cli.thread.id);
    await receiver.waitFor((rs) => rs.some((x) => JSON.parse(x.body).payload?.messageId === cli.message.id));
    // The person is the events' actor, as when they open a thread themselves (the CLI's said none).
    const { rows: actors } = await t.pools.owner.query(
      `select e.kind, u.email from app_public.activity_events e left join app_public.users u on u.id = e.actor_user_id
       where e.workspace_id = $1 and e.subject_id = any($2) order by e.seq`, [ws.id, [cli.thread.id, cli.message.id]]);
    expect(actors.length).toBeGreaterThan(0);
    expect(actors.every((a: { email: string | null }) => a.email === 'member@example.com'), JSON.stringify(actors)).toBe(true);
    // Each missing part is named on its own.
    await expect(admin(t, 'open-chat', { workspace: ws.key, agent: 'nobody', user: 'member@example.com', json: true }))
      .rejects.toThrow('no agent with profile key nobody in this workspace');
    await expect(admin(t, 'open-chat', { workspace: ws.key, agent: 'helper', user: 'nobody@example.com', json: true }))
      .rejects.toThrow('no user with email nobody@example.com');
  });

  it('a chat is private to its participants and admins on every surface: events.recent, SSE, drafts', async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'bystander@example.com', role: 'MEMBER', json: true });
    const bystander = await createKey(t, ws, { user: 'bystander@example.com', scopes: ['FULL'] });
    await admin(t, 'add-member', { workspace: ws.key, email: 'opener@example.com', role: 'MEMBER', json: true });
    const own = await createKey(t, ws, { user: 'opener@example.com', scopes: ['FULL'] });
    const listen = async (token: string) => {
      const c = await openSse(baseUrl, token);
      await c.waitForComment((x) => x === 'connected');
      return c;
    };
    const [watching, itsOpener, itsAgent, anAdmin] = [await listen(bystander.token), await listen(own.token), await listen(helperKey.token), await listen(ws.token)];
    const opened = (await gqlOk(t, own.token, OPEN, { a: helper.id, m: 'Private question' })).chatOpenThread.chatThread;
    const { draftId } = await ok(t, helperKey.token, 'chat.startDraft', { threadId: opened.rowId });
    await ok(t, helperKey.token, 'chat.finalizeDraft', { threadId: opened.rowId, draftId, body: 'Private answer' });
    const about = (m: SseMessage) => data(m).subjectId === opened.rowId;
    for (const c of [itsOpener, itsAgent, anAdmin]) {
      await c.waitFor((m) => about(m) && data(m).payload.phase === 'started');
      await c.waitFor((m) => about(m) && data(m).payload.body === 'Private answer' && m.id !== undefined);
    }
    // The bystander's stream stayed open and carried later events, but none of the thread's.
    const later = await ok(t, ws.token, 'issues.create', { title: 'After the chat' });
    await watching.waitFor((m) => data(m).subjectId === later.id);
    expect(watching.messages.filter(about)).toEqual([]);
    for (const c of [watching, itsOpener, itsAgent, anAdmin]) c.close();
    const seen = async (token: string) => (await ok(t, token, 'events.recent', { subjectType: 'chat-thread', subjectId: opened.rowId })).items.length;
    expect(await seen(bystander.token)).toBe(0);
    expect(await seen(own.token)).toBe(3);
    expect(await seen(ws.token)).toBe(3);
  });

  it('opening a thread without a message writes CHAT_THREAD_OPENED, seen as the thread is (not by a bystander or another workspace)', async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'quiet-opener@example.com', role: 'MEMBER', json: true });
    const opener = await createKey(t, ws, { user: 'quiet-opener@example.com', scopes: ['FULL'] });
    const bystander = await createKey(t, ws, { user: 'bystander@example.com', scopes: ['FULL'] });
    const opened = (await gqlOk(t, opener.token, OPEN, { a: helper.id })).chatOpenThread.chatThread;
    const events = async (token: string) => (await ok(t, token, 'events.recent', { subjectType: 'chat-thread', subjectId: opened.rowId })).items;
    for (const token of [opener.token, helperKey.token, ws.token]) {
      expect((await events(token)).map((e: { kind: string; payload: unknown }) => [e.kind, e.payload])).toEqual([['CHAT_THREAD_OPENED',
        { threadId: opened.rowId, agentId: helper.id, openedByUserId: opened.createdByUserId, title: null, issueId: null }]]);
    }
    expect(await events(bystander.token)).toEqual([]);
    expect((await rest(t, other.token, 'events.recent', { subjectType: 'chat-thread', subjectId: opened.rowId })).body.items ?? []).toEqual([]);
  });

  it('a message\'s context names an issue only to keys that may see it', async () => {
    const { rows: [project] } = await t.pools.owner.query("insert into app_public.projects (workspace_id, name) values ($1, 'Ctx') returning id", [ws.id]);
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Outside the agent key' });
    const opened = (await gqlOk(t, ws.token, OPEN, { a: helper.id })).chatOpenThread.chatThread;
    await gqlOk(t, ws.token, `mutation($t: UUID!, $i: UUID, $r: String) { chatPostMessage(input: {threadId: $t, body: "see this", issueId: $i, route: $r}) { chatMessage { rowId } } }`,
      { t: opened.rowId, i: hidden.id, r: `/issue/${hidden.key}` });
    const narrowed = await createKey(t, ws, { agent: 'helper', scopes: ['WRITE_COMMENTS', 'READ_ISSUES'], projects: [project.id] });
    const full = await ok(t, helperKey.token, 'chat.getThread', { threadId: opened.rowId });
    expect(full.messages[0].contextSnapshot).toEqual({ issueId: hidden.id, route: `/issue/${hidden.key}` });
    const seen = await ok(t, narrowed.token, 'chat.getThread', { threadId: opened.rowId });
    // The route names the issue too: it goes with the id.
    expect(seen.messages[0]).toMatchObject({ body: 'see this', contextSnapshot: { issueId: null, route: null } });
    expect(JSON.stringify(seen)).not.toContain(hidden.id);
    expect(JSON.stringify(seen)).not.toContain(hidden.key);
    expect(JSON.stringify(await ok(t, narrowed.token, 'chat.getMessage', { id: seen.messages[0].id }))).not.toContain(hidden.id);
    expect(JSON.stringify(await ok(t, narrowed.token, 'agent.context.bundle', { threadId: opened.rowId }))).not.toContain(hidden.id);
    // Its event names the issue in the payload, so the narrowed key does not get it at all.
    expect(JSON.stringify(await ok(t, narrowed.token, 'events.recent', { limit: 200 }))).not.toContain(hidden.id);
    // GraphQL reads the context through the same rule (the raw column is not in the schema).
    const wide = await createKey(t, ws, { agent: 'helper', scopes: ['FULL'], projects: [project.id] });
    const q = await gqlOk(t, wide.token, `query($t: UUID!) { chatMessages(condition: {threadId: $t}) { nodes { body contextSnapshot } } }`, { t: opened.rowId });
    expect(q.chatMessages.nodes).toEqual([{ body: 'see this', contextSnapshot: { route: null, issueId: null } }]);
    const own = await gqlOk(t, ws.token, `query($t: UUID!) { chatMessages(condition: {threadId: $t}) { nodes { contextSnapshot } } }`, { t: opened.rowId });
    expect(own.chatMessages.nodes[0].contextSnapshot.issueId).toBe(hidden.id);
  });
});

describe('agent.context.bundle', () => {
  it('issueId: every section; last 50 comments; runProtocol for the calling agent\'s run', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Bundle me', description: 'Details', expectedOutput: 'A fix',
      verificationChecklist: [{ id: 'c1', label: 'Works', done: false }] });
    for (let i = 0; i < 52; i++) await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: `c${i}` });
    const run = (await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'helper', mode: 'REVIEW' })).currentRun;
    const b = await ok(t, helperKey.token, 'agent.context.bundle', { issueId: issue.key });
    expect(Object.keys(b).sort()).toEqual(['artifacts', 'attachments', 'commentCount', 'comments', 'completionContract', 'currentRun', 'description',
      'externalResources', 'issue', 'relations', 'runProtocol', 'workspace']);
    expect(b).toMatchObject({ workspace: { key: 'CHT' }, issue: { id: issue.id, description: 'Details', expectedOutput: 'A fix' },
      description: 'Details', attachments: [], relations: [], artifacts: [], externalResources: [],
      currentRun: { id: run.id, engagementMode: 'REVIEW' },
      completionContract: { engagementMode: 'REVIEW', requires: ['summary', 'verdict'], artifactRequired: false },
      runProtocol: { contractVersion: '2026-11-01', runId: run.id, engagementMode: 'REVIEW', mayMutateIssue: false,
        modeInstruction: expect.stringContaining('verdict'), protocolInstruction: expect.stringContaining('runs.complete') } });
    expect(b.comments).toHaveLength(50);
    expect(b.comments[0].body).toBe('c2');
    expect(b.comments[49].body).toBe('c51');
    const unassigned = await ok(t, ws.token, 'issues.create', { title: 'Free' });
    const free = await ok(t, ws.token, 'agent.context.bundle', { issueId: unassigned.id });
    expect(free.runProtocol).toMatchObject({ runId: null, engagementMode: 'EXECUTE', mayMutateIssue: true, stepId: null,
      protocolInstruction: expect.stringMatching(/^You have no open run on this issue/) });
    // An EXECUTE run: both the issue's done status and runs.complete, and how to give the work back.
    const doable = await ok(t, ws.token, 'issues.create', { title: 'Do it' });
    await ok(t, ws.token, 'issues.assign', { id: doable.id, profileKey: 'helper' });
    const execute = (await ok(t, helperKey.token, 'agent.context.bundle', { issueId: doable.id })).runProtocol.protocolInstruction;
    expect(execute).toContain('do both: move the issue to a done status with issues.transition');
    expect(execute).toContain('issues.unassign (runs.cancel ends the run but leaves the issue assigned to you)');
    expect(execute).toContain('agents.heartbeat keeps you ONLINE, not the run active');
    expect(free.currentRun).toBeNull();
    const r = await rpc(t, helperKey.token, 'tools/call', { name: 'agent.context.bundle', arguments: { issueId: issue.id } });
    expect(r.body.result.structuredContent.runProtocol.runId).toBe(run.id);
    // helper's REVIEW run gates helper only (spec 3.2): another agent and a person see that run as the issue's
    // currentRun, but the contract and protocol are their own (no run: EXECUTE). A person may change the issue;
    // another agent is told the issue is helper's work (the fleet probe: it read mayMutateIssue true there).
    for (const [other, mayMutate] of [[rivalKey.token, false], [ws.token, true]] as const) {
      const seen = await ok(t, other, 'agent.context.bundle', { issueId: issue.id });
      expect(seen.currentRun).toMatchObject({ id: run.id, engagementMode: 'REVIEW' });
      expect(seen.runProtocol).toMatchObject({ runId: null, engagementMode: 'EXECUTE', mayMutateIssue: mayMutate });
      expect(seen.completionContract.engagementMode).toBe('EXECUTE');
    }
    expect((await ok(t, rivalKey.token, 'agent.context.bundle', { issueId: issue.id })).runProtocol.protocolInstruction)
      .toMatch(/^This issue is assigned to another agent \(helper\)/);
  });

  it('threadId: thread, messages, agent, linkedIssues; addressee gating; exactly one of; scope; narrowing; other workspace', async () => {
    const b = await ok(t, helperKey.token, 'agent.context.bundle', { threadId: thread.id });
    expect(Object.keys(b).sort()).toEqual(['agent', 'linkedIssues', 'messageCount', 'messages', 'thread', 'workspace']);
    expect(b.thread.id).toBe(thread.id);
    expect(b.messages.map((m: any) => m.body)[0]).toBe('Can you look at this?');
    expect(b.agent).toMatchObject({ id: helper.id, profileKey: 'helper' });
    expect(b.linkedIssues.map((i: any) => i.title)).toEqual(['Login fails']);
    expect((await ok(t, ws.token, 'agent.context.bundle', { threadId: thread.id })).thread.id).toBe(thread.id); // the opener
    expect((await rest(t, rivalKey.token, 'agent.context.bundle', { threadId: thread.id })).status).toBe(403);
    expect((await rest(t, ws.token, 'agent.context.bundle', {})).body.issues).toHaveProperty('issueId');
    expect((await rest(t, ws.token, 'agent.context.bundle', { issueId: 'CHT-1', threadId: thread.id })).status).toBe(400);
    const noRead = await createKey(t, ws, { scopes: ['WRITE_COMMENTS'] });
    expect((await rest(t, noRead.token, 'agent.context.bundle', { issueId: 'CHT-1' })).body.scope).toBe('READ_ISSUES');
    const { rows: [project] } = await t.pools.owner.query("insert into app_public.projects (workspace_id, name) values ($1, 'Only') returning id", [ws.id]);
    const inside = await ok(t, ws.token, 'issues.create', { title: 'Inside', projectId: project.id });
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [project.id] });
    expect((await ok(t, narrowed.token, 'agent.context.bundle', { issueId: inside.id })).issue.id).toBe(inside.id);
    expect((await rest(t, narrowed.token, 'agent.context.bundle', { issueId: 'CHT-1' })).status).toBe(404);
    expect((await rest(t, other.token, 'agent.context.bundle', { issueId: inside.id })).status).toBe(404);
    expect((await rest(t, other.token, 'agent.context.bundle', { threadId: thread.id })).status).toBe(404);
  });
});

describe('chat.finalizeDraft under concurrency', () => {
  it('concurrent finalizations of one draft each answer 200 with the one message (they raced to a 409 before)', async () => {
    const own = (await gqlOk(t, ws.token, OPEN, { a: helper.id, m: 'Race?', i: null, r: null })).chatOpenThread.chatThread.rowId;
    const raced = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 8 }, () =>
      rest(t, helperKey.token, 'chat.finalizeDraft', { threadId: own, draftId: raced, body: 'once' })));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((r) => r.body.messageId)).size).toBe(1);
  });
});

describe('chat drafts on SSE', () => {
  it('drafts keep commit order on SSE: a message posted before a draft arrives before it, and finalized after the message it names', async () => {
    const orderly = await createAgent(t, ws, 'orderly');
    const orderlyKey = await createKey(t, ws, { agent: 'orderly', scopes: ['READ_ISSUES', 'WRITE_COMMENTS', 'SUBSCRIBE_EVENTS'] });
    const own = { id: (await gqlOk(t, ws.token, OPEN, { a: orderly.id, m: 'Order, please' })).chatOpenThread.chatThread.rowId as string };
    const stream = await openSse(baseUrl, orderlyKey.token);
    await stream.waitForComment((x) => x === 'connected');
    for (let round = 0; round < 3; round++) {
      const posted = await ok(t, orderlyKey.token, 'chat.appendMessage', { threadId: own.id, body: `Before the draft ${round}` });
      const { draftId } = await ok(t, orderlyKey.token, 'chat.startDraft', { threadId: own.id });
      const fin = await ok(t, orderlyKey.token, 'chat.finalizeDraft', { threadId: own.id, draftId, body: `Drafted ${round}` });
      await stream.waitFor((x) => x.id === undefined && data(x).payload.phase === 'finalized' && data(x).payload.draftId === draftId);
      await stream.waitFor((x) => x.id !== undefined && data(x).payload.messageId === fin.messageId);
      const at = (pick: (x: SseMessage) => boolean) => stream.messages.findIndex(pick);
      const stored = (messageId: string) => at((x) => x.id !== undefined && data(x).payload.messageId === messageId);
      const phase = (name: string) => at((x) => x.id === undefined && data(x).payload.draftId === draftId && data(x).payload.phase === name);
      expect(stored(posted.id ?? posted.messageId)).toBeLessThan(phase('started'));
      expect(stored(fin.messageId)).toBeLessThan(phase('finalized'));
    }
    stream.close();
  });
});

describe('chat.listMessages under concurrent writers', () => {
  it('a thread\'s messages commit in seq order: a second writer waits for the first to commit, so a reader paging after its last message skips none', async () => {
    // Writer A: a message inserted in a transaction left open (its seq drawn, not yet visible).
    const a = await t.pools.owner.connect();
    try {
      await a.query('begin');
      const { rows: [early] } = await a.query<{ seq: string }>(
        `insert into app_public.chat_messages (workspace_id, thread_id, role, body, author_agent_id)
         values ($1, $2, 'AGENT', 'drawn first, committed last', $3) returning seq`, [ws.id, thread.id, helper.id]);
      // Writer B, through the tool: before the fix it drew a higher seq and committed at once; a reader then moved its
      // cursor past A's message, which no later page returned.
      let bDone = false;
      const b = ok(t, helperKey.token, 'chat.appendMessage', { threadId: thread.id, body: 'drawn second' }).then((m) => { bDone = true; return m; });
      await new Promise((r) => setTimeout(r, 400));
      expect(bDone, 'the second writer waits for the first').toBe(false);
      const { items } = await ok(t, helperKey.token, 'chat.listMessages', { threadId: thread.id, limit: 200 });
      const last = items.at(-1).id;
      await a.query('commit');
      const second = await b;
      const after = (await ok(t, helperKey.token, 'chat.listMessages', { threadId: thread.id, cursor: last, limit: 200 })).items;
      expect(after.map((m: { body: string }) => m.body)).toEqual(['drawn first, committed last', 'drawn second']);
      expect(Number(early!.seq)).toBeLessThan(Number((await t.pools.owner.query('select seq from app_public.chat_messages where id = $1', [second.messageId])).rows[0].seq));
    } finally {
      await a.query('rollback').catch(() => {});
      a.release();
    }
  });
});
