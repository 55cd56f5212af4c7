/**
 * GraphQL connections page by keyset and cover every row once: ordered by a nullable column (most rows null), and the
 * procedures that list rows (accessKeys, plugins), with rows written between pages. Search pages through issuesList.
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

interface Page { nodes: Array<{ number: number }>; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null } }

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
  });

  const pageQuery = (orderBy: string) => `query($first: Int, $last: Int, $after: Cursor, $before: Cursor) {
    issues(orderBy: [${orderBy}], first: $first, last: $last, after: $after, before: $before) {
      nodes { number } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;

  for (const orderBy of ['DUE_DATE_ASC', 'DUE_DATE_DESC', 'PROJECT_ID_DESC', 'PROJECT_ID_ASC', 'ASSIGNED_AGENT_ID_ASC', 'ASSIGNED_AGENT_ID_DESC']) {
    it(`${orderBy}: first 7 / after and last 7 / before each give every row once, in the unpaged order`, async () => {
      const whole: number[] = (await gqlOk(t, ws.token, `{ issues(orderBy: [${orderBy}]) { nodes { number } } }`)).issues.nodes.map((n: { number: number }) => n.number);
      expect(whole).toHaveLength(total);

      const forward: number[] = [];
      let after: string | null = null;
      for (let n = 0; ; n++) {
        expect(n, 'pages').toBeLessThan(10);
        const page: Page = (await gqlOk(t, ws.token, pageQuery(orderBy), { first: 7, after })).issues;
        forward.push(...page.nodes.map((i) => i.number));
        if (!page.pageInfo.hasNextPage) break;
        expect(page.nodes).toHaveLength(7);
        after = page.pageInfo.endCursor;
      }
      expect(forward).toEqual(whole);
      // Past the last row: an empty page that says so.
      const end: Page = (await gqlOk(t, ws.token, pageQuery(orderBy), { first: 7, after: (await gqlOk(t, ws.token, pageQuery(orderBy), { last: 1 })).issues.pageInfo.endCursor })).issues;
      expect(end.nodes).toEqual([]);
      expect(end.pageInfo.hasNextPage).toBe(false);

      const backward: number[] = [];
      let before: string | null = null;
      for (let n = 0; ; n++) {
        expect(n, 'pages').toBeLessThan(10);
        const page: Page = (await gqlOk(t, ws.token, pageQuery(orderBy), { last: 7, before })).issues;
        backward.unshift(...page.nodes.map((i) => i.number));
        if (!page.pageInfo.hasPreviousPage) break;
        expect(page.nodes).toHaveLength(7);
        before = page.pageInfo.startCursor;
      }
      expect(backward).toEqual(whole);
    });
  }
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
