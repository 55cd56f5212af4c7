/**
 * Another workspace's key sees and changes nothing over GraphQL: every object id of workspace A we can
 * reach, as a row id and as a global node id, through every root field and every mutation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let a: Workspace;
let b: Workspace;
/** root field name → A's row id */
const rowIds: Record<string, string> = {};
/** root field name → A's global node id */
const nodeIds: Record<string, string> = {};
let aMemberUser: string;
let aMemberKey: string;
let aPlugin: string;
let snapshotA: unknown;

const insert = async (sql: string, values: unknown[]) => (await t.pools.owner.query(sql, values)).rows[0].id as string;

async function snapshot(): Promise<unknown> {
  return gqlOk(t, a.token, `{
    currentWorkspace { name cycleLengthDays autoDispatchMode }
    agents(orderBy: PROFILE_KEY_ASC) { nodes { profileKey name archivedAt } }
    memberships(orderBy: CREATED_AT_ASC) { nodes { role user { email } } }
    dispatchRules(orderBy: POSITION_ASC) { nodes { rowId position enabled targetAgentId } }
    notes { nodes { rowId archivedAt } }
    pins { nodes { rowId position } }
    accessKeys { nodes { rowId revokedAt } }
    plugins { nodes { rowId scopes } }
  }`);
}

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  a = await createWorkspace(t);
  b = await createWorkspace(t);
  await admin(t, 'add-member', { workspace: a.key, email: 'a-member@example.com', role: 'MEMBER', json: true });
  aMemberKey = (await createKey(t, a, { user: 'a-member@example.com' })).id;
  aMemberUser = (await t.pools.owner.query(`select id from app_public.users where email = 'a-member@example.com'`)).rows[0].id;
  const aOwner = (await t.pools.owner.query('select id from app_public.users where email = $1', [a.ownerEmail])).rows[0].id;

  const agent = await createAgent(t, a, 'a-bot');
  const issue = await ok(t, a.token, 'issues.create', { title: 'Secret roadmap' });
  const issue2 = await ok(t, a.token, 'issues.create', { title: 'Other secret' });
  rowIds.agent = agent.id;
  rowIds.issue = issue.id;
  rowIds.project = await insert(`insert into app_public.projects (workspace_id, name) values ($1, 'A project') returning id`, [a.id]);
  rowIds.label = await insert(`insert into app_public.labels (workspace_id, name) values ($1, 'a-label') returning id`, [a.id]);
  rowIds.initiative = await insert(`insert into app_public.initiatives (workspace_id, name) values ($1, 'A initiative') returning id`, [a.id]);
  rowIds.cycle = await insert(`insert into app_public.cycles (workspace_id, number, name, starts_on, ends_on) values ($1, 1, 'A1', current_date, current_date + 7) returning id`, [a.id]);
  rowIds.comment = await insert(`insert into app_public.comments (workspace_id, issue_id, body, author_user_id, revisions) values ($1, $2, 'secret', $3, '[{"body":"older secret","editedAt":"2025-01-01T00:00:00Z"}]') returning id`, [a.id, issue.id, aOwner]);
  rowIds.note = await insert(`insert into app_public.notes (workspace_id, user_id, body, archived_at) values ($1, $2, 'private', now()) returning id`, [a.id, aOwner]);
  rowIds.pin = await insert(`insert into app_public.pins (workspace_id, user_id, target_type, target_id) values ($1, $2, 'PROJECT', $3) returning id`, [a.id, aOwner, rowIds.project]);
  rowIds.attachment = await insert(`insert into app_public.attachments (workspace_id, kind, target_type, target_id, external_url, mime_type) values ($1, 'LINK', 'issue', $2, 'https://a.example.com', 'text/url') returning id`, [a.id, issue.id]);
  rowIds.timeEntry = await insert(`insert into app_public.time_entries (workspace_id, issue_id, user_id, duration_min) values ($1, $2, $3, 30) returning id`, [a.id, issue.id, aOwner]);
  rowIds.issueRelation = await insert(`insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind) values ($1, $2, $3, 'BLOCKS') returning id`, [a.id, issue.id, issue2.id]);
  rowIds.issueWatcher = await insert(`insert into app_public.issue_watchers (workspace_id, issue_id, user_id) values ($1, $2, $3) returning id`, [a.id, issue.id, aOwner]);
  rowIds.agentRun = await insert(`insert into app_public.agent_runs (workspace_id, agent_id, issue_id) values ($1, $2, $3) returning id`, [a.id, agent.id, issue.id]);
  rowIds.status = (await t.pools.owner.query('select id from app_public.statuses where workspace_id = $1 limit 1', [a.id])).rows[0].id;
  rowIds.membership = (await t.pools.owner.query('select id from app_public.memberships where workspace_id = $1 and user_id = $2', [a.id, aMemberUser])).rows[0].id;
  rowIds.user = aMemberUser;
  rowIds.workspace = a.id;
  rowIds.activityEvent = (await t.pools.owner.query('select id from app_public.activity_events where workspace_id = $1 limit 1', [a.id])).rows[0].id;
  rowIds.dispatchRule = (await gqlOk(t, a.token, `mutation { dispatchRulesCreate(input: {targetAgentId: "${agent.id}", priority: "HIGH"}) { dispatchRule { rowId } } }`)).dispatchRulesCreate.dispatchRule.rowId;
  aPlugin = (await gqlOk(t, a.token, 'mutation { pluginsCreate(input: {name: "A plugin", scopes: [READ_ISSUES]}) { pluginInfo { rowId } } }')).pluginsCreate.pluginInfo.rowId;

  // A sees each of them, and tells us its global node id.
  for (const [field, id] of Object.entries(rowIds)) {
    const data = await gqlOk(t, a.token, `query($id: UUID!) { x: ${field}(rowId: $id) { id } }`, { id });
    expect(data.x, field).not.toBeNull();
    nodeIds[field] = data.x.id;
  }
  const { issueLabels } = await gqlOk(t, a.token, '{ issueLabels { nodes { id } } }');
  await t.pools.owner.query('insert into app_public.issue_labels (workspace_id, issue_id, label_id) values ($1, $2, $3)', [a.id, issue.id, rowIds.label]);
  nodeIds.issueLabel = (await gqlOk(t, a.token, '{ issueLabels { nodes { id } } }')).issueLabels.nodes[0].id;
  expect(issueLabels.nodes).toHaveLength(0);
  snapshotA = await snapshot();
});
afterAll(() => t.close());

describe("another workspace's key", () => {
  it('reads none of A\'s rows by row id', async () => {
    for (const [field, id] of Object.entries(rowIds)) {
      const data = await gqlOk(t, b.token, `query($id: UUID!) { x: ${field}(rowId: $id) { id } }`, { id });
      expect(data.x, field).toBeNull();
    }
  });

  it('reads none of them by global node id, through node() or the typed fetchers', async () => {
    for (const [field, id] of Object.entries(nodeIds)) {
      const data = await gqlOk(t, b.token, 'query($id: ID!) { node(id: $id) { id } }', { id });
      expect(data.node, field).toBeNull();
      if (field !== 'issueLabel') {
        const typed = await gqlOk(t, b.token, `query($id: ID!) { x: ${field}ById(id: $id) { id } }`, { id });
        expect(typed.x, field).toBeNull();
      }
    }
  });

  it('lists nothing of A', async () => {
    const data = await gqlOk(t, b.token, `{
      workspaces { totalCount } agents { totalCount } issues { totalCount } comments { totalCount } projects { totalCount }
      labels { totalCount } initiatives { totalCount } cycles { totalCount } notes { totalCount } pins { totalCount }
      attachments { totalCount } timeEntries { totalCount } issueRelations { totalCount } issueWatchers { totalCount }
      agentRuns { totalCount } dispatchRules { totalCount } issueLabels { totalCount } plugins { totalCount }
      memberships { nodes { user { email } } } users { nodes { email } } accessKeys { nodes { rowId } }
      activityEvents { nodes { subjectId } } statuses { nodes { rowId } } currentWorkspace { rowId } }`);
    expect(data.workspaces.totalCount).toBe(1);
    expect(data.currentWorkspace.rowId).toBe(b.id);
    for (const k of ['agents', 'issues', 'comments', 'projects', 'labels', 'initiatives', 'cycles', 'notes', 'pins', 'attachments',
      'timeEntries', 'issueRelations', 'issueWatchers', 'agentRuns', 'dispatchRules', 'issueLabels', 'plugins']) {
      expect(data[k].totalCount, k).toBe(0);
    }
    expect(data.memberships.nodes).toEqual([{ user: { email: b.ownerEmail } }]);
    expect(data.users.nodes).toEqual([{ email: b.ownerEmail }]);
    expect(data.accessKeys.nodes.map((k: { rowId: string }) => k.rowId)).not.toContain(aMemberKey);
    const aIds = new Set(Object.values(rowIds));
    expect(data.activityEvents.nodes.filter((e: { subjectId: string }) => aIds.has(e.subjectId))).toEqual([]);
    expect(data.statuses.nodes.map((s: { rowId: string }) => s.rowId)).not.toContain(rowIds.status);
  });

  it('changes none of them through any mutation (404, as if they did not exist)', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['mutation($id: UUID!) { agentsUpdate(input: {agentId: $id, name: "pwned"}) { agent { rowId } } }', { id: rowIds.agent }],
      ['mutation($id: UUID!) { agentsArchive(input: {agentId: $id}) { agent { rowId } } }', { id: rowIds.agent }],
      ['mutation($id: UUID!) { agentsUnarchive(input: {agentId: $id}) { agent { rowId } } }', { id: rowIds.agent }],
      ['mutation($id: UUID!) { agentsDelete(input: {agentId: $id}) { agent { rowId } } }', { id: rowIds.agent }],
      ['mutation($id: UUID!) { accessCreate(input: {linkedAgentId: $id}) { issuedApiKey { rowId } } }', { id: rowIds.agent }],
      ['mutation($id: UUID!) { accessCreate(input: {projectIds: [$id]}) { issuedApiKey { rowId } } }', { id: rowIds.project }],
      ['mutation($id: UUID!) { accessRevoke(input: {keyId: $id}) { apiKey { rowId } } }', { id: aMemberKey }],
      ['mutation($id: UUID!) { pluginIssueApiKey(input: {pluginId: $id, scopes: [READ_ISSUES]}) { issuedApiKey { rowId } } }', { id: aPlugin }],
      ['mutation($id: UUID!) { membersSetRole(input: {userId: $id, role: ADMIN}) { membership { rowId } } }', { id: aMemberUser }],
      ['mutation($id: UUID!) { membersRemove(input: {userId: $id}) { membership { rowId } } }', { id: aMemberUser }],
      ['mutation($id: UUID!) { dispatchRulesUpdate(input: {ruleId: $id, enabled: false}) { dispatchRule { rowId } } }', { id: rowIds.dispatchRule }],
      ['mutation($id: UUID!) { dispatchRulesDelete(input: {ruleId: $id}) { dispatchRule { rowId } } }', { id: rowIds.dispatchRule }],
      ['mutation($id: UUID!) { dispatchRulesCreate(input: {targetAgentId: $id}) { dispatchRule { rowId } } }', { id: rowIds.agent }],
      ['mutation($id: UUID!) { notesRestore(input: {noteId: $id}) { note { rowId } } }', { id: rowIds.note }],
      ['mutation($id: UUID!) { pinsAdd(input: {targetType: PROJECT, targetId: $id}) { pin { rowId } } }', { id: rowIds.project }],
      ['mutation($id: UUID!) { pinsAdd(input: {targetType: INITIATIVE, targetId: $id}) { pin { rowId } } }', { id: rowIds.initiative }],
      ['mutation($id: UUID!) { pinsAdd(input: {targetType: CYCLE, targetId: $id}) { pin { rowId } } }', { id: rowIds.cycle }],
      ['mutation($id: UUID!) { pinsAdd(input: {targetType: AGENT, targetId: $id}) { pin { rowId } } }', { id: rowIds.agent }],
      ['mutation($id: UUID!) { pinsRemove(input: {targetType: PROJECT, targetId: $id}) { pin { rowId } } }', { id: rowIds.project }],
    ];
    for (const [q, vars] of cases) {
      const e = await gqlError(t, b.token, q, vars);
      expect([404, 400], `${q} → ${JSON.stringify(e)}`).toContain(e.status);
      expect(['not_found', 'invalid_input'], q).toContain(e.code);
    }
    // Reordering with A's ids is a bad list for B, never a change for A.
    expect(await gqlError(t, b.token, 'mutation($ids: [UUID]!) { dispatchRulesReorder(input: {ruleIds: $ids}) { dispatchRules { rowId } } }', { ids: [rowIds.dispatchRule] }))
      .toMatchObject({ code: 'invalid_input' });
    expect(await gqlError(t, b.token, 'mutation($ids: [UUID]!) { pinsReorder(input: {pinIds: $ids}) { pins { rowId } } }', { ids: [rowIds.pin] }))
      .toMatchObject({ code: 'invalid_input' });
    // B's own admin mutations act on B only.
    await gqlOk(t, b.token, 'mutation { workspaceUpdateSettings(input: {name: "B renamed", cycleLengthDays: 3}) { workspace { rowId } } }');
    await gqlOk(t, b.token, 'mutation { membersAdd(input: {email: "a-member@example.com"}) { membership { rowId } } }');

    expect(await snapshot()).toEqual(snapshotA);
    const restAgent = await gql(t, a.token, `{ agent(rowId: "${rowIds.agent}") { name archivedAt } }`);
    expect(restAgent.data.agent).toEqual({ name: 'a-bot', archivedAt: null });
  });
});

describe('soft-deleted comments', () => {
  it('are hidden from GraphQL reads, not only from MCP lists', async () => {
    const t2 = await startTestApp({ graphql: true });
    try {
      const w = await createWorkspace(t2);
      const issue = await ok(t2, w.token, 'issues.create', { title: 'with a comment' });
      const comment = await ok(t2, w.token, 'comments.create', { issueId: issue.id, body: 'regrettable words' });
      await ok(t2, w.token, 'comments.delete', { id: comment.id });
      const data = await gqlOk(t2, w.token, '{ comments { nodes { rowId body } } }');
      expect(JSON.stringify(data)).not.toContain('regrettable words');
      const { rows } = await t2.pools.owner.query('select deleted_at from app_public.comments where id = $1', [comment.id]);
      expect(rows[0].deleted_at).toBeInstanceOf(Date); // kept for audit
    } finally {
      await t2.close();
    }
  });
});

describe('narrowed keys and workspace configuration', () => {
  it('see no dispatch rules and no attachments on comments of hidden issues', async () => {
    const t3 = await startTestApp({ graphql: true });
    try {
      const w = await createWorkspace(t3);
      const { rows: [project] } = await t3.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Seen') returning id`, [w.id]);
      const hidden = await ok(t3, w.token, 'issues.create', { title: 'hidden' });
      const comment = await ok(t3, w.token, 'comments.create', { issueId: hidden.id, body: 'with a file' });
      await t3.pools.owner.query(
        `insert into app_public.attachments (workspace_id, kind, target_type, target_id, external_url, mime_type) values ($1, 'LINK', 'comment', $2, 'https://example.com/x', 'text/url')`,
        [w.id, comment.id]);
      const agent = await createAgent(t3, w, 'triager');
      await gqlOk(t3, w.token, `mutation { dispatchRulesCreate(input: {name: "urgent", priority: "URGENT", targetAgentId: "${agent.id}"}) { clientMutationId } }`);
      expect((await gqlOk(t3, w.token, '{ dispatchRules { nodes { rowId } } }')).dispatchRules.nodes).toHaveLength(1);
      const narrowed = await createKey(t3, w, { projects: [project.id] });
      expect((await gqlOk(t3, narrowed.token, '{ attachments { nodes { rowId } } }')).attachments.nodes).toEqual([]);
      expect((await gqlOk(t3, narrowed.token, '{ dispatchRules { nodes { rowId } } }')).dispatchRules.nodes).toEqual([]);
      expect((await gqlOk(t3, w.token, '{ attachments { nodes { rowId } } }')).attachments.nodes).toHaveLength(1);
    } finally {
      await t3.close();
    }
  });
  it('an initiative-narrowed key sees a project but not the initiative it belongs to, nor its id', async () => {
    const w = await createWorkspace(t);
    const hidden = await ok(t, w.token, 'initiatives.create', { name: 'Hidden plan' });
    const mine = await ok(t, w.token, 'initiatives.create', { name: 'Mine' });
    const p = await ok(t, w.token, 'projects.create', { name: 'Under the hidden plan', initiativeId: hidden.id });
    const key = await createKey(t, w, { initiatives: [mine.id] });
    const seen = await gqlOk(t, key.token, 'query($id: UUID!) { project(rowId: $id) { name initiative { rowId } } }', { id: p.id });
    expect(seen.project).toEqual({ name: 'Under the hidden plan', initiative: null });
    // The raw column is not in the schema (as Issue.parentId): Project.initiative, null under RLS, stands for it.
    expect((await gql(t, key.token, 'query($id: UUID!) { project(rowId: $id) { initiativeId } }', { id: p.id })).errors?.[0]?.message)
      .toMatch(/Cannot query field "initiativeId"/);
    // Nor filtered by it: that would list a hidden initiative's projects to whoever learns its id.
    expect((await gql(t, key.token, 'query($i: UUID!) { projects(condition: {initiativeId: $i}) { nodes { rowId } } }', { i: hidden.id })).errors?.[0]?.message)
      .toMatch(/initiativeId/);
    expect((await gqlOk(t, w.token, 'query($id: UUID!) { project(rowId: $id) { initiative { rowId } } }', { id: p.id })).project.initiative.rowId).toBe(hidden.id);
  });
});
