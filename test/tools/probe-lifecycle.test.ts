/**
 * From an outside probe of object lifecycles (probe-life): what a deleted or archived record leaves behind. Pins of
 * a deleted agent, what keeps an agent from being deleted, the card of a deleted comment, goals and chat threads of
 * a deleted issue, an initiative's projectCount, a key narrowed to a deleted label minting keys, an archived
 * journal, and accepting a request whose target is gone. Each across workspaces too where an id is involved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, insertLabel, insertProject, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let member: { token: string };

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  const email = `member-${ws.key.toLowerCase()}@example.com`;
  await admin(t, 'add-member', { workspace: ws.key, email, role: 'MEMBER', json: true });
  member = await createKey(t, ws, { user: email });
});
afterAll(() => t.close());

const events = async (subjectId: string) => (await t.pools.owner.query(
  'select kind, payload from app_public.activity_events where subject_id = $1 order by seq', [subjectId])).rows;
const pinsOf = async (token: string) =>
  (await gqlOk(t, token, '{ pins(orderBy: POSITION_ASC) { nodes { targetType targetId agent { profileKey } } } }')).pins.nodes;
const PIN = 'mutation($type: PinTargetType!, $id: UUID!) { pinsAdd(input: {targetType: $type, targetId: $id}) { pin { rowId } } }';
const DELETE_AGENT = 'mutation($id: UUID!) { agentsDelete(input: {agentId: $id}) { agent { rowId } } }';

describe('deleting an agent', () => {
  it("removes every member's pins of it, as deleting a cycle does, in the transaction that writes AGENT_DELETED", async () => {
    const bot = await createAgent(t, ws, 'pinned-then-deleted');
    const kept = await createAgent(t, ws, 'pinned-and-kept');
    await gqlOk(t, ws.token, PIN, { type: 'AGENT', id: bot.id });
    await gqlOk(t, member.token, PIN, { type: 'AGENT', id: bot.id });
    await gqlOk(t, member.token, PIN, { type: 'AGENT', id: kept.id });
    // Another workspace cannot delete it (404), and its pins stay meanwhile.
    expect(await gqlError(t, other.token, DELETE_AGENT, { id: bot.id })).toMatchObject({ code: 'not_found', status: 404 });
    expect((await pinsOf(member.token)).map((p: { targetId: string }) => p.targetId)).toEqual([bot.id, kept.id]);

    await gqlOk(t, ws.token, DELETE_AGENT, { id: bot.id });
    expect(await pinsOf(ws.token)).toEqual([]);
    expect(await pinsOf(member.token)).toEqual([{ targetType: 'AGENT', targetId: kept.id, agent: { profileKey: 'pinned-and-kept' } }]);
    const rows = await t.pools.owner.query('select count(*)::int as n from app_public.pins where target_id = $1', [bot.id]);
    expect(rows.rows[0].n).toBe(0);
    expect((await events(bot.id)).map((e: { kind: string }) => e.kind)).toEqual(['AGENT_CREATED', 'AGENT_DELETED']);
  });

  it('a 409 agent_in_use names what holds the agent: an action request, a run, a chat thread, an issue', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Holds agents' });
    const byRequest = await createAgent(t, ws, 'held-by-request');
    await ok(t, ws.token, 'actionRequests.create', { title: 'Your call', issueId: issue.id, assignedAgentId: byRequest.id });
    const r1 = await gqlError(t, ws.token, DELETE_AGENT, { id: byRequest.id });
    expect(r1).toMatchObject({ code: 'agent_in_use', status: 409 });
    expect(r1.message).toBe('Agent held-by-request still has action requests; archive it instead');

    const byRun = await createAgent(t, ws, 'held-by-run');
    await t.pools.owner.query(`insert into app_public.agent_runs (workspace_id, issue_id, agent_id, status, finished_at)
      values ($1, $2, $3, 'ABANDONED', now())`, [ws.id, issue.id, byRun.id]);
    expect((await gqlError(t, ws.token, DELETE_AGENT, { id: byRun.id })).message).toBe('Agent held-by-run still has runs; archive it instead');

    const byThread = await createAgent(t, ws, 'held-by-thread');
    await gqlOk(t, ws.token, 'mutation($a: UUID!) { chatOpenThread(input: {agentId: $a}) { chatThread { rowId } } }', { a: byThread.id });
    expect((await gqlError(t, ws.token, DELETE_AGENT, { id: byThread.id })).message).toBe('Agent held-by-thread still has chat threads; archive it instead');

    const byIssueAndRequest = await createAgent(t, ws, 'held-by-two');
    await ok(t, ws.token, 'actionRequests.create', { title: 'Another call', issueId: issue.id, assignedAgentId: byIssueAndRequest.id });
    await t.pools.owner.query('update app_public.issues set assigned_agent_id = $1 where id = $2', [byIssueAndRequest.id, issue.id]);
    expect((await gqlError(t, ws.token, DELETE_AGENT, { id: byIssueAndRequest.id })).message)
      .toBe('Agent held-by-two still has issues, action requests; archive it instead');
    // Nothing was deleted or revoked on the way.
    const left = await t.pools.owner.query('select count(*)::int as n from app_public.agents where id = any($1)',
      [[byRequest.id, byRun.id, byThread.id, byIssueAndRequest.id]]);
    expect(left.rows[0].n).toBe(4);
  });
});

describe("a comment's action-request card", () => {
  it('is 404 to every request tool, out of lists and GraphQL while its comment is deleted, as a deleted issue\'s requests are', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'A card on a comment' });
    const c = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'Which one?',
      actionRequest: { title: 'Pick', options: [{ key: 'y', label: 'Yes' }, { key: 'n', label: 'No' }] } });
    const card = c.actionRequest;
    expect(card).toMatchObject({ commentId: c.id, sourceType: 'comment', sourceId: c.id, status: 'OPEN' });
    const plain = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'Second opinion',
      actionRequest: { title: 'Look' } });
    // Another workspace never sees it.
    expect((await rest(t, other.token, 'actionRequests.get', { id: card.id })).status).toBe(404);

    await ok(t, ws.token, 'comments.delete', { id: c.id });
    await ok(t, ws.token, 'comments.delete', { id: plain.id });
    expect((await rest(t, ws.token, 'comments.get', { id: c.id })).status).toBe(404);
    for (const [tool, input] of [['actionRequests.get', { id: card.id }], ['actionRequests.results', { id: card.id }],
      ['actionRequests.vote', { id: card.id, optionKey: 'y' }], ['actionRequests.closeVoting', { id: card.id }],
      ['actionRequests.decline', { id: plain.actionRequest.id }], ['actionRequests.accept', { id: plain.actionRequest.id }],
      ['actionRequests.transition', { id: plain.actionRequest.id, status: 'SNOOZED' }]] as const) {
      const r = await rest(t, ws.token, tool, input);
      expect([tool, r.status, r.body.field]).toEqual([tool, 404, 'id']);
    }
    const listed = (await ok(t, ws.token, 'actionRequests.list', { limit: 200 })).items.map((r: { id: string }) => r.id);
    expect(listed).not.toContain(card.id);
    expect((await ok(t, ws.token, 'actionRequests.list', { issueId: issue.id })).items).toEqual([]);
    const viaGraphql = await gqlOk(t, ws.token, '{ actionRequests { nodes { rowId } } actionRequestVotes { totalCount } }');
    expect(viaGraphql.actionRequests.nodes.map((n: { rowId: string }) => n.rowId)).not.toContain(card.id);
    // Nothing moved: still OPEN underneath, no vote, no event beyond its creation.
    expect((await t.pools.owner.query('select status from app_public.action_requests where id = $1', [card.id])).rows[0].status).toBe('OPEN');
    expect((await events(card.id)).map((e: { payload: { change: string } }) => e.payload.change)).toEqual(['created']);

    // There is no comments.restore (a deleted comment is not restored: docs/decisions.md). Undeleted underneath, the
    // card is back as it was: the policy hides it only while its comment is deleted.
    expect((await rest(t, ws.token, 'comments.restore', { id: c.id })).status).toBe(404);
    await t.pools.owner.query('update app_public.comments set deleted_at = null where id = $1', [c.id]);
    expect(await ok(t, ws.token, 'actionRequests.get', { id: card.id })).toMatchObject({ status: 'OPEN', commentId: c.id });
    expect((await ok(t, ws.token, 'actionRequests.vote', { id: card.id, optionKey: 'y' })).changed).toBe(true);
    expect((await rest(t, other.token, 'actionRequests.vote', { id: card.id, optionKey: 'n' })).status).toBe(404);
  });

  it('a request that only names a deleted comment as its source (sourceType comment) stays, as one naming a deleted issue does', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Source only' });
    const c = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'The source' });
    const req = await ok(t, ws.token, 'actionRequests.create', { title: 'About that comment', issueId: issue.id, sourceType: 'comment', sourceId: c.id });
    expect(req.commentId).toBeNull();
    await ok(t, ws.token, 'comments.delete', { id: c.id });
    expect((await ok(t, ws.token, 'actionRequests.get', { id: req.id })).sourceId).toBe(c.id);
  });
});

describe('goals and chat threads of a deleted issue', () => {
  it('a goal on a deleted issue is 404 to goals.get, plans.decompose and its plan, out of goals.list; back with issues.restore', async () => {
    const project = await insertProject(t, ws, 'Goals seen');
    const narrowed = await createKey(t, ws, { projects: [project] });
    const planner = await createAgent(t, ws, 'goal-planner');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Goal issue', projectId: project });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Ship it', issueId: issue.id });
    const loose = await ok(t, ws.token, 'goals.create', { title: 'Without an issue' });
    const first = await ok(t, ws.token, 'plans.decompose', { goalId: goal.id, plannerAgentId: planner.id });
    const { stepIds: [step] } = await ok(t, ws.token, 'plans.addSteps', { planId: first.planId, steps: [{ title: 'Do it' }] });
    const gate = (await t.pools.owner.query(`insert into app_public.review_gates (workspace_id, plan_id, reason, title)
      values ($1, $2, 'MANUAL', 'Look first') returning id`, [ws.id, first.planId])).rows[0].id;
    expect((await ok(t, ws.token, 'reviewGates.get', { id: gate })).id).toBe(gate);
    expect((await rest(t, other.token, 'goals.get', { id: goal.id })).status).toBe(404);
    expect((await rest(t, other.token, 'reviewGates.get', { id: gate })).status).toBe(404);
    expect((await ok(t, narrowed.token, 'goals.get', { id: goal.id })).id).toBe(goal.id);

    await ok(t, ws.token, 'issues.delete', { id: issue.id });
    for (const token of [ws.token, narrowed.token]) {
      const get = await rest(t, token, 'goals.get', { id: goal.id });
      expect([get.status, get.body.field]).toEqual([404, 'id']);
      const decompose = await rest(t, token, 'plans.decompose', { goalId: goal.id, plannerAgentId: planner.id });
      expect([decompose.status, decompose.body.field]).toEqual([404, 'goalId']);
      expect((await rest(t, token, 'executionPlans.get', { id: first.planId })).status).toBe(404);
      const goals = (await ok(t, token, 'goals.list', {})).items.map((g: { id: string }) => g.id);
      expect(goals).not.toContain(goal.id);
      // Its plan's steps and gates with it.
      const move = await rest(t, token, 'executionPlans.transitionStep', { stepId: step, status: 'CANCELED' });
      expect([move.status, move.body.field]).toEqual([404, 'stepId']);
      expect((await rest(t, token, 'plans.judge', { stepId: step })).status).toBe(404);
      expect((await rest(t, token, 'reviewGates.get', { id: gate })).status).toBe(404);
      expect((await rest(t, token, 'reviewGates.resolve', { id: gate, decision: 'APPROVE' })).status).toBe(404);
      expect((await ok(t, token, 'reviewGates.list', {})).items.map((g: { id: string }) => g.id)).not.toContain(gate);
      expect((await ok(t, token, 'executionPlans.list', {})).items.map((p: { id: string }) => p.id)).not.toContain(first.planId);
    }
    expect((await ok(t, ws.token, 'goals.get', { id: loose.id })).id).toBe(loose.id);
    const viaGraphql = await gqlOk(t, ws.token, '{ goals { nodes { rowId } } executionPlans { nodes { rowId } } }');
    expect(viaGraphql.goals.nodes.map((n: { rowId: string }) => n.rowId)).not.toContain(goal.id);
    expect(viaGraphql.executionPlans.nodes.map((n: { rowId: string }) => n.rowId)).not.toContain(first.planId);
    // No second attempt was made, and the goal's events stay in the stream of both keys (they follow the issue row).
    expect((await t.pools.owner.query('select count(*)::int as n from app_public.execution_plans where goal_id = $1', [goal.id])).rows[0].n).toBe(1);
    for (const token of [ws.token, narrowed.token]) {
      const kinds = (await ok(t, token, 'events.recent', { subjectType: 'goal', subjectId: goal.id })).items.map((e: { kind: string }) => e.kind);
      expect(kinds).toContain('GOAL_CREATED');
    }

    await ok(t, ws.token, 'issues.restore', { id: issue.id });
    expect((await ok(t, narrowed.token, 'goals.get', { id: goal.id })).plans.map((p: { id: string }) => p.id)).toEqual([first.planId]);
    expect((await ok(t, narrowed.token, 'reviewGates.get', { id: gate })).id).toBe(gate);
    // The step is there again: its own rule answers (the plan is still a DRAFT), not a 404.
    const back = await rest(t, ws.token, 'executionPlans.transitionStep', { stepId: step, status: 'CANCELED' });
    expect([back.status, back.body.error]).toEqual([409, 'plan_not_running']);
    const second = await ok(t, ws.token, 'plans.decompose', { goalId: goal.id, plannerAgentId: planner.id });
    expect(second).toMatchObject({ goalId: goal.id, attempt: 2 });
  });

  it('a chat thread on a deleted issue is 404 to chat.appendMessage and chatPostMessage, out of chat.listThreads; back with issues.restore', async () => {
    // The agent's key is narrowed to the issue's project: its view of the thread's events follows the issue row.
    const project = await insertProject(t, ws, 'Threads seen');
    const bot = await createAgent(t, ws, 'thread-bot');
    const botKey = await createKey(t, ws, { agent: 'thread-bot', scopes: ['READ_ISSUES', 'WRITE_COMMENTS'], projects: [project] });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Talked about', projectId: project });
    const opened = await gqlOk(t, ws.token, `mutation($a: UUID!, $i: UUID!) { chatOpenThread(input: {agentId: $a, issueId: $i, message: "Look?"}) {
      chatThread { rowId } } }`, { a: bot.id, i: issue.id });
    const thread = opened.chatOpenThread.chatThread.rowId as string;
    const POST = 'mutation($t: UUID!, $b: String!) { chatPostMessage(input: {threadId: $t, body: $b}) { chatMessage { rowId } } }';
    expect(await gqlError(t, other.token, POST, { t: thread, b: 'from elsewhere' })).toMatchObject({ code: 'not_found', status: 404 });
    await ok(t, botKey.token, 'chat.appendMessage', { threadId: thread, body: 'On it' });

    await ok(t, ws.token, 'issues.delete', { id: issue.id });
    const append = await rest(t, botKey.token, 'chat.appendMessage', { threadId: thread, body: 'Still here?' });
    expect([append.status, append.body.field]).toEqual([404, 'threadId']);
    expect((await rest(t, botKey.token, 'chat.getThread', { threadId: thread })).status).toBe(404);
    expect((await rest(t, botKey.token, 'chat.startDraft', { threadId: thread })).status).toBe(404);
    expect((await ok(t, botKey.token, 'chat.listThreads', {})).items.map((x: { id: string }) => x.id)).not.toContain(thread);
    expect(await gqlError(t, ws.token, POST, { t: thread, b: 'Hello?' })).toMatchObject({ code: 'not_found', status: 404 });
    expect((await gqlOk(t, ws.token, '{ chatThreads { nodes { rowId } } }')).chatThreads.nodes.map((n: { rowId: string }) => n.rowId)).not.toContain(thread);
    const messages = await t.pools.owner.query('select count(*)::int as n from app_public.chat_messages where thread_id = $1', [thread]);
    expect(messages.rows[0].n).toBe(2);
    // Its stored events stay visible to the agent's narrowed key and the owner (they follow the thread's issue row).
    expect((await ok(t, botKey.token, 'events.recent', { subjectType: 'chat-thread', subjectId: thread })).items.length).toBe(3);
    expect((await ok(t, ws.token, 'events.recent', { subjectType: 'chat-thread', subjectId: thread })).items.length).toBe(3);

    await ok(t, ws.token, 'issues.restore', { id: issue.id });
    expect((await ok(t, botKey.token, 'chat.listThreads', {})).items.map((x: { id: string }) => x.id)).toContain(thread);
    await ok(t, botKey.token, 'chat.appendMessage', { threadId: thread, body: 'Back' });
    expect((await gqlOk(t, ws.token, POST, { t: thread, b: 'Good' })).chatPostMessage.chatMessage.rowId).toEqual(expect.any(String));
    expect(await gqlError(t, other.token, POST, { t: thread, b: 'from elsewhere' })).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe("an initiative's projectCount", () => {
  it('counts the linked projects projects[] and initiatives.summary list, archived ones included', async () => {
    const initiative = await ok(t, ws.token, 'initiatives.create', { name: 'Counted' });
    const live = await ok(t, ws.token, 'projects.create', { name: 'Live one', initiativeId: initiative.id });
    const archived = await ok(t, ws.token, 'projects.create', { name: 'Archived one', initiativeId: initiative.id });
    await ok(t, ws.token, 'projects.archive', { id: archived.id });
    const got = await ok(t, ws.token, 'initiatives.get', { id: initiative.id });
    expect(got.projects.map((p: { id: string }) => p.id).sort()).toEqual([live.id, archived.id].sort());
    expect(got.projectCount).toBe(2);
    const row = (await ok(t, ws.token, 'initiatives.list', {})).items.find((i: { id: string }) => i.id === initiative.id);
    expect(row.projectCount).toBe(2);
    const summary = await ok(t, ws.token, 'initiatives.summary', { id: initiative.id });
    expect([summary.initiative.projectCount, summary.projects.length]).toEqual([2, 2]);
    // A key narrowed to one of them counts that one, as it lists it; another workspace gets a 404.
    const narrowed = await createKey(t, ws, { projects: [live.id] });
    const seen = await ok(t, narrowed.token, 'initiatives.get', { id: initiative.id });
    expect([seen.projectCount, seen.projects.length]).toEqual([1, 1]);
    expect((await rest(t, other.token, 'initiatives.get', { id: initiative.id })).status).toBe(404);
  });
});

describe('a key narrowed to a label deleted since', () => {
  const CREATE = 'mutation { accessCreate(input: {}) { issuedApiKey { rowId labelIds projectIds } } }';

  it('cannot pass that narrowing on: 409 narrowing_stale saying why, never a key with less narrowing', async () => {
    const gone = await insertLabel(t, ws, 'gone-soon');
    const stays = await insertLabel(t, ws, 'stays');
    const narrowed = await createKey(t, ws, { labels: [gone, stays] });
    const before = (await gqlOk(t, narrowed.token, CREATE)).accessCreate.issuedApiKey;
    expect(before.labelIds.sort()).toEqual([gone, stays].sort());
    await ok(t, ws.token, 'labels.delete', { id: gone });
    const keyCount = async () => (await t.pools.owner.query('select count(*)::int as n from app_private.api_keys where workspace_id = $1', [ws.id])).rows[0].n;
    const keysBefore = await keyCount();

    for (const q of [CREATE, 'mutation { accessCreateSession(input: {ttlHours: 2}) { issuedApiKey { rowId } } }']) {
      const e = await gqlError(t, narrowed.token, q);
      expect(e).toMatchObject({ code: 'narrowing_stale', status: 409 });
      expect(e.message).toMatch(/^This key's own narrowing names a label that no longer exists, so it cannot pass its narrowing on to a new key; use a fresh key/);
      expect(e.issues).toBeUndefined();
    }
    // The same for a plugin key it issues (it inherits the issuer's narrowing too).
    const plugin = (await gqlOk(t, ws.token, 'mutation { pluginsCreate(input: {name: "Stale narrowing", scopes: [FULL]}) { pluginInfo { rowId } } }')).pluginsCreate.pluginInfo.rowId;
    expect(await gqlError(t, narrowed.token, `mutation($p: UUID!) { pluginIssueApiKey(input: {pluginId: $p, scopes: [READ_ISSUES]}) { issuedApiKey { rowId } } }`, { p: plugin }))
      .toMatchObject({ code: 'narrowing_stale', status: 409 });
    // Nothing was issued (no key with the deleted label dropped, let alone an unnarrowed one).
    expect(await keyCount()).toBe(keysBefore);
    // Naming what still exists within its narrowing works; naming the deleted label is the caller's own 400.
    const within = (await gqlOk(t, narrowed.token, `mutation($l: [UUID]!) { accessCreate(input: {labelIds: $l}) { issuedApiKey { labelIds } } }`, { l: [stays] })).accessCreate.issuedApiKey;
    expect(within.labelIds).toEqual([stays]);
    expect(await gqlError(t, narrowed.token, `mutation($l: [UUID]!) { accessCreate(input: {labelIds: $l}) { issuedApiKey { rowId } } }`, { l: [gone] }))
      .toMatchObject({ code: 'invalid_input', issues: { labelIds: 'unknown label in this workspace' } });
    // A key of another workspace naming this label: 400 as an unknown label there, not this 409.
    expect(await gqlError(t, other.token, `mutation($l: [UUID]!) { accessCreate(input: {labelIds: $l}) { issuedApiKey { rowId } } }`, { l: [stays] }))
      .toMatchObject({ code: 'invalid_input', issues: { labelIds: expect.any(String) } });
  });
});

describe("today's journal archived", () => {
  it('notes.create {kind: JOURNAL} says it is archived and how to restore it (409 journal_archived); restored, it is written', async () => {
    const today = await ok(t, member.token, 'notes.todayJournal', {});
    await ok(t, member.token, 'notes.archive', { id: today.id });
    const again = await rest(t, member.token, 'notes.create', { kind: 'JOURNAL', body: 'Standup notes' });
    expect([again.status, again.body.error]).toEqual([409, 'journal_archived']);
    expect(again.body.message).toBe(`The journal entry for ${today.journalDate} (note ${today.id}) is archived: restore it in the app (GraphQL notesRestore) to write in it; no MCP tool unarchives notes`);
    // The owner's own journal of the day is theirs: not archived, so still journal_exists for them.
    await ok(t, ws.token, 'notes.todayJournal', {});
    expect((await rest(t, ws.token, 'notes.create', { kind: 'JOURNAL', body: 'x' })).body.error).toBe('journal_exists');
    // Another user cannot restore it (not found), the member can.
    expect(await gqlError(t, ws.token, 'mutation($n: UUID!) { notesRestore(input: {noteId: $n}) { note { rowId } } }', { n: today.id }))
      .toMatchObject({ code: 'not_found' });
    await gqlOk(t, member.token, 'mutation($n: UUID!) { notesRestore(input: {noteId: $n}) { note { rowId } } }', { n: today.id });
    expect(await ok(t, member.token, 'notes.update', { id: today.id, body: 'Standup notes' })).toMatchObject({ body: 'Standup notes', archived: false });
    expect((await rest(t, member.token, 'notes.create', { kind: 'JOURNAL', body: 'y' })).body.error).toBe('journal_exists');
  });
});

describe('accepting a request whose payload names a record gone since', () => {
  it('names the payload field it came from; an archived agent answers as issues.assign does', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Accept targets' });
    const status = await ok(t, ws.token, 'statuses.create', { name: `Gone ${Date.now()}`, category: 'IN_PROGRESS' });
    const label = await ok(t, ws.token, 'labels.create', { name: 'gone-label' });
    const agent = await createAgent(t, ws, 'archived-target');
    const mk = (kind: string, payload: object) => ok(t, ws.token, 'actionRequests.create', { title: kind, issueId: issue.id, kind, payload });
    const tr = await mk('TRANSITION', { statusId: status.id });
    const sl = await mk('SET_LABELS', { add: [label.id] });
    const as = await mk('ASSIGN_AGENT', { agentId: agent.id });
    await ok(t, ws.token, 'statuses.delete', { id: status.id });
    await ok(t, ws.token, 'labels.delete', { id: label.id });
    await gqlOk(t, ws.token, 'mutation($id: UUID!) { agentsArchive(input: {agentId: $id}) { agent { rowId } } }', { id: agent.id });

    const transition = await rest(t, ws.token, 'actionRequests.accept', { id: tr.id });
    expect([transition.status, transition.body.error, transition.body.field]).toEqual([404, 'not_found', 'payload.statusId']);
    const labels = await rest(t, ws.token, 'actionRequests.accept', { id: sl.id });
    expect([labels.status, labels.body.error, labels.body.field]).toEqual([404, 'not_found', 'payload.add']);
    const assign = await rest(t, ws.token, 'actionRequests.accept', { id: as.id });
    const direct = await rest(t, ws.token, 'issues.assign', { id: issue.id, agentId: agent.id });
    expect(assign.status).toBe(direct.status);
    expect(assign.body.error).toBe(direct.body.error);
    expect([assign.body.error, Object.keys(assign.body.issues ?? {})]).toEqual(['agent_archived', ['payload.agentId']]);
    // Nothing was dispatched: all three stay OPEN, the issue unchanged.
    for (const r of [tr, sl, as]) expect((await ok(t, ws.token, 'actionRequests.get', { id: r.id })).status).toBe('OPEN');
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgentId).toBeNull();
    // Another workspace cannot accept them.
    expect((await rest(t, other.token, 'actionRequests.accept', { id: tr.id })).status).toBe(404);
  });
});
