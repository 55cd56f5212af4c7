/**
 * GraphQL connections page by keyset and cover every row once: ordered by a nullable column (most rows null) of any
 * type, by every orderBy value of a connection (WORKSPACE_ID_* had no tie-breaker), and the procedures that list rows
 * (accessKeys, plugins), with rows written between pages. Search pages through issuesList.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, insertProject, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlOk } from '../support/graphql.ts';

const READS = ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] as const;

let t: TestApp;
let ws: Workspace;
let other: Workspace;
beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
});
afterAll(() => t.close());

interface Page { nodes: Array<Record<string, unknown>>; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null } }

/**
 * `field(orderBy: [orderBy])` paged `size` at a time, forward (first/after) and backward (last/before): each way gives
 * every row once, in the unpaged order, with full pages until the last and pageInfo saying where the end is; a page
 * after the last row is empty and says so. `key` is the node field compared (`number`, `rowId`).
 */
async function expectPagesCoverAll(token: string, field: string, orderBy: string, key: string, total: number, size = 7) {
  const pageQuery = `query($first: Int, $last: Int, $after: Cursor, $before: Cursor) {
    ${field}(orderBy: [${orderBy}], first: $first, last: $last, after: $after, before: $before) {
      nodes { ${key} } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
  const page = async (vars: Record<string, unknown>): Promise<Page> => (await gqlOk(t, token, pageQuery, vars))[field];
  const whole = (await gqlOk(t, token, `{ ${field}(orderBy: [${orderBy}]) { nodes { ${key} } } }`))[field].nodes.map((n: Record<string, unknown>) => n[key]);
  expect(whole, `${orderBy}: unpaged`).toHaveLength(total);

  const forward: unknown[] = [];
  let after: string | null = null;
  for (let n = 0; ; n++) {
    expect(n, `${orderBy}: pages forward`).toBeLessThan(Math.ceil(total / size) + 2);
    const p = await page({ first: size, after });
    forward.push(...p.nodes.map((i) => i[key]));
    if (!p.pageInfo.hasNextPage) break;
    expect(p.nodes, `${orderBy}: a page before the last`).toHaveLength(size);
    after = p.pageInfo.endCursor;
  }
  expect(forward, `${orderBy}: first ${size} / after`).toEqual(whole);
  // Past the last row: an empty page that says so.
  const end = await page({ first: size, after: (await page({ last: 1 })).pageInfo.endCursor });
  expect(end.nodes, `${orderBy}: after the last row`).toEqual([]);
  expect(end.pageInfo.hasNextPage).toBe(false);

  const backward: unknown[] = [];
  let before: string | null = null;
  for (let n = 0; ; n++) {
    expect(n, `${orderBy}: pages backward`).toBeLessThan(Math.ceil(total / size) + 2);
    const p = await page({ last: size, before });
    backward.unshift(...p.nodes.map((i) => i[key]));
    if (!p.pageInfo.hasPreviousPage) break;
    expect(p.nodes, `${orderBy}: a page before the first`).toHaveLength(size);
    before = p.pageInfo.startCursor;
  }
  expect(backward, `${orderBy}: last ${size} / before`).toEqual(whole);
}

describe('issues ordered by a nullable column (a few rows with a value, most without)', () => {
  const total = 30;
  beforeAll(async () => {
    await ok(t, ws.token, 'issues.createMany', { items: Array.from({ length: total }, (_, i) => ({ title: `Row ${i + 1}` })) });
    await ok(t, other.token, 'issues.createMany', { items: [{ title: 'Elsewhere 1' }, { title: 'Elsewhere 2' }] });
    const projectA = await insertProject(t, ws, 'Alpha');
    const projectB = await insertProject(t, ws, 'Beta');
    const agentA = (await createAgent(t, ws, 'pager-a')).id;
    const agentB = (await createAgent(t, ws, 'pager-b')).id;
    const set = (sql: string, params: unknown[]) => t.pools.owner.query(`update app_public.issues set ${sql} and workspace_id = $1`, [ws.id, ...params]);
    // Five due dates, two of them the same day; four projects rows (two each); three assigned (two to one agent).
    await set(`due_date = date '2026-03-01' + (number % 4) where number in (3, 8, 12, 19, 27)`, []);
    await set(`project_id = case when number < 15 then $2::uuid else $3::uuid end where number in (5, 9, 21, 28)`, [projectA, projectB]);
    await set(`assigned_agent_id = case when number = 30 then $2::uuid else $3::uuid end where number in (2, 16, 30)`, [agentA, agentB]);
    // Five SLAs (an int4, at least 1): two of 30 minutes, two of 1, one of 90.
    await set(`sla_minutes = case when number in (6, 20) then 30 when number in (13, 24) then 1 else 90 end where number in (6, 13, 20, 24, 29)`, []);
  });

  for (const orderBy of ['DUE_DATE_ASC', 'DUE_DATE_DESC', 'PROJECT_ID_DESC', 'PROJECT_ID_ASC', 'ASSIGNED_AGENT_ID_ASC', 'ASSIGNED_AGENT_ID_DESC', 'SLA_MINUTES_ASC', 'SLA_MINUTES_DESC']) {
    it(`${orderBy}: first 7 / after and last 7 / before each give every row once, in the unpaged order`, async () => {
      await expectPagesCoverAll(ws.token, 'issues', orderBy, 'number', total);
    });
  }

  it('SLA_MINUTES_ASC: a null is null in the cursor (it was 0: the int codec read null as +null)', async () => {
    const q = '{ issues(orderBy: [SLA_MINUTES_ASC], last: 1) { nodes { slaMinutes } pageInfo { endCursor } } }';
    const { issues } = await gqlOk(t, ws.token, q);
    expect(issues.nodes[0].slaMinutes).toBeNull();
    const cursor = JSON.parse(Buffer.from(issues.pageInfo.endCursor, 'base64').toString('utf8'));
    expect(cursor.slice(1, 3)).toEqual([true, null]);
  });

  it('every IssueOrderBy value (from introspection) pages 30 issues first 7 / after and last 7 / before, each row once', async () => {
    const values: string[] = (await gqlOk(t, ws.token, '{ __type(name: "IssueOrderBy") { enumValues { name } } }')).__type.enumValues.map((v: { name: string }) => v.name);
    expect(values).toEqual(expect.arrayContaining(['SLA_MINUTES_ASC', 'WORKSPACE_ID_DESC', 'QUEUED_ASC', 'PRIMARY_KEY_ASC', 'NATURAL']));
    for (const orderBy of values) await expectPagesCoverAll(ws.token, 'issues', orderBy, 'number', total);
  });
});

describe('time entries ordered by their duration (an int4: a few logged, most running and null)', () => {
  let timed: Workspace;
  const durations = [15, 45, 15, 0, null, null, null, null, null, null, null, null, null];
  beforeAll(async () => {
    timed = await createWorkspace(t);
    const issue = await ok(t, timed.token, 'issues.create', { title: 'Timed' });
    // One running timer per user: each entry is another user's (no membership needed for the row itself).
    await t.pools.owner.query(
      `with u as (insert into app_public.users (email) select 'timer' || n || '-' || $3::text || '@example.com' from generate_series(1, $4::int) n returning id)
       insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, ended_at, duration_min)
       select $1, $2, u.id, now() - interval '2 hours', case when d.m is null then null else now() end, d.m
       from (select id, row_number() over (order by id) as n from u) u join unnest($5::int[]) with ordinality d(m, n) using (n)`,
      [timed.id, issue.id, timed.key.toLowerCase(), durations.length, durations]);
  });

  for (const orderBy of ['DURATION_MIN_ASC', 'DURATION_MIN_DESC']) {
    it(`${orderBy}: first 7 / after and last 7 / before each give every entry once, in the unpaged order`, async () => {
      await expectPagesCoverAll(timed.token, 'timeEntries', orderBy, 'rowId', durations.length);
    });
  }

  it('every TimeEntryOrderBy value pages by 4, each entry once (WORKSPACE_ID_ASC stopped after the first page)', async () => {
    const values: string[] = (await gqlOk(t, timed.token, '{ __type(name: "TimeEntryOrderBy") { enumValues { name } } }')).__type.enumValues.map((v: { name: string }) => v.name);
    for (const orderBy of values) await expectPagesCoverAll(timed.token, 'timeEntries', orderBy, 'rowId', durations.length, 4);
  });
});

describe('execution plans ordered by auto_judge (a nullable boolean: its codec threw on a null in the cursor)', () => {
  let planned: Workspace;
  const judges = [true, false, true, null, null, null, null, null, null, null];
  beforeAll(async () => {
    planned = await createWorkspace(t);
    // Earlier attempts of one goal (one active attempt at most): auto_judge set on three, null (the crew decides) on the rest.
    await t.pools.owner.query(
      `with g as (insert into app_public.goals (workspace_id, title) values ($1, 'Paged goal') returning id)
       insert into app_public.execution_plans (workspace_id, goal_id, attempt, status, is_active_attempt, auto_judge)
       select $1, g.id, j.n, 'CANCELED', false, j.v from g, unnest($2::boolean[]) with ordinality j(v, n)`,
      [planned.id, judges]);
  });

  for (const orderBy of ['AUTO_JUDGE_ASC', 'AUTO_JUDGE_DESC']) {
    it(`${orderBy}: first 4 / after and last 4 / before each give every plan once, in the unpaged order`, async () => {
      await expectPagesCoverAll(planned.token, 'executionPlans', orderBy, 'rowId', judges.length, 4);
    });
  }

  it('every ExecutionPlanOrderBy value pages by 3, each plan once', async () => {
    const values: string[] = (await gqlOk(t, planned.token, '{ __type(name: "ExecutionPlanOrderBy") { enumValues { name } } }')).__type.enumValues.map((v: { name: string }) => v.name);
    expect(values).toContain('AUTO_JUDGE_ASC');
    for (const orderBy of values) await expectPagesCoverAll(planned.token, 'executionPlans', orderBy, 'rowId', judges.length, 3);
  });
});

describe('accessKeys and plugins page by keyset', () => {
  const keyPage = 'query($after: Cursor) { accessKeys(first: 2, after: $after) { nodes { rowId userId } pageInfo { hasNextPage endCursor } } }';
  const allKeys = async (token: string, between?: () => Promise<unknown>) => {
    const seen: Array<{ rowId: string; userId: string }> = [];
    let after: string | null = null;
    for (let n = 0; ; n++) {
      expect(n, 'pages').toBeLessThan(20);
      const page: { nodes: Array<{ rowId: string; userId: string }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } } =
        (await gqlOk(t, token, keyPage, { after })).accessKeys;
      seen.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) return seen;
      if (n === 0) await between?.();
      after = page.pageInfo.endCursor;
    }
  };

  it('accessKeys: a key made between two pages neither repeats nor hides one (it paged by row position)', async () => {
    const w = await createWorkspace(t);
    for (let i = 0; i < 5; i++) await createKey(t, w);
    const before = (await gqlOk(t, w.token, '{ accessKeys { nodes { rowId } } }')).accessKeys.nodes.map((k: { rowId: string }) => k.rowId);
    expect(before).toHaveLength(6);
    const seen = (await allKeys(w.token, () => gqlOk(t, w.token, 'mutation { accessCreateSession(input: {ttlHours: 1}) { issuedApiKey { rowId } } }'))).map((k) => k.rowId);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...before].sort()); // the new key is newest: ahead of the cursor
    // Newest first, every key once.
    const after = (await gqlOk(t, w.token, '{ accessKeys { nodes { rowId createdAt } } }')).accessKeys.nodes;
    expect(after).toHaveLength(7);
    expect(await allKeys(w.token).then((k) => k.map((x) => x.rowId))).toEqual(after.map((k: { rowId: string }) => k.rowId));
    expect(after.map((k: { createdAt: string }) => Date.parse(k.createdAt))).toEqual(after.map((k: { createdAt: string }) => Date.parse(k.createdAt)).sort((a: number, b: number) => b - a));
  });

  it("accessKeys paged by a project-narrowed owner key: its user's keys only, each once", async () => {
    const w = await createWorkspace(t);
    const project = await insertProject(t, w, 'Narrow');
    await admin(t, 'add-member', { workspace: w.key, email: `m-${w.key.toLowerCase()}@example.com`, role: 'MEMBER', json: true });
    const memberKey = await createKey(t, w, { user: `m-${w.key.toLowerCase()}@example.com` });
    for (let i = 0; i < 3; i++) await createKey(t, w);
    const narrowed = await createKey(t, w, { scopes: [...READS], projects: [project] });
    const everyKey: Array<{ rowId: string; userId: string }> = (await gqlOk(t, w.token, '{ accessKeys { nodes { rowId userId } } }')).accessKeys.nodes;
    const owner = everyKey.find((k) => k.rowId === narrowed.id)!.userId;
    const seen = await allKeys(narrowed.token);
    expect(new Set(seen.map((k) => k.rowId)).size).toBe(seen.length);
    expect(seen.map((k) => k.rowId).sort()).toEqual(everyKey.filter((k) => k.userId === owner).map((k) => k.rowId).sort());
    expect(seen.map((k) => k.rowId)).not.toContain(memberKey.id);
    // Another workspace's owner pages only its own.
    expect((await allKeys(other.token)).map((k) => k.rowId)).not.toContain(narrowed.id);
  });

  it('plugins: a plugin recorded between two pages at the same instant as the first neither repeats nor hides one', async () => {
    const w = await createWorkspace(t);
    for (const name of ['One', 'Two', 'Three', 'Four']) {
      await gqlOk(t, w.token, `mutation { pluginsCreate(input: {name: "${name}", scopes: [READ_ISSUES]}) { pluginInfo { rowId } } }`);
    }
    const q = 'query($after: Cursor) { plugins(first: 2, after: $after) { nodes { rowId name createdAt } pageInfo { hasNextPage endCursor } } }';
    const first = (await gqlOk(t, w.token, q, { after: null })).plugins;
    expect(first.nodes.map((p: { name: string }) => p.name)).toEqual(['One', 'Two']);
    // Ordered (createdAt, id): this one sorts ahead of "One".
    await t.pools.owner.query(`insert into app_private.plugins (id, workspace_id, name, manifest, approved_at, created_at)
      values ('00000000-0000-4000-8000-000000000000', $1, 'Zero', '{"scopes": ["READ_ISSUES"]}', now(), $2)`, [w.id, first.nodes[0].createdAt]);
    const rest: string[] = [];
    let after = first.pageInfo.endCursor;
    for (;;) {
      const page = (await gqlOk(t, w.token, q, { after })).plugins;
      rest.push(...page.nodes.map((p: { name: string }) => p.name));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(rest).toEqual(['Three', 'Four']);
    expect((await gqlOk(t, w.token, '{ plugins { nodes { name } } }')).plugins.nodes.map((p: { name: string }) => p.name)).toEqual(['Zero', 'One', 'Two', 'Three', 'Four']);
  });
});

describe('search pages through issuesList(query) (searchIssues paged by row position and is gone)', () => {
  const q = 'query($q: String, $cursor: String) { issuesList(query: $q, limit: 2, cursor: $cursor) }';
  const pages = async (token: string, query: string, between?: () => Promise<unknown>) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; ; n++) {
      expect(n, 'pages').toBeLessThan(20);
      const page: { items: Array<{ key: string }>; nextCursor: string | null } = (await gqlOk(t, token, q, { q: query, cursor })).issuesList;
      seen.push(...page.items.map((i) => i.key));
      if (!page.nextCursor) return seen;
      if (n === 0) await between?.();
      cursor = page.nextCursor;
    }
  };

  it('searchIssues is not in the schema; issuesList answers a query with no words as issues.list does', async () => {
    const fields = (await gqlOk(t, ws.token, '{ __type(name: "Query") { fields { name } } }')).__type.fields.map((f: { name: string }) => f.name);
    expect(fields).toContain('issuesList');
    expect(fields).not.toContain('searchIssues');
    for (const query of ['   ', 'x'.repeat(201)]) {
      const refused = await gql(t, ws.token, q, { q: query });
      expect(refused.errors?.[0]?.extensions).toMatchObject({ status: 400, code: 'invalid_input' });
      expect(Object.keys(refused.errors![0]!.extensions!.issues!)).toEqual(['query']);
    }
  });

  it('a match created and one deleted between pages: every match that stayed comes once (a narrowed key too)', async () => {
    const w = await createWorkspace(t);
    const alpha = await insertProject(t, w, 'Alpha');
    const beta = await insertProject(t, w, 'Beta');
    const made: Record<string, { id: string; key: string }> = {};
    for (let i = 0; i < 8; i++) {
      const issue = await ok(t, w.token, 'issues.create', { title: `Quokka ${i}`, description: i % 2 ? 'about a quokka' : 'nothing', projectId: i < 5 ? alpha : beta });
      made[issue.key] = issue;
    }
    await ok(t, other.token, 'issues.create', { title: 'Quokka elsewhere' });
    const whole = await pages(w.token, 'quokka');
    expect(whole.sort()).toEqual(Object.keys(made).sort());

    const firstPage: string[] = (await gqlOk(t, w.token, q, { q: 'quokka' })).issuesList.items.map((i: { key: string }) => i.key);
    const seen = await pages(w.token, 'quokka', async () => {
      await ok(t, w.token, 'issues.create', { title: 'Quokka newest, best ranked', projectId: alpha });
      await ok(t, w.token, 'issues.delete', { id: made[firstPage[0]!]!.id });
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((k) => made[k]).sort()).toEqual(Object.keys(made).sort());

    const narrowed = await createKey(t, w, { scopes: [...READS], projects: [alpha] });
    const visible = Object.values(made).filter((_, i) => i < 5).map((i) => i.key).filter((k) => k !== firstPage[0]);
    const theirs = await pages(narrowed.token, 'quokka', () => ok(t, w.token, 'issues.create', { title: 'Quokka hidden', projectId: beta }));
    expect(new Set(theirs).size).toBe(theirs.length);
    expect(theirs.filter((k) => made[k]).sort()).toEqual(visible.sort());
    const hidden = new Set(Object.values(made).filter((_, i) => i >= 5).map((i) => i.key));
    expect(theirs.filter((k) => hidden.has(k))).toEqual([]);
  });
});
