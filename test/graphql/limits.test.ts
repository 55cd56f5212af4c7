/**
 * What one GraphQL request may ask for (src/graphql/limits.ts), from an outside review: lists nested three deep
 * with first: 1000 made PostgreSQL fail a 1 GB allocation; 500 aliases of __schema without a key made 55 MB answers
 * that held the service; 350 aliased issuesCreate in one request went past the rate limit; 5,000 nested selections
 * overflowed the parser. Each is now a 400 `query_too_complex` before anything runs, or counted as the calls it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;

beforeAll(async () => {
  t = await startTestApp({ graphql: true, rateLimits: { rpc: 0, rest: 40 } });
  ws = await createWorkspace(t, 'LIM');
});
afterAll(() => t.close());

const refused = (r: { status: number; body: any }, why = 'Query too large') => {
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ error: 'query_too_complex', issues: { query: expect.stringContaining(why) } });
  // A GraphQL client reads `errors`: the refusal is there too, coded as field errors are.
  expect(r.body.errors).toEqual([{ message: r.body.message, extensions: { code: 'query_too_complex', status: 400, issues: r.body.issues } }]);
};

describe('GraphQL request limits', () => {
  it('nested lists whose rows multiply past the limit are refused before they run', async () => {
    const bomb = '{ workspaces { nodes { issues(first: 1000) { nodes { rowId status { issues(first: 1000) { nodes { rowId status { issues(first: 1000) { nodes { rowId } } } } } } } } } } }';
    refused(await gql(t, ws.token, bomb));
    // The same through a variable.
    refused(await gql(t, ws.token, 'query($n: Int) { issues(first: $n) { nodes { status { issues(first: $n) { nodes { rowId } } } } } }', { n: 2_000 }));
    // And through a variable's default, when the request leaves the variable out.
    refused(await gql(t, ws.token, 'query($n: Int = 2000) { issues(first: $n) { nodes { status { issues(first: $n) { nodes { rowId } } } } } }'));
    // What an app asks for passes: a page of issues with their comments, labels and runs.
    await ok(t, ws.token, 'issues.create', { title: 'fine' });
    const page = await gqlOk(t, ws.token, '{ issues(first: 50) { nodes { rowId comments(first: 20) { nodes { rowId } } issueLabels(first: 20) { nodes { label { name } } } agentRuns(first: 5) { nodes { rowId } } } } }');
    expect(page.issues.nodes).toHaveLength(1);
    // A whole short list, unpaged, passes (statuses, labels; the board reads them so), and so do lists of one issue.
    await gqlOk(t, ws.token, '{ statuses { nodes { name } } labels { nodes { name } } issues(first: 1) { nodes { issueLabels { nodes { label { name } } } comments { nodes { rowId } } } } }');
  });

  it('a count reads the rows it counts and an offset the rows it skips: 450 aliased totalCounts, or offsets past 59,000, are refused', async () => {
    // An outside probe's two queries: each held every connection of the pool for 15-38 s on 60,000 issues.
    const counts = Array.from({ length: 450 }, (_, i) => `a${i}: issues(condition: { title: "x${i}" }) { totalCount }`).join(' ');
    refused(await gql(t, ws.token, `{ ${counts} }`));
    // Through a fragment too.
    const viaFragment = Array.from({ length: 450 }, (_, i) => `a${i}: issues(first: 1, condition: { title: "x${i}" }) { ...C }`).join(' ');
    refused(await gql(t, ws.token, `{ ${viaFragment} } fragment C on IssuesConnection { totalCount }`));
    const offsets = Array.from({ length: 20 }, (_, i) => `a${i}: issues(first: 1, offset: ${59_000 + i}, orderBy: [DESCRIPTION_DESC]) { nodes { rowId } }`).join(' ');
    refused(await gql(t, ws.token, `{ ${offsets} }`));
    // What an app asks for passes: a handful of counts, a page further on.
    const fine = await gqlOk(t, ws.token, `{ ${Array.from({ length: 20 }, (_, i) => `c${i}: issues(condition: { title: "x${i}" }) { totalCount }`).join(' ')}
      page: issues(first: 50, offset: 500) { nodes { rowId } } }`);
    expect(fine.c0.totalCount).toBe(0);
  });

  it('an offset counts the rows it skips whatever the connection selects (pageInfo or totalCount only too)', async () => {
    // A key of its own: the rate-limit test below counts on the calls spent by the workspace's key.
    const { token } = await createKey(t, ws);
    // An outside probe: with nodes this was refused, with only pageInfo it ran (200) and read the rows it skipped.
    refused(await gql(t, token, '{ issues(first: 1, offset: 1000000000) { nodes { rowId } } }'));
    refused(await gql(t, token, '{ issues(first: 1, offset: 1000000000) { pageInfo { hasNextPage } } }'));
    refused(await gql(t, token, '{ issues(offset: 1000000000) { totalCount } }'));
    refused(await gql(t, token, 'query($o: Int) { issues(first: 1, offset: $o) { pageInfo { hasNextPage hasPreviousPage } } }', { o: 200_000 }));
    // Nested: each parent row skips the offset again.
    refused(await gql(t, token, '{ issues(first: 100) { nodes { comments(offset: 1000) { pageInfo { hasNextPage } } } } }'));
    // A page further on, asked for its pageInfo only, passes.
    const fine = await gqlOk(t, token, '{ issues(first: 10, offset: 500) { pageInfo { hasNextPage } } }');
    expect(fine.issues.pageInfo.hasNextPage).toBe(false);
  });

  it('the lists inside an offset page count once for each row it skips (PostgreSQL shapes them before OFFSET drops them)', async () => {
    const { token } = await createKey(t, ws);
    // A big-workspace probe: page 501 of issues with their labels and comment counts took 0.4–1.0 s, `key` alone 39 ms.
    const deep = await gql(t, token, '{ issues(first: 50, offset: 25000) { nodes { key comments(first: 3) { totalCount } issueLabels(first: 10) { nodes { labelId } } } } }');
    refused(deep);
    expect(deep.errors![0]!.message).toMatch(/after\/before cursors/);
    // The same page with the row's own fields and to-one fields only, or the nested lists on an early page, pass.
    await gqlOk(t, token, '{ issues(first: 50, offset: 25000) { nodes { key status { name } } } }');
    await gqlOk(t, token, '{ issues(first: 50, offset: 100) { nodes { key comments(first: 3) { totalCount } } } }');
  });

  it('a negative first, last or offset is a 400 naming the argument (PostgreSQL\'s LIMIT error named none)', async () => {
    for (const [query, variables, argument] of [
      ['{ issues(first: -1) { nodes { rowId } } }', undefined, 'first'],
      ['query($n: Int) { labels(last: $n) { nodes { name } } }', { n: -5 }, 'last'],
      ['{ issues(first: 1) { nodes { comments(offset: -2) { nodes { rowId } } } } }', undefined, 'offset'],
    ] as const) {
      const r = await gql(t, ws.token, query, variables);
      expect(r.status, query).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_input', issues: { [argument]: `${argument} must be 0 or more` } });
    }
    expect((await gqlOk(t, ws.token, '{ issues(first: 0) { nodes { rowId } } }')).issues.nodes).toEqual([]);
  });

  it('lists without first count as what they may hold: unpaged lists nested in one another are refused', async () => {
    // An outside probe's query: three unpaged levels, counted as 10 rows each, were accepted; PostGraphile returned
    // every row at each level (130 MB for 330 issues) and held the service, every workspace included, for 30 s.
    refused(await gql(t, ws.token, '{ issues { nodes { project { issues { nodes { project { issues { nodes { rowId } } } } } } } } }'));
    refused(await gql(t, ws.token, '{ issues { nodes { comments(first: 50) { nodes { rowId } } } } }'));
    const r = await gql(t, ws.token, '{ issues { nodes { comments { nodes { rowId } } } } }');
    refused(r);
    expect(r.body.issues.query).toMatch(/a list without first counts as 10,000/);
  });

  it('the same field with the same arguments under two names is refused (read once, written out as often: 240 MB from 12 MB of rows)', async () => {
    const k = (await createKey(t, ws)).token; // its own rate budget: the rate-limit test below counts the workspace key's
    const twice = await gql(t, k, '{ a: issues(first: 5) { nodes { rowId } } b: issues(first: 5) { nodes { rowId } } }');
    refused(twice, 'Query repeats a field');
    expect(twice.body.issues.query).toMatch(/issues is asked for under 2 names with the same arguments \(a, b\)/);
    refused(await gql(t, k, '{ issues(first: 5) { nodes { d0: description d1: description } } }'), 'Query repeats a field');
    // Through fragments and variables of equal value too; a field merged under one name, or other arguments, pass.
    refused(await gql(t, k, 'query($x: Int, $y: Int) { a: issues(first: $x) { nodes { rowId } } ...F } fragment F on Query { b: issues(first: $y) { nodes { rowId } } }', { x: 3, y: 3 }), 'Query repeats a field');
    expect((await gql(t, k, '{ issues(first: 5) { nodes { rowId ...G } } } fragment G on Issue { rowId title }')).status).toBe(200);
    const other = await gql(t, k, '{ a: issues(first: 5) { nodes { rowId } } b: issues(first: 6) { nodes { rowId } } }');
    expect([other.status, other.body.errors]).toEqual([200, undefined]);
  });

  it('a document is bounded before graphql-js parses and validates it (2 MB of unused fragments took 0.5-1.7 s of the one thread)', async () => {
    const k = (await createKey(t, ws)).token;
    // An outside probe's 2 MB of 50,000 unused fragments, and its repeated arguments (a 6.7 MB list of errors).
    const fragments = `{ __typename } ${Array.from({ length: 50_000 }, (_, n) => `fragment F${n} on Query { __typename }`).join(' ')}`;
    const tokens = await gql(t, k, fragments);
    refused(tokens);
    expect(tokens.body.message).toBe('Query too large: more than 5,000 tokens (names, punctuation and values of the query text; variables do not count)');
    refused(await gql(t, k, `{ issues(${'first: 1 '.repeat(20_000)}) { nodes { rowId } } }`));
    // Under the token limit: more than 100 definitions, more than 100 variables, one name past 50 times at a level.
    refused(await gql(t, k, `{ __typename } ${Array.from({ length: 101 }, (_, n) => `fragment F${n} on Query { __typename }`).join(' ')}`));
    refused(await gql(t, k, `query(${Array.from({ length: 101 }, (_, n) => `$v${n}: Int`).join(' ')}) { __typename }`));
    const same = await gql(t, k, `{ issues(first: 1) { nodes { ${'title '.repeat(51)} } } }`);
    refused(same, 'Query repeats a field');
    expect(same.body.message).toMatch(/title is asked for more than 50 times at one level/);
    // What an app writes passes: forty fragments, a field merged from several of them, a few variables.
    const app = await gql(t, k, `query($n: Int) { issues(first: $n) { nodes { ${Array.from({ length: 40 }, (_, n) => `...I${n}`).join(' ')} } } } ${
      Array.from({ length: 40 }, (_, n) => `fragment I${n} on Issue { rowId title key }`).join(' ')}`, { n: 5 });
    expect([app.status, app.body.errors]).toEqual([200, undefined]);
  });

  it('a count under each row of a page counts that row\'s rows: a page of 100 issues with their comment counts passes, counts under one row do not add up free', async () => {
    const k = (await createKey(t, ws)).token;
    // An app's list screens, refused as 100,100 rows when each nested count was charged 1,000.
    for (const screen of [
      '{ issues(first: 100) { nodes { key comments { totalCount } } } }',
      '{ issues(first: 50) { nodes { key comments { totalCount } childIssues { totalCount } } } }',
    ]) {
      const r = await gql(t, k, screen);
      expect([r.status, r.body.errors]).toEqual([200, undefined]);
    }
    // Through edges too.
    const edges = await gql(t, k, '{ issues(first: 100) { edges { node { key comments { totalCount } } } } }');
    expect([edges.status, edges.body.errors]).toEqual([200, undefined]);
    // 450 different counts under one row (the workspace) each read the whole workspace: still refused.
    const counts = Array.from({ length: 450 }, (_, i) => `a${i}: issues(condition: { title: "x${i}" }) { totalCount }`).join(' ');
    refused(await gql(t, k, `{ currentWorkspace { ${counts} } }`));
    // And the same row reached from each row of a page (an issue's workspace): the page's rows share it, so each count
    // is the whole workspace's, once per row (an outside re-test's 900 whole-workspace counts passed as 90,010 rows).
    const shared = Array.from({ length: 90 }, (_, i) => `c${i}: issues(first: ${i + 1}) { totalCount }`).join(' ');
    refused(await gql(t, k, `{ issues(first: 10) { nodes { workspace { ${shared} } } } }`));
  });

  it('introspection without a key: one schema is answered, 500 aliases of it are not', async () => {
    expect((await gql(t, undefined, '{ __schema { queryType { name } } }')).status).toBe(200);
    const aliases = Array.from({ length: 500 }, (_, n) => `a${n}: __schema { types { name fields { name args { name } type { name } } } }`).join(' ');
    refused(await gql(t, undefined, `{ ${aliases} }`));
    refused(await gql(t, undefined, `{ ${Array.from({ length: 6 }, (_, n) => `s${n}: __schema { queryType { name } }`).join(' ')} }`));
  });

  it('introspection without a key is counted per address: past 60 a minute it is a 429, and keys are not held up', async () => {
    // Four anonymous clients looping on the schema took every workspace's p50 from 15 ms to 0.5-1.3 s.
    let refusal: Awaited<ReturnType<typeof gql>> | undefined;
    for (let n = 0; n < 130 && !refusal; n++) { // 60 a minute: at most 121 if the minute turns once
      const r = await gql(t, undefined, '{ __typename }');
      if (r.status !== 200) refusal = r;
    }
    expect(refusal?.status).toBe(429);
    expect(refusal?.body).toMatchObject({ error: 'rate_limited', message: expect.stringMatching(/without a key from this address: send a key/) });
    expect(Number(refusal?.headers['retry-after'])).toBeGreaterThan(0);
    expect((await gql(t, (await createKey(t, ws)).token, '{ __typename }')).status).toBe(200);
  });

  it('query text nested past the parser, or fields nested past the depth limit, is a 400', async () => {
    refused(await gql(t, ws.token, `{ ${'issues { nodes { '.repeat(2_500)}rowId${' } }'.repeat(2_500)} }`));
    refused(await gql(t, ws.token, `{ ${'a: issues(first: 1) { nodes { status { '.repeat(5)}rowId${' } } }'.repeat(5)} }`));
  });

  it('more than 50 tool fields are refused; each tool write counts against the rate limit', async () => {
    const creates = (n: number, from = 0) => `mutation { ${Array.from({ length: n }, (_, k) => `c${k}: issuesCreate(title: "alias ${from + k}")`).join(' ')} }`;
    refused(await gql(t, ws.token, creates(51)));
    const reader = await createKey(t, ws); // its own budget, to count what was written
    const before = (await ok(t, reader.token, 'issues.list', { limit: 200 })).items.length;
    // The limit is 40 calls a minute and about 10 are spent above: 20 writes pass; the next request of 20 is
    // refused (429) and writes nothing.
    expect((await gql(t, ws.token, creates(20))).status).toBe(200);
    const over = await gql(t, ws.token, creates(20, 20));
    expect(over.status).toBe(429);
    expect((await ok(t, reader.token, 'issues.list', { limit: 200 })).items.length).toBe(before + 20);
  });

  it('every mutation field counts as a call, not only the catalog tools (aliased accessCreateSession minted 200 keys as one call)', async () => {
    const minter = await createKey(t, ws); // 40 calls a minute of its own
    const sessions = (n: number) => `mutation { ${Array.from({ length: n }, (_, k) => `s${k}: accessCreateSession(input: {ttlHours: 1}) { issuedApiKey { rowId } }`).join(' ')} }`;
    expect((await gql(t, minter.token, sessions(30))).status).toBe(200);
    const over = await gql(t, minter.token, sessions(30));
    expect(over.status).toBe(429);
    const { rows } = await t.pools.owner.query("select count(*)::int as n from app_private.api_keys where workspace_id = $1 and kind = 'SESSION'", [ws.id]);
    expect(rows[0].n).toBe(30);
  });
});

describe('tool fields of a query', () => {
  it('each is a call of the rate limit, as over REST, and they run one after another', async () => {
    // Both requests in one minute of the rate limit's clock.
    if (new Date().getUTCSeconds() > 55) await new Promise((r) => setTimeout(r, 6_000));
    const lister = await createKey(t, ws); // 40 calls a minute of its own
    await ok(t, lister.token, 'issues.create', { title: 'listed' });
    const lists = (n: number) => `{ ${Array.from({ length: n }, (_, k) => `l${k}: issuesList(limit: ${k + 1})`).join(' ')} }`;
    const pool = t.pools.api;
    let most = 0;
    const sample = setInterval(() => { most = Math.max(most, pool.totalCount - pool.idleCount); }, 1);
    const first = await gqlOk(t, lister.token, lists(30)).finally(() => clearInterval(sample));
    expect(first.l0.items).toHaveLength(1);
    expect(most).toBeLessThanOrEqual(1); // else as many as the workspace's share of the pool
    expect((await gql(t, lister.token, lists(30))).status).toBe(429);
  });
});

describe('what GraphQL takes, as the tools take it', () => {
  it('a comment as long as comments.create accepts fits in one request (grafserv refused bodies over 100 kB)', async () => {
    const fresh = await createKey(t, ws); // a budget of its own: the tests above spent the owner's minute
    const issue = await ok(t, fresh.token, 'issues.create', { title: 'Long comment' });
    const body = 'é'.repeat(50_000); // 100 kB of UTF-8
    const made = await gqlOk(t, fresh.token, 'mutation($i: String!, $b: String!) { commentsCreate(issueId: $i, body: $b) }', { i: issue.id, b: body });
    expect(made.commentsCreate.body).toBe(body);
  });

  it('a refusal PostGraphile or PostgreSQL words names the argument it is about, not "input"', async () => {
    const key = (await createKey(t, ws)).token;
    const issuesOf = async (query: string) => (await gqlError(t, key, query)).issues;
    expect(Object.keys((await issuesOf('{ issues(first: 5, after: "garbage") { nodes { rowId } } }'))!)).toEqual(['after']);
    expect(Object.keys((await issuesOf('{ issues(last: 5, before: "zz") { nodes { rowId } } }'))!)).toEqual(['before']);
    expect(Object.keys((await issuesOf('{ issuesList(query: "a\\u0000", limit: 5) }'))!)).toEqual(['query']);
    expect(Object.keys((await issuesOf('{ node(id: "WyJJc3N1ZSIsIm5vdC1hLXV1aWQiXQ==") { id } }'))!)).toEqual(['id']);
    expect(Object.keys((await issuesOf('{ issues(first: 1, condition: {title: "a\\u0000"}) { nodes { rowId } } }'))!)).toEqual(['condition.title']);
  });

  it('viewerKeyKind names the kind of the key (the web board refuses agent keys); viewerKeyId its id', async () => {
    const personal = await createKey(t, ws);
    expect(await gqlOk(t, personal.token, '{ viewerKeyKind viewerKeyId }')).toEqual({ viewerKeyKind: 'PERSONAL', viewerKeyId: personal.id });
    await createAgent(t, ws, 'kinded');
    const agentKey = await createKey(t, ws, { agent: 'kinded' });
    expect((await gqlOk(t, agentKey.token, '{ viewerKeyKind }')).viewerKeyKind).toBe('AGENT');
  });
});


describe('errors grafserv writes itself', () => {
  it('a syntax error, an unknown field, a bad variable or UUID, a body that is not one request: each carries code invalid_query and its status', async () => {
    const key = (await createKey(t, ws)).token; // the file's other tests spend the workspace key's rate limit
    for (const [query, variables] of [
      ['{ issues(first: 5 { nodes { key } } }', undefined],
      ['{ issues(first: 5) { nodes { nope } } }', undefined],
      ['{ issue(rowId: "not-a-uuid") { key } }', undefined],
      ['query($n: Int) { issues(first: $n) { totalCount } }', { n: 'abc' }],
    ] as const) {
      const r = await gql(t, key, query, variables);
      expect(r.errors?.length, query).toBeGreaterThan(0);
      for (const e of r.errors!) expect(e.extensions, query).toMatchObject({ code: 'invalid_query', status: 400 });
    }
    for (const payload of ['{"query":123}', '[{"query":"{ __typename }"}]']) {
      const res = await t.app.inject({ method: 'POST', url: '/graphql', payload, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().errors[0].extensions, payload).toEqual({ code: 'invalid_query', status: 400 });
    }
  });
});

describe('GraphQL subscriptions', () => {
  it('are a 400 that points to the event stream, not an internal error; a query beside one in the document runs', async () => {
    const key = (await createKey(t, ws)).token; // the workspace key spent its rate above
    const r = await gql(t, key, 'subscription S { __typename }');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'subscriptions_not_supported', issues: { query: expect.stringContaining('/api/plugins/events') } });
    const both = await t.app.inject({
      method: 'POST', url: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      payload: JSON.stringify({ query: 'query Q { __typename } subscription S { __typename }', operationName: 'Q' }),
    });
    expect([both.statusCode, both.json().data]).toEqual([200, { __typename: 'Query' }]);
    const chosen = await t.app.inject({
      method: 'POST', url: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      payload: JSON.stringify({ query: 'query Q { __typename } subscription S { __typename }', operationName: 'S' }),
    });
    expect([chosen.statusCode, chosen.json().error]).toEqual([400, 'subscriptions_not_supported']);
  });
});
