/** issues.list query (full-text search, ranked, prefix, paged), also as GraphQL issuesList(query) (issue 15). */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, createKey, createWorkspace, insertLabel, insertProject, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let projectA: string;
let projectB: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'SRCH');
  other = await createWorkspace(t, 'OTHR');
  projectA = await insertProject(t, ws, 'Alpha');
  projectB = await insertProject(t, ws, 'Beta');
  const make = async (name: string, input: object) => { ids[name] = (await ok(t, ws.token, 'issues.create', input)).id; };
  await make('inDescription', { title: 'Nightly job', description: 'The deploy pipeline times out at night', projectId: projectA });
  await make('inTitle', { title: 'Deploy pipeline is slow', description: 'It takes ages', projectId: projectB });
  await make('unrelated', { title: 'Logo colour', description: 'Make it blue', projectId: projectA });
  await make('deployment', { title: 'Deployment docs', projectId: projectA });
  await ok(t, other.token, 'issues.create', { title: 'Deploy pipeline elsewhere' });
});
afterAll(() => t.close());

describe('issues.list query', () => {
  it('ranks title matches above description matches, every word must match, skips the rest', async () => {
    const page = await ok(t, ws.token, 'issues.list', { query: 'deploy pipeline' });
    expect(page.items.map((i: { id: string }) => i.id)).toEqual([ids.inTitle, ids.inDescription]);
    expect(page.nextCursor).toBeNull();
  });

  it('matches the last word as a prefix, earlier words whole', async () => {
    const page = await ok(t, ws.token, 'issues.list', { query: 'depl' });
    expect(new Set(page.items.map((i: { id: string }) => i.id))).toEqual(new Set([ids.inTitle, ids.inDescription, ids.deployment]));
    expect((await ok(t, ws.token, 'issues.list', { query: 'depl pipeline' })).items).toHaveLength(0);
    expect((await ok(t, ws.token, 'issues.list', { query: 'PIPELINE, "deplo' })).items).toHaveLength(2);
  });

  it('combines with filters and pages by rank without repeats', async () => {
    const inA = await ok(t, ws.token, 'issues.list', { query: 'deploy', projectId: projectA });
    expect(new Set(inA.items.map((i: { id: string }) => i.id))).toEqual(new Set([ids.inDescription, ids.deployment]));
    const all = await ok(t, ws.token, 'issues.list', { query: 'de' });
    const paged = await allPages(t, ws.token, 'issues.list', { query: 'de' }, 1);
    expect(paged.map((i: { id: string }) => i.id)).toEqual(all.items.map((i: { id: string }) => i.id));
    expect(paged.length).toBe(3);
  });

  it('a narrowed key finds only what it may see; another workspace finds nothing of this one', async () => {
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [projectB] });
    const page = await ok(t, narrowed.token, 'issues.list', { query: 'deploy' });
    expect(page.items.map((i: { id: string }) => i.id)).toEqual([ids.inTitle]);
    // Narrowed keys page through the joined matches (the policies filter before the limit).
    const inA = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [projectA] });
    const allA = (await ok(t, inA.token, 'issues.list', { query: 'depl' })).items.map((i: { id: string }) => i.id);
    expect(new Set(allA)).toEqual(new Set([ids.inDescription, ids.deployment]));
    expect((await allPages(t, inA.token, 'issues.list', { query: 'depl' }, 1)).map((i: { id: string }) => i.id)).toEqual(allA);
    const theirs = await ok(t, other.token, 'issues.list', { query: 'deploy' });
    expect(theirs.items).toHaveLength(1);
    expect(theirs.items[0].title).toBe('Deploy pipeline elsewhere');
  });

  it('bad input: a query without words, an over-long one, a foreign cursor are 400s on their field', async () => {
    for (const [input, field] of [[{ query: '!!! &|:*' }, 'query'], [{ query: '' }, 'query'], [{ query: 'x'.repeat(201) }, 'query'],
      [{ query: 'deploy', cursor: 'bm9wZQ' }, 'cursor']] as const) {
      const r = await rest(t, ws.token, 'issues.list', input);
      expect(r.status, JSON.stringify(input)).toBe(400);
      expect(r.body.issues).toHaveProperty(field);
    }
    const forged = (token: string) => Buffer.from(`issues-search:${token}`).toString('base64url');
    for (const token of ['1e+', '0.5', '0.5:x', '0.5:1:2', 'NaN:99999999999']) {
      expect((await rest(t, ws.token, 'issues.list', { query: 'deploy', cursor: forged(token) })).status, token).toBe(400);
    }
    const plainCursor = (await ok(t, ws.token, 'issues.list', { limit: 1 })).nextCursor;
    expect((await rest(t, ws.token, 'issues.list', { query: 'deploy', cursor: plainCursor })).status).toBe(400);
  });

  it('missing scope is 403; JSON-RPC answers the same', async () => {
    const noRead = await createKey(t, ws, { scopes: ['READ_PROJECTS'] });
    const r = await rest(t, noRead.token, 'issues.list', { query: 'deploy' });
    expect(r.status).toBe(403);
    const viaRpc = await rpc(t, ws.token, 'tools/call', { name: 'issues.list', arguments: { query: 'slow' } });
    expect(viaRpc.body.result.structuredContent.items.map((i: { id: string }) => i.id)).toEqual([ids.inTitle]);
  });
});

describe('issues.list query over many matches', () => {
  it('ranks the newest 200 matches, then pages the older ones newest first, each match once', async () => {
    const big = await createWorkspace(t, 'MANY');
    // Issue 1 matches best (the word twice in its title) but is older than the newest 200 matches: it
    // comes after them, in number order. Issues 2–1,100 match once.
    await t.pools.owner.query(
      `insert into app_public.issues (workspace_id, title, status_id)
       select $1, case when g = 1 then 'marker marker marker' else 'Plain marker ' || g end,
              (select id from app_public.statuses where workspace_id = $1 and is_default)
       from generate_series(1, 1100) g order by g`, [big.id]);
    const byNumber = (await t.pools.owner.query(
      'select id, number from app_public.issues where workspace_id = $1', [big.id])).rows;
    const numberOf = new Map(byNumber.map((r: { id: string; number: number }) => [r.id, r.number]));
    const all = await allPages(t, big.token, 'issues.list', { query: 'marker' }, 200);
    const numbers = all.map((i: { id: string }) => numberOf.get(i.id)!);
    expect(numbers).toHaveLength(1100);
    expect(new Set(numbers).size).toBe(1100);
    expect(new Set(numbers.slice(0, 200))).toEqual(new Set(Array.from({ length: 200 }, (_, k) => 1100 - k)));
    expect(numbers.slice(200)).toEqual(Array.from({ length: 900 }, (_, k) => 900 - k));
    // The filtered (joined) path orders the same way.
    const filtered = await allPages(t, big.token, 'issues.list', { query: 'marker', priority: 'NONE' }, 150);
    expect(filtered.map((i: { id: string }) => numberOf.get(i.id)!)).toEqual(numbers);
    // A filter that keeps some matches, on both sides of the ranked window: the same order, those rows only, each
    // once, paged across the window's edge (the matches are read filtered; they were all joined and filtered after).
    await t.pools.owner.query(`update app_public.issues set priority = 'HIGH' where workspace_id = $1 and number % 3 = 0`, [big.id]);
    const high = numbers.filter((n) => n % 3 === 0);
    for (const limit of [7, 50, 200]) {
      const page = await allPages(t, big.token, 'issues.list', { query: 'marker', priority: 'HIGH' }, limit);
      expect(page.map((i: { id: string }) => numberOf.get(i.id)!)).toEqual(high);
    }
    expect((await ok(t, big.token, 'issues.list', { query: 'marker', priority: 'URGENT' })).items).toEqual([]);
    // A narrowed key takes the joined path: the same order over what it sees.
    const project = await insertProject(t, big, 'Seen');
    await t.pools.owner.query(`update app_public.issues set project_id = $2 where workspace_id = $1 and number % 2 = 0`, [big.id, project]);
    const narrowed = (await createKey(t, big, { projects: [project] })).token;
    const seen = await allPages(t, narrowed, 'issues.list', { query: 'marker', priority: 'HIGH' }, 40);
    const seenNumbers = seen.map((i: { id: string }) => numberOf.get(i.id)!);
    expect(new Set(seenNumbers)).toEqual(new Set(high.filter((n) => n % 2 === 0)));
    expect(seenNumbers).toHaveLength(high.filter((n) => n % 2 === 0).length);
    // Narrowed by a label: the rows' label_ids answer for issue_labels.
    const label = await insertLabel(t, big, 'Seen label');
    await t.pools.owner.query(
      `insert into app_public.issue_labels (issue_id, label_id, workspace_id)
       select id, $2, workspace_id from app_public.issues where workspace_id = $1 and number % 5 = 0`, [big.id, label]);
    const byLabel = (await createKey(t, big, { labels: [label] })).token;
    const labelled = await allPages(t, byLabel, 'issues.list', { query: 'marker' }, 100);
    expect(labelled.map((i: { id: string }) => numberOf.get(i.id)!).sort((a: number, b: number) => a - b))
      .toEqual(numbers.filter((n) => n % 5 === 0).sort((a, b) => a - b));
  });
});

describe('issues.list query: the index is keyed per workspace', () => {
  it('a workspace whose id shares this one\'s index tag (its first 8 characters) finds nothing of it, nor it of this one', async () => {
    // search_document keys each lexeme with the first 8 characters of the workspace id; two workspaces may share
    // them. The twin is made by hand with such an id: its entries sit beside ours in the index.
    const twinId = `${ws.id.slice(0, 8)}-0000-4000-8000-${crypto.randomBytes(6).toString('hex')}`;
    await t.pools.owner.query(`insert into app_public.workspaces (id, slug, key, name) values ($1, 'twin-' || $2, 'TWIN', 'Twin')`, [twinId, twinId.slice(-6)]);
    await t.pools.owner.query(
      `insert into app_public.issues (workspace_id, title, status_id)
       values ($1, 'Deploy pipeline of the twin', (select id from app_public.statuses where workspace_id = $1 and is_default))`, [twinId]);
    const { rows: [doc] } = await t.pools.owner.query(
      `select search::text from app_public.issues where workspace_id = $1`, [twinId]);
    expect(doc.search).toContain(`'${ws.id.slice(0, 8)}deploy'`);
    const page = await ok(t, ws.token, 'issues.list', { query: 'deploy pipe' });
    expect(page.items.map((i: { id: string }) => i.id)).toEqual([ids.inTitle, ids.inDescription]);
    expect((await ok(t, ws.token, 'issues.list', { query: 'twin' })).items).toHaveLength(0);
    expect((await ok(t, ws.token, 'issues.count', { query: 'deploy' })).total).toBe(3);
  });

  it('any title is searchable: quotes, backslashes, a word too long to index, 100,000 characters', async () => {
    const quoted = await ok(t, ws.token, 'issues.create', { title: `O'Brien's path C:\\temp\\x`, description: 'z'.repeat(2040) + ' tail' });
    const long = await ok(t, ws.token, 'issues.create', { title: 'Long description', description: ('word ' + 'y'.repeat(30) + ' ').repeat(2700) });
    expect((await ok(t, ws.token, 'issues.list', { query: "o'brien" })).items.map((i: { id: string }) => i.id)).toEqual([quoted.id]);
    expect((await ok(t, ws.token, 'issues.list', { query: 'temp' })).items.map((i: { id: string }) => i.id)).toEqual([quoted.id]);
    expect((await ok(t, ws.token, 'issues.list', { query: 'tail' })).items.map((i: { id: string }) => i.id)).toEqual([quoted.id]);
    expect((await ok(t, ws.token, 'issues.list', { query: 'yyyyyy' })).items.map((i: { id: string }) => i.id)).toEqual([long.id]);
    await ok(t, ws.token, 'issues.delete', { id: quoted.id });
    await ok(t, ws.token, 'issues.delete', { id: long.id });
  });
});

describe('GraphQL issuesList(query) (searchIssues, which paged by row position, is gone)', () => {
  it('returns the ranked matches the key may see', async () => {
    const q = 'query($q: String) { issuesList(query: $q) }';
    const data = await gqlOk(t, ws.token, q, { q: 'deploy pipe' });
    expect(data.issuesList.items.map((i: { id: string }) => i.id)).toEqual([ids.inTitle, ids.inDescription]);
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'], projects: [projectA] });
    const mine = await gqlOk(t, narrowed.token, q, { q: 'deploy' });
    expect(new Set(mine.issuesList.items.map((i: { id: string }) => i.id))).toEqual(new Set([ids.inDescription, ids.deployment]));
    const bad = await gql(t, ws.token, q, { q: '***' });
    expect(bad.errors?.[0]?.extensions?.status).toBe(400);
  });
});

describe('what a user types finds what is written', () => {
  it('any letter case, also outside ASCII (the simple dictionary lowercased ASCII only)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Übersicht Привет ÉCOLE', description: 'ОШИБКА при входе' });
    for (const query of ['übersicht', 'ÜBERSICHT', 'Übersicht', 'привет', 'ПРИВЕТ', 'école', 'ÉCOLE', 'ошибка', 'Ошиб']) {
      expect([query, (await ok(t, ws.token, 'issues.list', { query })).items.map((i: { id: string }) => i.id)]).toEqual([query, [issue.id]]);
    }
  });

  it('words beside punctuation beyond ASCII (quotes, guillemets, ¿, an emoji) are found, and a run of 700 CJK letters is taken', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: '«Liberté» “Quoted” „Anführung“ ¿Por 😀handler' });
    for (const query of ['liberté', 'quoted', 'anführung', 'por', 'handler', '«Liberté» “Quoted” „Anführung“ ¿Por 😀handler']) {
      expect((await ok(t, ws.token, 'issues.list', { query })).items.map((i: { id: string }) => i.id), query).toEqual([issue.id]);
    }
    // A run over array_to_tsvector's 2 kB beside a URL was refused as "not valid UTF-8" (a character cut in two).
    const long = await ok(t, ws.token, 'issues.create', { title: 'CJK run', description: `${'日'.repeat(700)} https://example.org/x v1` });
    expect((await ok(t, ws.token, 'issues.list', { query: 'example.org' })).items.map((i: { id: string }) => i.id)).toContain(long.id);
  });

  it('words joined by dots, slashes, signs or an @ are found whole and by their parts', async () => {
    const issue = await ok(t, ws.token, 'issues.create', {
      title: 'Deploy v1.2.3 breaks src/index.ts',
      description: 'Reported by alice@example.com: pi is 3.14, offset -12, see https://docs.example.org/guide and SRCH-3',
    });
    for (const query of ['v1.2.3', '1.2.3', 'src/index.ts', 'index', 'index.ts', 'alice@example.com', 'example.com', '3.14', '14',
      '-12', 'docs.example.org', 'guide', 'SRCH-3']) {
      expect((await ok(t, ws.token, 'issues.list', { query })).items.map((i: { id: string }) => i.id), query).toContain(issue.id);
    }
  });

  it('a query of more than 32 words is refused, not cut', async () => {
    const r = await rest(t, ws.token, 'issues.list', { query: `${'a '.repeat(32)}zzzzzz` });
    expect([r.status, r.body.issues]).toEqual([400, { query: expect.stringMatching(/more than 32 words/) }]);
  });
});

describe('search paging while matches are written', () => {
  it('keeps the first page\'s ranked window: no issue twice or never when a match is created or deleted between pages', async () => {
    const w = await createWorkspace(t);
    await t.pools.owner.query(`insert into app_public.issues (workspace_id, title, status_id)
      select $1, 'kappa ' || g || case when g % 7 = 0 then ' kappa kappa' else '' end, s.id
      from app_public.statuses s, generate_series(1, 230) g where s.workspace_id = $1 and s.is_default`, [w.id]);
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    const existing = new Set((await allPages(t, w.token, 'issues.list', { query: 'kappa' }, 100)).map((i: { id: string }) => i.id));
    expect(existing.size).toBe(230);
    let deleted: string | undefined;
    do {
      const r: { items: Array<{ id: string }>; nextCursor: string | null } = await ok(t, w.token, 'issues.list', { query: 'kappa', limit: 25, ...(cursor ? { cursor } : {}) });
      seen.push(...r.items.map((i) => i.id));
      cursor = r.nextCursor;
      page++;
      // Between pages: a new match (newest, in any window), and a match not seen yet deleted.
      await ok(t, w.token, 'issues.create', { title: `kappa kappa kappa new ${page}` });
      if (page === 2) {
        deleted = [...existing].find((id) => !seen.includes(id));
        await ok(t, w.token, 'issues.delete', { id: deleted });
      }
    } while (cursor && page < 40);
    const throughout = [...existing].filter((id) => id !== deleted);
    expect(seen.filter((id) => existing.has(id)).length).toBe(new Set(seen.filter((id) => existing.has(id))).size); // none twice
    expect(throughout.filter((id) => !seen.includes(id))).toEqual([]); // none never
    // A cursor of another query is refused (it started part-way through this one's results).
    const first = await ok(t, w.token, 'issues.list', { query: 'kappa', limit: 2 });
    const foreign = await rest(t, w.token, 'issues.list', { query: 'kapp', limit: 2, cursor: first.nextCursor });
    expect([foreign.status, Object.keys(foreign.body.issues ?? {})]).toEqual([400, ['cursor']]);
    // With another filter (the built query) the window holds too.
    const filtered = await allPages(t, w.token, 'issues.list', { query: 'kappa', open: true }, 30);
    expect(filtered.length).toBe(new Set(filtered.map((i: { id: string }) => i.id)).size);
  });
});
