/**
 * The catalog tools as GraphQL fields (src/graphql/tool-mutations.ts): mutations such as issuesCreate, issuesUpdate,
 * issuesAssign/Claim/Release, commentsCreate/Update, labelsCreate, actionRequestsAccept/Decline/Vote and the queries issuesList, issuesGet run through the same
 * path as REST (validation, scopes, RLS, events) and fail with extensions {code, status, issues?, scope?}.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, ok, startWithWorkspaces, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
const READ = ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] as const;

beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces({ graphql: true }));
});
afterAll(() => t.close());

describe('tool mutations', () => {
  it('issuesCreate and issuesUpdate: same result and events as the tools', async () => {
    const created = (await gqlOk(t, ws.token, 'mutation($t: String!) { issuesCreate(title: $t, priority: "HIGH") }', { t: 'Made over GraphQL' })).issuesCreate;
    expect(created).toMatchObject({ title: 'Made over GraphQL', priority: 'HIGH', key: expect.stringMatching(/-\d+$/) });
    expect(await ok(t, ws.token, 'issues.get', { id: created.key })).toMatchObject({ id: created.id, title: 'Made over GraphQL' });

    const statuses = await ok(t, ws.token, 'statuses.list', {});
    const doing = (statuses.items ?? statuses).find((s: { category: string }) => s.category === 'IN_PROGRESS');
    const updated = (await gqlOk(t, ws.token, 'mutation($id: String!, $s: String) { issuesUpdate(id: $id, statusId: $s, description: null) }', { id: created.id, s: doing.id })).issuesUpdate;
    expect(updated.status.category).toBe('IN_PROGRESS');
    const kinds = (await subjectEvents(t, ws.token, 'issue', created.id)).map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['ISSUE_CREATED', 'ISSUE_STATUS_CHANGED']));
  });

  it('bad input: 400 invalid_input naming the field', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'x' });
    const e = await gqlError(t, ws.token, 'mutation($id: String!) { issuesUpdate(id: $id, priority: "SOMETIMES") }', { id: issue.id });
    expect(e).toMatchObject({ code: 'invalid_input', status: 400, issues: { priority: expect.any(String) } });
    const empty = await gqlError(t, ws.token, 'mutation { issuesCreate(title: "") }');
    expect(empty).toMatchObject({ code: 'invalid_input', status: 400, issues: { title: expect.any(String) } });
    // GraphQL's own validation (a missing required argument) is a GraphQL error before any tool runs.
    const r = await gql(t, ws.token, 'mutation { issuesCreate }');
    expect(r.errors?.[0]?.message).toMatch(/title/);
  });

  it('missing scope: 403 scope_required', async () => {
    const readOnly = await createKey(t, ws, { scopes: [...READ] });
    const e = await gqlError(t, readOnly.token, 'mutation { issuesCreate(title: "nope") }');
    expect(e).toMatchObject({ code: 'scope_required', status: 403, scope: 'WRITE_ISSUES' });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'commented' });
    const c = await gqlError(t, readOnly.token, 'mutation($i: String!) { commentsCreate(issueId: $i, body: "hi") }', { i: issue.id });
    expect(c).toMatchObject({ code: 'scope_required', status: 403, scope: 'WRITE_COMMENTS' });
  });

  it('another workspace: not found, nothing changes', async () => {
    const mine = await ok(t, ws.token, 'issues.create', { title: 'mine' });
    const e = await gqlError(t, other.token, 'mutation($id: String!) { issuesUpdate(id: $id, title: "stolen") }', { id: mine.id });
    expect(e).toMatchObject({ code: 'not_found', status: 404 });
    const c = await gqlError(t, other.token, 'mutation($i: String!) { commentsCreate(issueId: $i, body: "hi") }', { i: mine.id });
    expect(c).toMatchObject({ status: 404 });
    expect((await ok(t, ws.token, 'issues.get', { id: mine.id })).title).toBe('mine');
  });

  it('commentsCreate with confidence; a poll voted on, a request accepted and one declined', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Decide' });
    const comment = (await gqlOk(t, ws.token, `mutation($i: String!) { commentsCreate(issueId: $i, body: "**bold**", confidence: "HIGH",
      actionRequest: {kind: "FREE_FORM", title: "Which?", options: [{key: "a", label: "A"}, {key: "b", label: "B"}]}) }`, { i: issue.id })).commentsCreate;
    expect(comment).toMatchObject({ body: '**bold**', confidence: 'HIGH', actionRequest: { title: 'Which?' } });
    const pollId = comment.actionRequest.id;
    const vote = (await gqlOk(t, ws.token, 'mutation($id: String!) { actionRequestsVote(id: $id, optionKey: "b") }', { id: pollId })).actionRequestsVote;
    expect(vote).toMatchObject({ optionKey: 'b', changed: true });
    expect((await ok(t, ws.token, 'actionRequests.results', { id: pollId })).myVote).toBe('b');
    const badVote = await gqlError(t, ws.token, 'mutation($id: String!) { actionRequestsVote(id: $id, optionKey: "zzz") }', { id: pollId });
    expect(badVote.status).toBe(400);

    const statuses = await ok(t, ws.token, 'statuses.list', {});
    const done = (statuses.items ?? statuses).find((s: { category: string }) => s.category === 'DONE');
    const card = await ok(t, ws.token, 'actionRequests.create', { issueId: issue.id, kind: 'TRANSITION', title: 'Close it?', payload: { statusId: done.id } });
    const accepted = (await gqlOk(t, ws.token, 'mutation($id: String!) { actionRequestsAccept(id: $id) }', { id: card.id })).actionRequestsAccept;
    expect(accepted.status).toBe('RESOLVED');
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).status.category).toBe('DONE');
    const again = await gqlError(t, ws.token, 'mutation($id: String!) { actionRequestsAccept(id: $id) }', { id: card.id });
    expect(again.status).toBe(409);

    const other2 = await ok(t, ws.token, 'actionRequests.create', { issueId: issue.id, kind: 'FREE_FORM', title: 'Maybe?' });
    // ActionRequest.viewerMayDecide is the gate accept and decline apply: the owner may; a member who neither is
    // assigned nor watches the issue may not (and is refused), so a board can leave its buttons off for them.
    await admin(t, 'add-member', { workspace: ws.key, email: 'onlooker@example.com', role: 'MEMBER', json: true });
    const onlooker = await createKey(t, ws, { user: 'onlooker@example.com' });
    const mayQ = 'query($id: UUID!) { actionRequest(rowId: $id) { viewerMayDecide } }';
    expect((await gqlOk(t, ws.token, mayQ, { id: other2.id })).actionRequest.viewerMayDecide).toBe(true);
    expect((await gqlOk(t, onlooker.token, mayQ, { id: other2.id })).actionRequest.viewerMayDecide).toBe(false);
    expect((await gqlError(t, onlooker.token, 'mutation($id: String!) { actionRequestsDecline(id: $id) }', { id: other2.id })).status).toBe(403);
    await ok(t, onlooker.token, 'issues.watch', { issueId: issue.id });
    expect((await gqlOk(t, onlooker.token, mayQ, { id: other2.id })).actionRequest.viewerMayDecide).toBe(true);
    const declined = (await gqlOk(t, ws.token, 'mutation($id: String!) { actionRequestsDecline(id: $id) }', { id: other2.id })).actionRequestsDecline;
    expect(declined.status).toBe('REJECTED');
    // Closed: nothing left to decide (accept would be 409), for anyone.
    expect((await gqlOk(t, ws.token, mayQ, { id: other2.id })).actionRequest.viewerMayDecide).toBe(false);
    expect((await gqlOk(t, ws.token, mayQ, { id: card.id })).actionRequest.viewerMayDecide).toBe(false);
    const foreign = await gqlError(t, other.token, 'mutation($id: String!) { actionRequestsDecline(id: $id) }', { id: pollId });
    expect(foreign.status).toBe(404);
  });

  it('what a people\'s app needs beside the board: labels, comment edits, relations, cycles, links, polls, history', async () => {
    const m = async (query: string, variables?: Record<string, unknown>) => Object.values(await gqlOk(t, ws.token, query, variables))[0] as any;
    const [a, b] = [await ok(t, ws.token, 'issues.create', { title: 'App A' }), await ok(t, ws.token, 'issues.create', { title: 'App B' })];
    const label = await m('mutation { labelsCreate(name: "from-the-app", color: "#ff0000") }');
    expect((await m('mutation($i: String!, $l: [String!]!) { issuesAddLabels(id: $i, labelIds: $l) }', { i: a.id, l: [label.id] })).labels)
      .toEqual([expect.objectContaining({ name: 'from-the-app' })]);
    const comment = await m('mutation($i: String!) { commentsCreate(issueId: $i, body: "first") }', { i: a.id });
    expect((await m('mutation($c: String!) { commentsUpdate(id: $c, body: "edited") }', { c: comment.id })).body).toBe('edited');
    await m('mutation($c: String!) { commentsDelete(id: $c) }', { c: comment.id });
    expect((await ok(t, ws.token, 'comments.list', { issueId: a.id })).items).toEqual([]);
    const relation = await m('mutation($a: String!, $b: String!) { relationsAdd(fromIssueId: $a, toIssueId: $b, kind: "BLOCKS") }', { a: a.id, b: b.id });
    expect(relation).toMatchObject({ kind: 'BLOCKS' });
    const cycle = await m('mutation { cyclesCreate(name: "App sprint") }');
    expect((await m('mutation($c: String!, $i: String!) { cyclesAddIssue(cycleId: $c, issueId: $i) }', { c: cycle.id, i: b.id })).cycleId).toBe(cycle.id);
    expect(await m('mutation($i: String!) { attachmentsAttachLink(targetType: "issue", targetId: $i, externalUrl: "https://example.com/spec", linkTitle: "Spec") }', { i: a.id }))
      .toMatchObject({ kind: 'LINK', linkTitle: 'Spec' });
    const poll = await m('mutation($i: String!, $o: JSON) { actionRequestsCreate(issueId: $i, title: "Which?", options: $o) }',
      { i: a.id, o: [{ key: 'x', label: 'X' }, { key: 'y', label: 'Y' }] });
    await m('mutation($p: String!) { actionRequestsVote(id: $p, optionKey: "y") }', { p: poll.id });
    expect(await m('mutation($p: String!) { actionRequestsCloseVoting(id: $p) }', { p: poll.id })).toMatchObject({ winningOptionKey: 'y' });
    expect(await m('query($p: String!) { actionRequestsResults(id: $p) }', { p: poll.id })).toMatchObject({ total: 1, winningOptionKey: 'y' });
    expect((await m('query($i: String!) { issuesHistory(id: $i) }', { i: a.id })).items.map((e: { kind: string }) => e.kind))
      .toEqual(expect.arrayContaining(['ISSUE_CREATED']));
    // Another workspace's key: not found, as over REST.
    expect(await gqlError(t, other.token, 'mutation($c: String!) { labelsDelete(id: $c) }', { c: label.id })).toMatchObject({ status: 404 });
  });

  it('issuesAssign, issuesClaim and issuesRelease: the tools\' results and events; scopes and other workspaces refused', async () => {
    await createAgent(t, ws, 'gql-helper');
    const agentId = (await ok(t, ws.token, 'agents.list', {})).find((a: { profileKey: string }) => a.profileKey === 'gql-helper').id;
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Assign me over GraphQL' });
    const assigned = (await gqlOk(t, ws.token, 'mutation($id: String!, $a: String) { issuesAssign(id: $id, agentId: $a) }', { id: issue.id, a: agentId })).issuesAssign;
    expect(assigned).toMatchObject({ assignedAgentId: agentId, currentRun: { status: 'ACTIVE', engagementMode: 'EXECUTE' } });
    expect((await subjectEvents(t, ws.token, 'issue', issue.id)).map((e) => e.kind)).toEqual(expect.arrayContaining(['ISSUE_ASSIGNED', 'AGENT_ASSIGNED']));
    // The tool's own rule (exactly one of agentId or profileKey) is a 400 naming the field.
    expect(await gqlError(t, ws.token, 'mutation($id: String!) { issuesAssign(id: $id) }', { id: issue.id })).toMatchObject({ status: 400, issues: { agentId: expect.any(String) } });

    const claimed = (await gqlOk(t, ws.token, 'mutation($id: String!) { issuesClaim(id: $id) }', { id: issue.id })).issuesClaim;
    expect(claimed.claimedById).toEqual(expect.any(String));
    expect((await gqlOk(t, ws.token, 'mutation($id: String!) { issuesRelease(id: $id) }', { id: issue.id })).issuesRelease.claimedById).toBeNull();

    // A read-only key may not write; another workspace sees neither the issue nor may it use its agent.
    const readOnly = await createKey(t, ws, { scopes: [...READ] });
    expect(await gqlError(t, readOnly.token, 'mutation($id: String!, $a: String) { issuesAssign(id: $id, agentId: $a) }', { id: issue.id, a: agentId }))
      .toMatchObject({ status: 403, scope: 'WRITE_ISSUES' });
    expect((await gqlError(t, other.token, 'mutation($id: String!) { issuesClaim(id: $id) }', { id: issue.id })).status).toBe(404);
    await createAgent(t, other, 'outsider');
    const outsider = (await ok(t, other.token, 'agents.list', {}))[0].id;
    expect((await gqlError(t, ws.token, 'mutation($id: String!, $a: String) { issuesAssign(id: $id, agentId: $a) }', { id: issue.id, a: outsider })).status).toBe(404);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgentId).toBe(agentId);
  });

  it("issuesList and issuesGet: the tools' filters, paging and results; scopes, narrowing and other workspaces apply", async () => {
    const project = await ok(t, ws.token, 'projects.create', { name: 'GraphQL list' });
    const made = [];
    for (const title of ['List one', 'List two', 'List three']) made.push(await ok(t, ws.token, 'issues.create', { title, projectId: project.id }));
    const q = 'query($p: String, $limit: Int, $cursor: String) { issuesList(projectId: $p, limit: $limit, cursor: $cursor) }';
    const first = (await gqlOk(t, ws.token, q, { p: project.id, limit: 2 })).issuesList;
    expect(first).toEqual(await ok(t, ws.token, 'issues.list', { projectId: project.id, limit: 2 }));
    expect(first.items.map((i: { title: string }) => i.title)).toEqual(['List three', 'List two']);
    const second = (await gqlOk(t, ws.token, q, { p: project.id, limit: 2, cursor: first.nextCursor })).issuesList;
    expect(second).toMatchObject({ items: [{ id: made[0].id }], nextCursor: null });
    // Explicit null is the tool's "none": issues with no assignee and no claim.
    const none = (await gqlOk(t, ws.token, 'query($p: String) { issuesList(projectId: $p, assignedAgentId: null, claimedById: null) }', { p: project.id })).issuesList;
    expect(none.items).toHaveLength(3);
    // Elsewhere a null is the argument left out, as a nullable GraphQL argument promises: the first page of a
    // `do { ... cursor = nextCursor } while (cursor)` loop sends cursor: null.
    const loopStart = (await gqlOk(t, ws.token, q, { p: project.id, limit: 2, cursor: null })).issuesList;
    expect(loopStart).toEqual(first);
    const nulls = (await gqlOk(t, ws.token, 'query($p: String) { issuesList(projectId: $p, query: null, status: null, labelIds: null, limit: null) }', { p: project.id })).issuesList;
    expect(nulls.items).toHaveLength(3);
    expect((await gqlOk(t, ws.token, 'query($id: String!) { issuesGet(id: $id) }', { id: made[1].key })).issuesGet)
      .toEqual(await ok(t, ws.token, 'issues.get', { id: made[1].key }));

    expect(await gqlError(t, ws.token, 'query { issuesList(limit: 0) }')).toMatchObject({ code: 'invalid_input', status: 400, issues: { limit: expect.any(String) } });
    const noRead = await createKey(t, ws, { scopes: ['READ_PROJECTS'] });
    // /graphql itself needs READ_ISSUES: refused before any field runs.
    expect(await gql(t, noRead.token, 'query { issuesList }')).toMatchObject({ status: 403, body: { error: 'scope_required', scope: 'READ_ISSUES' } });
    const elsewhere = await ok(t, ws.token, 'projects.create', { name: 'Elsewhere' });
    const narrowed = await createKey(t, ws, { projects: [elsewhere.id] });
    expect((await gqlOk(t, narrowed.token, q, { p: project.id })).issuesList.items).toEqual([]);
    expect(await gqlError(t, narrowed.token, 'query($id: String!) { issuesGet(id: $id) }', { id: made[0].id })).toMatchObject({ status: 404 });
    expect((await gqlOk(t, other.token, q, { p: project.id })).issuesList.items).toEqual([]);
    expect(await gqlError(t, other.token, 'query($id: String!) { issuesGet(id: $id) }', { id: made[0].id })).toMatchObject({ status: 404 });
  });
});
