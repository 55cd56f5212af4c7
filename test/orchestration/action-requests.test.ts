/** actionRequests.* (spec 3.6, 4.11, 6.4) and comments.create's actionRequest bundle. */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let agent: { id: string };
let agentKey: { token: string };
let memberKey: { token: string };   // a MEMBER acting as a person, WRITE_ISSUES only: not assignee, watcher or admin
let statuses: Record<string, string>;

const events = async (subjectId: string) => (await t.pools.owner.query(
  `select kind, subject_type, payload from app_public.activity_events where subject_id = $1 order by seq`, [subjectId])).rows;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'ARQ');
  other = await createWorkspace(t, 'ARX');
  agent = await createAgent(t, ws, 'helper');
  agentKey = await createKey(t, ws, { agent: 'helper', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'WRITE_COMMENTS'] });
  await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
  memberKey = await createKey(t, ws, { user: 'member@example.com', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'WRITE_COMMENTS'] });
  statuses = Object.fromEntries((await ok(t, ws.token, 'statuses.list', {})).map((s: any) => [s.category, s.id]));
});
afterAll(() => t.close());

describe('actionRequests', () => {
  it('create, list (newest first, filters), transition along the machine, 409 once closed', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Decide' });
    const r1 = await ok(t, ws.token, 'actionRequests.create', { title: 'Look at this', issueId: issue.key, severity: 'WARNING' });
    expect(r1).toMatchObject({ status: 'OPEN', kind: 'FREE_FORM', severity: 'WARNING', issueId: issue.id, isPoll: false });
    const r2 = await ok(t, ws.token, 'actionRequests.create', { title: 'Agent task', assignedAgentId: agent.id });
    const list = await ok(t, ws.token, 'actionRequests.list', {});
    expect(list.items.slice(0, 2).map((r: any) => r.id)).toEqual([r2.id, r1.id]);
    expect((await ok(t, ws.token, 'actionRequests.list', { issueId: issue.key })).items.map((r: any) => r.id)).toEqual([r1.id]);
    expect((await ok(t, ws.token, 'actionRequests.list', { assignedAgentId: agent.id })).items.map((r: any) => r.id)).toEqual([r2.id]);
    expect(await ok(t, ws.token, 'actionRequests.transition', { id: r1.id, status: 'SNOOZED' })).toMatchObject({ status: 'SNOOZED' });
    expect(await ok(t, ws.token, 'actionRequests.transition', { id: r1.id, status: 'OPEN' })).toMatchObject({ status: 'OPEN' });
    expect(await ok(t, ws.token, 'actionRequests.transition', { id: r1.id, status: 'DISMISSED' })).toMatchObject({ status: 'DISMISSED' });
    const again = await rest(t, ws.token, 'actionRequests.transition', { id: r1.id, status: 'RESOLVED' });
    expect([again.status, again.body.error]).toEqual([409, 'illegal_transition']);
    expect((await events(r1.id)).map((e: any) => `${e.kind}/${e.subject_type} ${e.payload.change} ${e.payload.to ?? ''}`)).toEqual([
      'ISSUE_UPDATED/action-request created ', 'ISSUE_UPDATED/action-request status SNOOZED',
      'ISSUE_UPDATED/action-request status OPEN', 'ISSUE_UPDATED/action-request status DISMISSED']);
  });

  it('the requests of a deleted issue are gone with it (404 to every tool, out of lists and GraphQL) and come back with it', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Deleted with its requests' });
    const poll = await ok(t, ws.token, 'actionRequests.create', { title: 'Which?', issueId: issue.id, options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    const card = await ok(t, ws.token, 'actionRequests.create', { title: 'Look', issueId: issue.id });
    await ok(t, ws.token, 'issues.delete', { id: issue.id });
    for (const [tool, input] of [['actionRequests.get', { id: poll.id }], ['actionRequests.results', { id: poll.id }],
      ['actionRequests.vote', { id: poll.id, optionKey: 'a' }], ['actionRequests.closeVoting', { id: poll.id }],
      ['actionRequests.decline', { id: card.id }], ['actionRequests.accept', { id: card.id }],
      ['actionRequests.transition', { id: card.id, status: 'SNOOZED' }]] as const) {
      expect([tool, (await rest(t, ws.token, tool, input)).status]).toEqual([tool, 404]);
    }
    const listed = (await ok(t, ws.token, 'actionRequests.list', { limit: 200 })).items.map((r: { id: string }) => r.id);
    expect(listed).not.toContain(poll.id);
    const viaGraphql = await gqlOk(t, ws.token, '{ actionRequests { nodes { rowId } } }');
    expect(viaGraphql.actionRequests.nodes.map((n: { rowId: string }) => n.rowId)).not.toContain(card.id);
    await ok(t, ws.token, 'issues.restore', { id: issue.id });
    expect((await ok(t, ws.token, 'actionRequests.get', { id: poll.id })).status).toBe('OPEN');
    expect((await ok(t, ws.token, 'actionRequests.vote', { id: poll.id, optionKey: 'a' })).changed).toBe(true);
  });

  it('accept runs the bound dispatch of each kind in the same transaction, then resolves', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Target' });
    const dup = await ok(t, ws.token, 'issues.create', { title: 'Original' });
    const label = await ok(t, ws.token, 'labels.create', { name: 'triaged' });
    const mk = (kind: string, payload: object) => ok(t, agentKey.token, 'actionRequests.create', { title: kind, issueId: issue.id, kind, payload });
    const tr = await mk('TRANSITION', { statusId: statuses.IN_PROGRESS });
    expect((await ok(t, ws.token, 'actionRequests.accept', { id: tr.id })).dispatchResult).toMatchObject({ action: 'transition', statusId: statuses.IN_PROGRESS });
    const sl = await mk('SET_LABELS', { add: [label.id] });
    await ok(t, ws.token, 'actionRequests.accept', { id: sl.id });
    const as = await mk('ASSIGN_AGENT', { agentId: agent.id });
    await ok(t, ws.token, 'actionRequests.accept', { id: as.id });
    let got = await ok(t, ws.token, 'issues.get', { id: issue.id, include: { labels: true, currentRun: true } });
    expect(got).toMatchObject({ statusId: statuses.IN_PROGRESS, assignedAgentId: agent.id, currentRun: { agentId: agent.id } });
    expect(got.labelIds ?? got.labels.map((l: any) => l.id)).toContain(label.id);
    // Named by its key, as an issue is everywhere; stored as its id.
    const cd = await mk('CLOSE_AS_DUPLICATE', { duplicateOfIssueId: dup.key });
    expect(cd.payload.duplicateOfIssueId).toBe(dup.id);
    const done = await ok(t, ws.token, 'actionRequests.accept', { id: cd.id });
    expect(done).toMatchObject({ status: 'RESOLVED', dispatchResult: { action: 'close_as_duplicate', statusId: statuses.CANCELED } });
    got = await ok(t, ws.token, 'issues.get', { id: issue.id, include: { relations: true } });
    expect(got.statusId).toBe(statuses.CANCELED);
    expect(got.relations).toContainEqual(expect.objectContaining({ kind: 'DUPLICATES', toIssueId: dup.id }));
    // Decline: REJECTED, nothing dispatched.
    const no = await mk('TRANSITION', { statusId: statuses.DONE });
    expect(await ok(t, ws.token, 'actionRequests.decline', { id: no.id })).toMatchObject({ status: 'REJECTED', dispatchResult: null });
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).statusId).toBe(statuses.CANCELED);
    expect((await rest(t, ws.token, 'actionRequests.accept', { id: no.id })).status).toBe(409);
  });

  it('accept/decline: assignee, watcher, OWNER/ADMIN only; same run-mode gating as the direct tool; a failed dispatch leaves the request open', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Gated' });
    const req = await ok(t, ws.token, 'actionRequests.create', { title: 'Move it', issueId: issue.id, kind: 'TRANSITION', payload: { statusId: statuses.DONE } });
    const denied = await rest(t, memberKey.token, 'actionRequests.accept', { id: req.id });
    expect([denied.status, denied.body.error]).toEqual([403, 'not_allowed']);
    const deniedMove = await rest(t, memberKey.token, 'actionRequests.transition', { id: req.id, status: 'REJECTED' });
    expect([deniedMove.status, deniedMove.body.error]).toEqual([403, 'not_allowed']);
    // The requester may withdraw what it asked, though it may not decide it.
    const mine = await ok(t, memberKey.token, 'actionRequests.create', { title: 'Never mind', issueId: issue.id });
    for (const status of ['RESOLVED', 'REJECTED']) {  // but not decide it
      const r = await rest(t, memberKey.token, 'actionRequests.transition', { id: mine.id, status });
      expect([status, r.status, r.body.error]).toEqual([status, 403, 'not_allowed']);
    }
    expect(await ok(t, memberKey.token, 'actionRequests.transition', { id: mine.id, status: 'DISMISSED' })).toMatchObject({ status: 'DISMISSED' });
    expect((await rest(t, memberKey.token, 'actionRequests.decline', { id: req.id })).status).toBe(403);
    await ok(t, memberKey.token, 'issues.watch', { issueId: issue.id });           // a watcher may decide
    // The agent has a REVIEW-mode run on the issue: its accept is gated like issues.transition.
    await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: agent.id, mode: 'REVIEW' });
    const assigned = await ok(t, ws.token, 'actionRequests.create', { title: 'Agent: move it', issueId: issue.id, kind: 'TRANSITION',
      payload: { statusId: statuses.DONE }, assignedAgentId: agent.id });
    const gated = await rest(t, agentKey.token, 'actionRequests.accept', { id: assigned.id });
    expect([gated.status, gated.body.error]).toEqual([403, 'run_mode_gated']);
    // transition is no way around either gate (an outside probe rejected requests through it).
    const gatedMove = await rest(t, agentKey.token, 'actionRequests.transition', { id: assigned.id, status: 'RESOLVED' });
    expect([gatedMove.status, gatedMove.body.error]).toEqual([403, 'run_mode_gated']);
    expect((await ok(t, ws.token, 'actionRequests.list', { issueId: issue.id, status: 'OPEN' })).items).toHaveLength(2);
    expect(await ok(t, memberKey.token, 'actionRequests.accept', { id: req.id })).toMatchObject({ status: 'RESOLVED' });
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).statusId).toBe(statuses.DONE);
  });

  it('a person key with no agent cannot decide a request assigned to an agent (NULL-safe gate); the agent can', async () => {
    await createAgent(t, ws, 'bot2');
    const bot2Key = await createKey(t, ws, { agent: 'bot2', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const bot2 = (await ok(t, bot2Key.token, 'agents.me', {})) as { id: string };
    const plainMember = await createKey(t, ws, { user: 'member@example.com', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'READ_USERS', 'WRITE_COMMENTS'] });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'For bot2' });
    const mk = () => ok(t, ws.token, 'actionRequests.create', { title: 'Cancel it?', issueId: issue.id, kind: 'TRANSITION',
      payload: { statusId: statuses.CANCELED }, assignedAgentId: bot2.id });
    const req = await mk();
    for (const verb of ['actionRequests.accept', 'actionRequests.decline']) {
      const r = await rest(t, plainMember.token, verb, { id: req.id });
      expect([verb, r.status, r.body.error]).toEqual([verb, 403, 'not_allowed']);
      // Another agent's key is not the assignee either.
      expect((await rest(t, agentKey.token, verb, { id: req.id })).body.error).toBe('not_allowed');
    }
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).statusId).not.toBe(statuses.CANCELED);
    expect((await ok(t, ws.token, 'actionRequests.list', { issueId: issue.id })).items[0].status).toBe('OPEN');
    // The assigned agent's own key decides.
    expect(await ok(t, bot2Key.token, 'actionRequests.decline', { id: req.id })).toMatchObject({ status: 'REJECTED' });
    const req2 = await mk();
    expect(await ok(t, bot2Key.token, 'actionRequests.accept', { id: req2.id })).toMatchObject({ status: 'RESOLVED' });
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).statusId).toBe(statuses.CANCELED);
  });

  it('OWNER/ADMIN is the membership role of a person, not the ADMIN scope of a key', async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'ann@example.com', role: 'MEMBER', json: true });
    await admin(t, 'add-member', { workspace: ws.key, email: 'bob@example.com', role: 'MEMBER', json: true });
    await admin(t, 'add-member', { workspace: ws.key, email: 'ada@example.com', role: 'ADMIN', json: true });
    const ann = (await t.pools.owner.query(`select id from app_public.users where email = 'ann@example.com'`)).rows[0].id;
    const annKey = await createKey(t, ws, { user: 'ann@example.com', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const bobFull = await createKey(t, ws, { user: 'bob@example.com', scopes: ['FULL'] });
    const bobAdmin = await createKey(t, ws, { user: 'bob@example.com', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'ADMIN'] });
    const adaKey = await createKey(t, ws, { user: 'ada@example.com', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const ownerAgentFull = await createKey(t, ws, { agent: 'helper', scopes: ['FULL'] }); // the owner's user, acting as an agent
    const mk = () => ok(t, ws.token, 'actionRequests.create', { title: 'For ann', assignedUserId: ann });
    const req = await mk();
    for (const key of [bobFull, bobAdmin, ownerAgentFull]) {
      for (const verb of ['actionRequests.decline', 'actionRequests.accept']) {
        const r = await rest(t, key.token, verb, { id: req.id });
        expect([r.status, r.body.error]).toEqual([403, 'not_allowed']);
      }
    }
    // A workspace ADMIN acting as a person decides without the ADMIN scope; so does the OWNER; so does ann.
    expect(await ok(t, adaKey.token, 'actionRequests.decline', { id: req.id })).toMatchObject({ status: 'REJECTED' });
    expect(await ok(t, ws.token, 'actionRequests.accept', { id: (await mk()).id })).toMatchObject({ status: 'RESOLVED' });
    expect(await ok(t, annKey.token, 'actionRequests.decline', { id: (await mk()).id })).toMatchObject({ status: 'REJECTED' });
  });

  it('closeVoting on a poll an agent created: only that agent; a person key or another agent is 403 not_requester', async () => {
    await createAgent(t, ws, 'pollster');
    const pollsterKey = await createKey(t, ws, { agent: 'pollster', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const poll = await ok(t, pollsterKey.token, 'actionRequests.create', { title: 'Agent asks', options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    await ok(t, memberKey.token, 'actionRequests.vote', { id: poll.id, optionKey: 'b' });
    for (const key of [memberKey, agentKey, ws]) {
      const r = await rest(t, key.token, 'actionRequests.closeVoting', { id: poll.id });
      expect([r.status, r.body.error]).toEqual([403, 'not_requester']);
    }
    expect((await ok(t, ws.token, 'actionRequests.results', { id: poll.id })).votingClosedAt).toBeNull();
    expect(await ok(t, pollsterKey.token, 'actionRequests.closeVoting', { id: poll.id })).toMatchObject({ winningOptionKey: 'b', total: 1 });
  });

  it('polls: vote (overwrite, changed), results with tie-break, closeVoting by the requester only, vote after close 400', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Poll' });
    const poll = await ok(t, ws.token, 'actionRequests.create', { title: 'Which DB?', issueId: issue.id,
      options: [{ key: 'pg', label: 'PostgreSQL', description: 'What we run now' }, { key: 'my', label: 'MySQL' }, { key: 'sq', label: 'SQLite' }] });
    expect(poll.isPoll).toBe(true);
    // An option's description (spec 2.13) comes back, and the output schema names it (the harness's audit).
    expect(poll.options[0]).toEqual({ key: 'pg', label: 'PostgreSQL', description: 'What we run now' });
    expect((await ok(t, ws.token, 'actionRequests.get', { id: poll.id })).options[0].description).toBe('What we run now');
    expect(await ok(t, memberKey.token, 'actionRequests.results', { id: poll.id })).toMatchObject({ total: 0, myVote: null, leadingOptionKey: 'pg' });
    expect(await ok(t, memberKey.token, 'actionRequests.vote', { id: poll.id, optionKey: 'pg' })).toMatchObject({ optionKey: 'pg', changed: true });
    const v2 = await ok(t, memberKey.token, 'actionRequests.vote', { id: poll.id, optionKey: 'my' });
    expect(v2).toMatchObject({ optionKey: 'my', changed: true, previousOptionKey: 'pg' });
    expect(v2).toMatchObject({ id: poll.id, voteId: expect.any(String) });
    expect(await ok(t, memberKey.token, 'actionRequests.vote', { id: poll.id, optionKey: 'my' })).toMatchObject({ id: poll.id, voteId: v2.voteId, changed: false });
    await ok(t, ws.token, 'actionRequests.vote', { id: poll.id, optionKey: 'sq' });
    // 1 vote each for my and sq: my was voted for first.
    const res = await ok(t, ws.token, 'actionRequests.results', { id: poll.id });
    expect(res).toMatchObject({ total: 2, myVote: 'sq', winningOptionKey: null, leadingOptionKey: 'my' });
    expect(res.options.map((o: any) => [o.optionKey, o.count])).toEqual([['pg', 0], ['my', 1], ['sq', 1]]);
    const bad = await rest(t, ws.token, 'actionRequests.vote', { id: poll.id, optionKey: 'nope' });
    expect([bad.status, Object.keys(bad.body.issues)]).toEqual([400, ['optionKey']]);
    expect((await rest(t, memberKey.token, 'actionRequests.closeVoting', { id: poll.id })).body.error).toBe('not_requester');
    expect(await ok(t, ws.token, 'actionRequests.closeVoting', { id: poll.id })).toMatchObject({ winningOptionKey: 'my', total: 2 });
    const late = await rest(t, memberKey.token, 'actionRequests.vote', { id: poll.id, optionKey: 'pg' });
    expect([late.status, late.body.error]).toEqual([400, 'voting_closed']);
    expect((await ok(t, ws.token, 'actionRequests.results', { id: poll.id })).winningOptionKey).toBe('my');
    expect((await ok(t, ws.token, 'actionRequests.list', { issueId: issue.id })).items[0].status).toBe('OPEN'); // closing does not resolve
    const ev = (await events(poll.id)).filter((e: any) => ['vote', 'close_voting'].includes(e.payload.change)).map((e: any) => e.payload);
    expect(ev[0]).toMatchObject({ optionKey: 'pg', previousOptionKey: null, changed: true, issueId: issue.id });
    expect(ev[1]).toMatchObject({ optionKey: 'my', previousOptionKey: 'pg', changed: true });
    expect(ev.at(-1)).toMatchObject({ winningOptionKey: 'my', total: 2, issueId: issue.id });
    // No votes at all: the first option wins.
    const empty = await ok(t, ws.token, 'actionRequests.create', { title: 'Nobody', options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    expect(await ok(t, ws.token, 'actionRequests.closeVoting', { id: empty.id })).toMatchObject({ winningOptionKey: 'a', total: 0 });
    // A poll that was decided takes no more votes, its voting closed or not.
    const decided = await ok(t, ws.token, 'actionRequests.create', { title: 'Decided', options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    await ok(t, ws.token, 'actionRequests.vote', { id: decided.id, optionKey: 'a' });
    await ok(t, ws.token, 'actionRequests.accept', { id: decided.id });
    const afterDecision = await rest(t, ws.token, 'actionRequests.vote', { id: decided.id, optionKey: 'b' });
    expect([afterDecision.status, afterDecision.body.issues]).toEqual([400, { optionKey: 'This poll is RESOLVED: voting is over' }]);
    // Its voting closed with it (no winner named: closeVoting did not run), and cannot be closed again.
    expect(await ok(t, ws.token, 'actionRequests.results', { id: decided.id })).toMatchObject({ total: 1, votingClosedAt: expect.any(String), winningOptionKey: null });
    expect((await rest(t, ws.token, 'actionRequests.closeVoting', { id: decided.id })).body).toMatchObject({ error: 'voting_closed' });
    // A SNOOZED poll still takes votes.
    const snoozed = await ok(t, ws.token, 'actionRequests.create', { title: 'Later', options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    await ok(t, ws.token, 'actionRequests.transition', { id: snoozed.id, status: 'SNOOZED' });
    await ok(t, ws.token, 'actionRequests.vote', { id: snoozed.id, optionKey: 'b' });
    expect(await ok(t, ws.token, 'actionRequests.results', { id: snoozed.id })).toMatchObject({ total: 1, votingClosedAt: null, leadingOptionKey: 'b' });
    // Dismissed by transition: its voting closes with it too.
    await ok(t, ws.token, 'actionRequests.transition', { id: snoozed.id, status: 'DISMISSED' });
    expect(await ok(t, ws.token, 'actionRequests.results', { id: snoozed.id })).toMatchObject({ votingClosedAt: expect.any(String), winningOptionKey: null });
    expect((await rest(t, ws.token, 'actionRequests.vote', { id: snoozed.id, optionKey: 'a' })).body.error).toBe('voting_closed');
  });

  it('comments.create with actionRequest posts the comment and its card (a poll) in one transaction', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Bundle' });
    const c = await ok(t, agentKey.token, 'comments.create', { issueId: issue.id, body: 'I recommend Postgres', confidence: 'HIGH',
      actionRequest: { title: 'Pick one', options: [{ key: 'pg', label: 'PostgreSQL' }, { key: 'my', label: 'MySQL' }] } });
    expect(c.actionRequest).toMatchObject({ issueId: issue.id, commentId: c.id, sourceType: 'comment', sourceId: c.id, isPoll: true,
      requestedByAgentId: agent.id });
    // A bad card fails the whole call: no comment either.
    const bad = await rest(t, ws.token, 'comments.create', { issueId: issue.id, body: 'x', actionRequest: { title: 'T', kind: 'TRANSITION', payload: {} } });
    expect([bad.status, Object.keys(bad.body.issues)]).toEqual([400, ['actionRequest.payload.statusId']]);
    const missing = await rest(t, ws.token, 'comments.create', { issueId: issue.id, body: 'x',
      actionRequest: { title: 'T', kind: 'TRANSITION', payload: { statusId: '00000000-0000-4000-8000-000000000000' } } });
    expect([missing.status, missing.body.issues ?? missing.body.error]).toEqual([404, 'not_found']);
    expect((await ok(t, ws.token, 'comments.list', { issueId: issue.id })).items).toHaveLength(1);
    const r = await rpc(t, agentKey.token, 'tools/call', { name: 'comments.create', arguments: { issueId: issue.id, body: 'and a card',
      actionRequest: { title: 'Close?', kind: 'CLOSE_AS_DUPLICATE', payload: { duplicateOfIssueId: issue.id } } } });
    expect(r.body.result.isError).toBe(true);  // an issue cannot duplicate itself
  });

  it('bad input, missing scope, another workspace, narrowed keys', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Scoped' });
    const req = await ok(t, ws.token, 'actionRequests.create', { title: 'x', issueId: issue.id });
    const bad = await rest(t, ws.token, 'actionRequests.create', { title: '', kind: 'NOPE' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues).sort()).toEqual(['kind', 'title']);
    const huge = await rest(t, ws.token, 'actionRequests.create', { title: 'x', payload: { note: 'x'.repeat(20_000) } });
    expect([huge.status, Object.keys(huge.body.issues)]).toEqual([400, ['payload']]);
    expect((await rest(t, ws.token, 'actionRequests.create', { title: 'x', kind: 'ASSIGN_AGENT', payload: { agentId: agent.id } })).body.issues)
      .toHaveProperty('issueId');
    // An archived agent takes no request, as it takes no issue (400 agent_archived on the field; nothing written);
    // another workspace's agent is 404.
    const retired = await createAgent(t, ws, 'retired-helper');
    await admin(t, 'archive-agent', { workspace: ws.key, agent: 'retired-helper', json: true });
    const before = (await ok(t, ws.token, 'actionRequests.list', { assignedAgentId: retired.id })).items.length;
    const toArchived = await rest(t, ws.token, 'actionRequests.create', { title: 'for the retired', assignedAgentId: retired.id });
    expect([toArchived.status, toArchived.body.error, Object.keys(toArchived.body.issues)]).toEqual([400, 'agent_archived', ['assignedAgentId']]);
    const viaComment = await rest(t, ws.token, 'comments.create', { issueId: issue.id, body: 'see card', actionRequest: { title: 'x', assignedAgentId: retired.id } });
    expect([viaComment.status, Object.keys(viaComment.body.issues)]).toEqual([400, ['actionRequest.assignedAgentId']]);
    const bound = await rest(t, ws.token, 'actionRequests.create', { title: 'x', issueId: issue.id, kind: 'ASSIGN_AGENT', payload: { agentId: retired.id } });
    expect([bound.status, bound.body.error, Object.keys(bound.body.issues)]).toEqual([400, 'agent_archived', ['payload.agentId']]);
    const open = await ok(t, ws.token, 'actionRequests.create', { title: 'to be reassigned' });
    const moved = await rest(t, ws.token, 'actionRequests.update', { id: open.id, assignedAgentId: retired.id });
    expect([moved.status, moved.body.error, Object.keys(moved.body.issues)]).toEqual([400, 'agent_archived', ['assignedAgentId']]);
    expect((await ok(t, ws.token, 'actionRequests.get', { id: open.id })).assignedAgentId).toBeNull();
    expect((await ok(t, ws.token, 'actionRequests.list', { assignedAgentId: retired.id })).items.length).toBe(before);
    const theirAgent = await createAgent(t, other, 'their-helper');
    expect((await rest(t, ws.token, 'actionRequests.create', { title: 'x', assignedAgentId: theirAgent.id })).status).toBe(404);
    const readOnly = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const scope = await rest(t, readOnly.token, 'actionRequests.vote', { id: req.id, optionKey: 'a' });
    expect([scope.status, scope.body.error, scope.body.scope]).toEqual([403, 'scope_required', 'WRITE_ISSUES']);
    expect((await rest(t, other.token, 'actionRequests.results', { id: req.id })).status).toBe(404);
    // A source of a kind the service keeps must be there for the key: another workspace's issue, a random id and
    // a hidden issue are 404 on sourceId; another sourceType is the caller's own label, kept as given.
    const theirs = await ok(t, other.token, 'issues.create', { title: 'Theirs' });
    for (const [sourceType, sourceId] of [['issue', theirs.id], ['issue', crypto.randomUUID()], ['comment', crypto.randomUUID()],
      ['execution-plan', crypto.randomUUID()], ['goal', theirs.id]]) {
      const r = await rest(t, ws.token, 'actionRequests.create', { title: 'src', sourceType, sourceId });
      expect([r.status, r.body.error, Object.keys(r.body.issues ?? { [r.body.field]: 1 })], `${sourceType} ${sourceId}`).toEqual([404, 'not_found', ['sourceId']]);
    }
    expect(await ok(t, ws.token, 'actionRequests.create', { title: 'src', sourceType: 'issue', sourceId: issue.id })).toMatchObject({ sourceType: 'issue', sourceId: issue.id });
    const external = crypto.randomUUID();
    expect(await ok(t, ws.token, 'actionRequests.create', { title: 'src', sourceType: 'ci-run', sourceId: external })).toMatchObject({ sourceId: external });
    expect((await rest(t, other.token, 'actionRequests.accept', { id: req.id })).status).toBe(404);
    expect((await ok(t, other.token, 'actionRequests.list', {})).items).toEqual([]);
    // A label-narrowed key sees only requests on issues it can see (and those assigned to it).
    const label = await ok(t, ws.token, 'labels.create', { name: 'visible' });
    const seen = await ok(t, ws.token, 'issues.create', { title: 'Seen', labelIds: [label.id] });
    const onSeen = await ok(t, ws.token, 'actionRequests.create', { title: 'on seen', issueId: seen.id });
    const narrowed = await createKey(t, ws, { labels: [label.id], scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    expect((await ok(t, narrowed.token, 'actionRequests.list', {})).items.map((r: any) => r.id)).toEqual([onSeen.id]);
    expect((await rest(t, narrowed.token, 'actionRequests.transition', { id: req.id, status: 'RESOLVED' })).status).toBe(404);
    const noIssue = await rest(t, narrowed.token, 'actionRequests.create', { title: 'workspace-wide' });
    expect([noIssue.status, noIssue.body.error]).toEqual([403, 'narrowing']);
    expect(noIssue.body.message).toMatch(/without an issue/);
    // Assigned to the key's agent does not open a request on an issue the key cannot see (its issue id, body and
    // payload are about that issue); one without an issue assigned to the agent is seen. A visible request that
    // names a hidden issue as the duplicate shows it as null, in the payload and in the dispatch result.
    const narrowedAgent = await createKey(t, ws, { agent: 'helper', labels: [label.id], scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const onHidden = await ok(t, ws.token, 'actionRequests.create', { title: 'about the hidden one', body: 'secret', issueId: issue.id, assignedAgentId: agent.id });
    const unbound = await ok(t, ws.token, 'actionRequests.create', { title: 'for the agent', assignedAgentId: agent.id });
    const dup = await ok(t, ws.token, 'actionRequests.create', { title: 'Close?', issueId: seen.id, kind: 'CLOSE_AS_DUPLICATE',
      payload: { duplicateOfIssueId: issue.id }, assignedAgentId: agent.id });
    const listed = (await ok(t, narrowedAgent.token, 'actionRequests.list', {})).items;
    const ids = listed.map((r: any) => r.id);
    expect(ids).toEqual(expect.arrayContaining([onSeen.id, unbound.id, dup.id]));
    expect(ids).not.toContain(onHidden.id);
    expect(listed.every((r: any) => r.issueId === null || r.issueId === seen.id)).toBe(true);
    expect((await rest(t, narrowedAgent.token, 'actionRequests.get', { id: onHidden.id })).status).toBe(404);
    expect((await ok(t, narrowedAgent.token, 'actionRequests.get', { id: dup.id })).payload).toEqual({ duplicateOfIssueId: null });
    expect((await ok(t, agentKey.token, 'actionRequests.get', { id: dup.id })).payload).toEqual({ duplicateOfIssueId: issue.id });
    // GraphQL reads payload and dispatchResult through the same rule (the raw columns are not in the schema).
    const wideAgent = await createKey(t, ws, { agent: 'helper', labels: [label.id], scopes: ['FULL'] });
    const viaGraphql = await gqlOk(t, wideAgent.token, `query($id: UUID!) { actionRequest(rowId: $id) { payload dispatchResult } }`, { id: dup.id });
    expect(viaGraphql.actionRequest).toEqual({ payload: { duplicateOfIssueId: null }, dispatchResult: null });
    const all = JSON.stringify(await ok(t, narrowedAgent.token, 'events.recent', { limit: 200 })) + JSON.stringify(listed);
    expect(all).not.toContain(issue.id);
    expect(all).not.toContain('secret');
  });
});
