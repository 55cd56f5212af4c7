/**
 * repohost.* against a local HTTP server that answers like the GitHub REST API (test/support/outside.ts),
 * reached through Octokit with the mapping's --api-url, as for GitHub Enterprise. The host is only read.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';
import { startFakeGitHub } from '../support/outside.ts';
import { startReceiver } from '../support/receiver.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let gh: Awaited<ReturnType<typeof startFakeGitHub>>;
let mapping: any;
const REPO = 'acme/widgets';

beforeAll(async () => {
  process.env.SVC_TEST_GH_TOKEN = 'ghp_test_token';
  gh = await startFakeGitHub({
    [REPO]: [
      { number: 1, title: 'Widgets crash on start', body: 'Steps: run it.', state: 'open', labels: ['bug'] },
      { number: 2, title: 'Fix the crash', state: 'open', pull: { merged: false } },
      { number: 3, title: 'Docs typo', state: 'open' },
      { number: 4, title: 'Crash in docs build', state: 'closed' },
      { number: 6, title: 'Imported then deleted', state: 'open' },
      // An emoji across the 20,000th UTF-16 unit, and a NUL: the cut took half the emoji and the import was refused.
      { number: 7, title: 'Long body', body: `${'x'.repeat(19_999)}😀 and more\0`, state: 'open' },
    ],
    'acme/other': [{ number: 9, title: 'Other repo', state: 'open' }],
  }, { token: 'ghp_test_token', prefix: '/api/v3' });
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
  mapping = (await admin(t, 'create-repo-mapping', { workspace: ws.key, repo: REPO, 'token-env': 'SVC_TEST_GH_TOKEN', 'api-url': gh.apiUrl, json: true })).mapping;
});
afterAll(async () => {
  await t?.close();
  await gh?.close();
});

const url = (n: number, kind = 'issues') => `https://github.com/${REPO}/${kind}/${n}`;
function expect400(r: { status: number; body: any }, field: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(Object.keys(r.body.issues)).toContain(field);
}

describe('repository mappings', () => {
  it('svc admin create-repo-mapping prints the mapping; a repository maps once per workspace', async () => {
    expect(mapping).toMatchObject({ id: expect.any(String), repoFullName: REPO, kind: 'repo', tokenEnv: 'SVC_TEST_GH_TOKEN', apiUrl: gh.apiUrl,
      statusRules: { closed: 'DONE', merged: 'DONE' }, active: true });
    await expect(admin(t, 'create-repo-mapping', { workspace: ws.key, repo: 'ACME/Widgets', json: true })).rejects.toMatchObject({ code: 'SV409' });
    await expect(admin(t, 'create-repo-mapping', { workspace: ws.key, repo: 'not a repo', json: true })).rejects.toMatchObject({ code: 'SV400' });
  });

  it('in-app (GraphQL): OWNER/ADMIN keys create, update and delete mappings; others are refused', async () => {
    const created = await gqlOk(t, ws.token, `mutation { repoMappingsCreate(input: {repoFullName: "acme/gql", statusRules: {closed: "CANCELED"}}) { connectionMapping { rowId repoFullName statusRules active } } }`);
    const m = created.repoMappingsCreate.connectionMapping;
    expect(m).toMatchObject({ repoFullName: 'acme/gql', statusRules: { closed: 'CANCELED' }, active: true });
    const updated = await gqlOk(t, ws.token, `mutation($id: UUID!) { repoMappingsUpdate(input: {mappingId: $id, active: false, syncTitle: true}) { connectionMapping { active syncTitle } } }`, { id: m.rowId });
    expect(updated.repoMappingsUpdate.connectionMapping).toEqual({ active: false, syncTitle: true });
    const bad = await gqlError(t, ws.token, `mutation { repoMappingsCreate(input: {repoFullName: "acme/x", statusRules: {closed: "GONE"}}) { connectionMapping { rowId } } }`);
    expect(bad.issues).toHaveProperty('statusRules');
    const member = await createKey(t, ws, { scopes: ['FULL'], user: (await admin(t, 'add-member', { workspace: ws.key, email: `m-${crypto.randomUUID()}@example.com`, role: 'MEMBER', json: true })).user.email });
    expect((await gqlError(t, member.token, `mutation { repoMappingsCreate(input: {repoFullName: "acme/y"}) { connectionMapping { rowId } } }`)).status).toBe(403);
    const list = await gqlOk(t, member.token, `{ connectionMappings { nodes { repoFullName } } }`);
    expect(list.connectionMappings.nodes.map((n: any) => n.repoFullName).sort()).toEqual(['acme/gql', REPO]);
    await gqlOk(t, ws.token, `mutation($id: UUID!) { repoMappingsDelete(input: {mappingId: $id}) { connectionMapping { rowId } } }`, { id: m.rowId });
    expect((await gqlOk(t, other.token, `{ connectionMappings { nodes { rowId } } }`)).connectionMappings.nodes).toEqual([]);
  });

  it('every change to a mapping is an event (REPO_MAPPING_*), read by every key of the workspace and no other; a change to nothing is none', async () => {
    // Status rules decide what repohost.sync does to linked issues: an outside probe changed them without a trace.
    const made = (await admin(t, 'create-repo-mapping', { workspace: ws.key, repo: 'acme/evented', json: true })).mapping;
    const change = (fields: string) => gqlOk(t, ws.token, `mutation($id: UUID!) { repoMappingsUpdate(input: {mappingId: $id, ${fields}}) { clientMutationId } }`, { id: made.id });
    await change('statusRules: {closed: "CANCELED"}, syncTitle: true');
    await change('syncTitle: true'); // no change: no event
    await gqlOk(t, ws.token, `mutation($id: UUID!) { repoMappingsDelete(input: {mappingId: $id}) { clientMutationId } }`, { id: made.id });
    const narrowed = await createKey(t, ws, { labels: [(await ok(t, ws.token, 'labels.create', { name: `mapping-events-${crypto.randomUUID().slice(0, 8)}` })).id] });
    const events = (await ok(t, narrowed.token, 'events.recent', { subjectType: 'repo-mapping', subjectId: made.id, limit: 10 })).items;
    expect(events.map((e: any) => e.kind)).toEqual(['REPO_MAPPING_DELETED', 'REPO_MAPPING_UPDATED', 'REPO_MAPPING_CREATED']);
    expect(events[1].payload).toMatchObject({ mappingId: made.id, repoFullName: 'acme/evented', statusRules: { closed: 'CANCELED' }, syncTitle: true, changes: ['statusRules', 'syncTitle'] });
    expect((await ok(t, other.token, 'events.recent', { subjectType: 'repo-mapping', limit: 50 })).items).toEqual([]);
  });

  it("the server's environment is the operator's: in-app, tokenEnv is refused, and the operator's token does not follow a new apiUrl", async () => {
    // An admin naming PATH (or another workspace's token) with an apiUrl of their own had the service send its value there.
    const named = await gqlError(t, ws.token, 'mutation { repoMappingsCreate(input: {repoFullName: "acme/leak", tokenEnv: "PATH"}) { clientMutationId } }');
    expect(named).toMatchObject({ status: 403, code: 'operator_only', field: 'tokenEnv' });
    const renamed = await gqlError(t, ws.token, `mutation($id: UUID!) { repoMappingsUpdate(input: {mappingId: $id, tokenEnv: "SVC_DATA_DIR"}) { clientMutationId } }`, { id: mapping.id });
    expect(renamed).toMatchObject({ status: 403, code: 'operator_only' });
    for (const change of ['apiUrl: "https://ghe.elsewhere.example/api/v3"', 'clearApiUrl: true']) {
      const moved = await gqlError(t, ws.token, `mutation($id: UUID!) { repoMappingsUpdate(input: {mappingId: $id, ${change}}) { clientMutationId } }`, { id: mapping.id });
      expect(moved, change).toMatchObject({ status: 403, code: 'operator_only', field: 'apiUrl' });
    }
    // The same URL sent back (a form that sends every field) is no change: toggling active still works.
    await gqlOk(t, ws.token, `mutation($id: UUID!, $u: String!) { repoMappingsUpdate(input: {mappingId: $id, apiUrl: $u, active: true}) { clientMutationId } }`, { id: mapping.id, u: gh.apiUrl });
    const { rows: [kept] } = await t.pools.owner.query('select token_env, api_url from app_public.connection_mappings where id = $1', [mapping.id]);
    expect(kept).toEqual({ token_env: 'SVC_TEST_GH_TOKEN', api_url: gh.apiUrl });
    // Dropping the operator's token is the admin's to do, and with it the URL is theirs again (anonymous).
    const anon = await gqlOk(t, ws.token, 'mutation { repoMappingsCreate(input: {repoFullName: "acme/anon", apiUrl: "https://ghe.example.com/api/v3"}) { connectionMapping { rowId tokenEnv } } }');
    expect(anon.repoMappingsCreate.connectionMapping.tokenEnv).toBeNull();
    const id = anon.repoMappingsCreate.connectionMapping.rowId;
    await t.pools.owner.query(`update app_public.connection_mappings set token_env = 'SVC_TEST_GH_TOKEN' where id = $1`, [id]);
    const dropped = await gqlOk(t, ws.token, `mutation($id: UUID!) { repoMappingsUpdate(input: {mappingId: $id, clearTokenEnv: true, apiUrl: "https://ghe.other.example/api/v3"}) { connectionMapping { tokenEnv apiUrl } } }`, { id });
    expect(dropped.repoMappingsUpdate.connectionMapping).toEqual({ tokenEnv: null, apiUrl: 'https://ghe.other.example/api/v3' });
  });
});

describe('repohost tools', () => {
  it('parseUrl parses issue and pull request URLs (GitHub and Enterprise hosts); anything else is 400 url', async () => {
    expect(await ok(t, ws.token, 'repohost.parseUrl', { url: 'https://github.com/acme/widgets/issues/12' }))
      .toEqual({ host: 'github.com', owner: 'acme', repo: 'widgets', repoFullName: 'acme/widgets', type: 'issue', number: 12, url: 'https://github.com/acme/widgets/issues/12' });
    expect(await ok(t, ws.token, 'repohost.parseUrl', { url: 'https://ghe.example.com/a/b/pull/7/files#diff' }))
      .toMatchObject({ repoFullName: 'a/b', type: 'pull_request', number: 7, url: 'https://ghe.example.com/a/b/pull/7' });
    expect400(await rest(t, ws.token, 'repohost.parseUrl', { url: 'https://github.com/acme/widgets' }), 'url');
    expect400(await rest(t, ws.token, 'repohost.parseUrl', { url: 'ftp://github.com/a/b/issues/1' }), 'url');
    for (const bad of ['https://github.com/acme/widgets/issues/0', 'https://github.com/../widgets/issues/1', 'https://github.com/acme/./pull/2']) {
      expect400(await rest(t, ws.token, 'repohost.parseUrl', { url: bad }), 'url');
    }
  });

  it('link stores a snapshot and links it; linking again changes the kind; listLinked shows it; ISSUE_UPDATED', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'local issue' });
    const link = await ok(t, ws.token, 'repohost.link', { issueId: issue.key, url: url(2, 'pull'), kind: 'IMPLEMENTS' });
    expect(link).toMatchObject({ created: true, kind: 'IMPLEMENTS', issueId: issue.id,
      resource: { repoFullName: REPO, number: 2, type: 'pull_request', state: 'open', title: 'Fix the crash', url: 'https://github.com/acme/widgets/pull/2',
        snapshot: { author: 'octocat', headRef: 'feature', baseRef: 'main' } } });
    const again = await ok(t, ws.token, 'repohost.link', { issueId: issue.id, url: url(2, 'pull'), kind: 'REVIEWS' });
    expect(again).toMatchObject({ created: false, kind: 'REVIEWS', id: link.id });
    expect(await ok(t, ws.token, 'repohost.listLinked', { issueId: issue.id })).toEqual([expect.objectContaining({ id: link.id, kind: 'REVIEWS' })]);
    // The agent's context bundle carries the same links as externalResources (spec 4.13).
    const bundle = await ok(t, ws.token, 'agent.context.bundle', { issueId: issue.id });
    expect(bundle.externalResources).toEqual([expect.objectContaining({ id: link.id, kind: 'REVIEWS', resource: expect.objectContaining({ number: 2 }) })]);
    const ev = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id, limit: 1 })).items[0];
    expect(ev).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['externalResources'] } });
    const unmapped = await rest(t, ws.token, 'repohost.link', { issueId: issue.id, url: 'https://github.com/acme/other/issues/9', kind: 'SOURCE' });
    expect(unmapped.status).toBe(404);
    expect(unmapped.body.error).toBe('no_repo_mapping');
    expect((await rest(t, ws.token, 'repohost.link', { issueId: issue.id, url: url(404), kind: 'SOURCE' })).status).toBe(404);
    expect400(await rest(t, ws.token, 'repohost.link', { issueId: issue.id, url: url(1), kind: 'OWNS' }), 'kind');
    // An issue the key cannot see (another workspace's, by key) is a 404 before any call to the host.
    const before = gh.requests.length;
    const hidden = await ok(t, other.token, 'issues.create', { title: 'theirs' });
    const refused = await rest(t, ws.token, 'repohost.link', { issueId: hidden.key, url: url(2, 'pull'), kind: 'SOURCE' });
    expect([refused.status, refused.body.field]).toEqual([404, 'issueId']);
    expect(gh.requests.length).toBe(before);
    // The same owner/repo path on another host is not the mapped repository's item.
    for (const foreign of ['https://gitlab.com/acme/widgets/issues/2', 'https://evil.example/acme/widgets/pull/2']) {
      const r = await rest(t, ws.token, 'repohost.link', { issueId: issue.id, url: foreign, kind: 'SOURCE' });
      expect400(r, 'url');
      expect(r.body.issues.url).toMatch(/the mapping of acme\/widgets reads github.com/);
    }
  });

  it('importIssue takes a body cut at 20,000 units between characters (an emoji there was cut in two and refused)', async () => {
    await ok(t, ws.token, 'repohost.importIssue', { repoFullName: REPO, number: 7 });
    const { rows } = await t.pools.owner.query(
      `select r.snapshot->>'body' as body, i.description from app_public.external_resources r
       join app_public.external_links l on l.resource_id = r.id join app_public.issues i on i.id = l.issue_id
       where r.workspace_id = $1 and r.number = 7`, [ws.id]);
    expect(rows).toHaveLength(1);
    expect([rows[0].body, rows[0].description].some((b: string | null) => b === 'x'.repeat(19_999) || b?.startsWith('x'.repeat(19_999)))).toBe(true);
  });

  it('importIssue creates the issue once (idempotent), linked SOURCE, optionally queued; sync applies status and title rules', async () => {
    const first = await ok(t, ws.token, 'repohost.importIssue', { repoFullName: REPO, number: 1, queue: true });
    expect(first).toMatchObject({ created: true, resource: { number: 1, state: 'open', snapshot: { labels: ['bug'] } }, link: { kind: 'SOURCE' },
      issue: { title: 'Widgets crash on start', queued: true } });
    const again = await ok(t, ws.token, 'repohost.importIssue', { mappingId: mapping.id, number: 1 });
    expect(again).toMatchObject({ created: false, issueId: first.issueId });
    const full = await ok(t, ws.token, 'issues.get', { id: first.issueId, include: { description: true } });
    expect(full.description).toContain('Steps: run it.');
    expect(full.description).toContain('Imported from https://github.com/acme/widgets/issues/1');

    // On the host, the issue is renamed and closed; the PR implementing another issue is merged.
    const hostIssue = gh.repos[REPO]!.find((i) => i.number === 1)!;
    hostIssue.state = 'closed';
    // A title on the host may hold a line break and a direction override: it arrives as one line, as every title here.
    hostIssue.title = 'Widgets crash\non start \u202e(fixed)';
    await t.pools.owner.query('update app_public.connection_mappings set sync_title = true where id = $1', [mapping.id]);
    const synced = await ok(t, ws.token, 'repohost.sync', { issueId: first.issueId });
    expect(synced.items).toEqual([expect.objectContaining({
      resource: expect.objectContaining({ state: 'closed', title: 'Widgets crash on start (fixed)' }),
      applied: [expect.objectContaining({ issueId: first.issueId, changes: expect.arrayContaining(['statusId', 'title']) })],
    })]);
    const after = await ok(t, ws.token, 'issues.get', { id: first.issueId });
    expect(after.title).toBe('Widgets crash on start (fixed)');
    expect(after.status.category).toBe('DONE');

    const implementer = await ok(t, ws.token, 'issues.create', { title: 'to be implemented' });
    const link = await ok(t, ws.token, 'repohost.link', { issueId: implementer.id, url: url(2, 'pull'), kind: 'IMPLEMENTS' });
    gh.repos[REPO]!.find((i) => i.number === 2)!.pull = { merged: true };
    gh.repos[REPO]!.find((i) => i.number === 2)!.state = 'closed';
    const byResource = await ok(t, ws.token, 'repohost.sync', { resourceId: link.resourceId });
    expect(byResource.items[0].resource.state).toBe('merged');
    expect((await ok(t, ws.token, 'issues.get', { id: implementer.id })).status.category).toBe('DONE');
    expect((await ok(t, ws.token, 'issues.get', { id: implementer.id })).title).toBe('to be implemented');

    // With the mapping switched off, sync says so as link and importIssue do (it answered {items: []}).
    await t.pools.owner.query("update app_public.connection_mappings set active = false where workspace_id = $1 and kind = 'repo'", [ws.id]);
    for (const args of [{ resourceId: link.resourceId }, { issueId: implementer.id }]) {
      const off = await rest(t, ws.token, 'repohost.sync', args);
      expect([off.status, off.body.error]).toEqual([422, 'mapping_inactive']);
    }
    await t.pools.owner.query("update app_public.connection_mappings set active = true where workspace_id = $1 and kind = 'repo'", [ws.id]);

    expect400(await rest(t, ws.token, 'repohost.importIssue', { number: 1 }), 'repoFullName');
    expect400(await rest(t, ws.token, 'repohost.sync', {}), 'issueId');
    expect((await rest(t, ws.token, 'repohost.importIssue', { repoFullName: REPO, number: 999 })).status).toBe(404);
  });

  it('search finds issues/PRs of the mapped repository and marks those already known', async () => {
    const r = await ok(t, ws.token, 'repohost.search', { repoFullName: REPO, query: 'crash', state: 'all' });
    expect(r.repoFullName).toBe(REPO);
    expect(r.items.map((i: any) => i.number).sort()).toEqual([1, 2, 4]);
    expect(r.items.find((i: any) => i.number === 1).resourceId).toEqual(expect.any(String));
    expect(r.items.find((i: any) => i.number === 4).resourceId).toBeNull();
    const issuesOnly = await ok(t, ws.token, 'repohost.search', { mappingId: mapping.id, query: 'crash', type: 'issue', state: 'closed' });
    expect(issuesOnly.items.map((i: any) => i.number).sort()).toEqual([1, 4]);
    expect400(await rest(t, ws.token, 'repohost.search', { query: 'x' }), 'repoFullName');
  });

  it("search stays in the mapped repository: a query naming others is refused, and another repository's hits are dropped", async () => {
    // The mapping's token may read more than this repository: repo:otherorg/private searched it with the operator's token.
    for (const query of ['repo:acme/other secret', 'crash REPO:acme/other', 'org:acme', 'user:octocat', '-repo:x', '"repo:acme/other"', 'owner:acme', 'a+repo:acme/other', '+repo:acme/other', 'x\u00a0repo:acme/other']) {
      expect400(await rest(t, ws.token, 'repohost.search', { repoFullName: REPO, query, state: 'all' }), 'query');
    }
    // A host that answers hits of other repositories anyway (acme/other's #9): only the mapped repository's come back.
    const r = await ok(t, ws.token, 'repohost.search', { repoFullName: REPO, query: 'everywhere', state: 'all' });
    expect(r.items.length).toBeGreaterThan(0);
    expect(r.items.every((i: any) => i.url.includes(`/${REPO}/`))).toBe(true);
    expect(r.items.map((i: any) => i.number)).not.toContain(9);
  });

  it('only reads from the host (GET with the mapping token, under the Enterprise API prefix)', () => {
    expect(gh.requests.length).toBeGreaterThan(5);
    expect(gh.requests.every((r) => r.method === 'GET' && r.url.startsWith('/api/v3/') && r.auth === 'token ghp_test_token')).toBe(true);
  });

  it('a missing token variable, an inactive mapping and a refusing host are clear errors', async () => {
    const m2 = (await admin(t, 'create-repo-mapping', { workspace: other.key, repo: REPO, 'token-env': 'SVC_TEST_UNSET_TOKEN', 'api-url': gh.apiUrl, json: true })).mapping;
    const noToken = await rest(t, other.token, 'repohost.importIssue', { repoFullName: REPO, number: 1 });
    expect(noToken.status).toBe(422);
    expect(noToken.body.error).toBe('host_token_missing');
    process.env.SVC_TEST_UNSET_TOKEN = 'wrong';
    const refused = await rest(t, other.token, 'repohost.importIssue', { repoFullName: REPO, number: 1 });
    expect(refused.body.error).toBe('host_auth_failed');
    delete process.env.SVC_TEST_UNSET_TOKEN;
    await t.pools.owner.query('update app_public.connection_mappings set active = false where id = $1', [m2.id]);
    const inactive = await rest(t, other.token, 'repohost.search', { mappingId: m2.id });
    expect(inactive.status).toBe(422);
    expect(inactive.body.error).toBe('mapping_inactive');
  });

  it('a host answering HTML, a redirect or nothing is 502 host_unavailable saying so, never an internal error', async () => {
    const answers: Record<string, { status: number; body?: string }> = {
      '/html': { status: 200, body: '<html><title>Sign in</title></html>' }, '/empty': { status: 200, body: '' },
      '/moved': { status: 302, body: '' },
    };
    const site = await startReceiver((r) => answers[`/${r.url.split('/')[1]}`] ?? { status: 404 });
    try {
      for (const [prefix, words] of [['html', /answered 200 with a body that is not JSON/], ['empty', /answered 200 with an empty body/], ['moved', /302/]] as const) {
        const repo = `acme/${prefix}-${crypto.randomUUID().slice(0, 6)}`;
        await admin(t, 'create-repo-mapping', { workspace: ws.key, repo, 'api-url': `${site.url}/${prefix}`, json: true });
        for (const [tool, input] of [['repohost.importIssue', { repoFullName: repo, number: 1 }], ['repohost.search', { repoFullName: repo, query: 'x' }]] as const) {
          const r = await rest(t, ws.token, tool, input);
          expect(r.status, `${prefix} ${tool}: ${JSON.stringify(r.body)}`).toBe(502);
          expect(r.body.error).toBe('host_unavailable');
          expect(r.body.message).toMatch(words);
          expect(r.body.message).not.toMatch(/Cannot read|undefined/);
        }
      }
    } finally {
      await site.close();
    }
  });

  it('scopes: reads need READ_ISSUES, link/import/sync WRITE_ISSUES', async () => {
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const writer = await createKey(t, ws, { scopes: ['WRITE_ISSUES'] });
    const id = crypto.randomUUID();
    for (const [token, tool, input, scope] of [
      [reader.token, 'repohost.link', { issueId: id, url: url(1), kind: 'SOURCE' }, 'WRITE_ISSUES'],
      [reader.token, 'repohost.importIssue', { repoFullName: REPO, number: 1 }, 'WRITE_ISSUES'],
      [reader.token, 'repohost.sync', { issueId: id }, 'WRITE_ISSUES'],
      [writer.token, 'repohost.parseUrl', { url: url(1) }, 'READ_ISSUES'],
      [writer.token, 'repohost.listLinked', { issueId: id }, 'READ_ISSUES'],
      [writer.token, 'repohost.search', { repoFullName: REPO }, 'READ_ISSUES'],
    ] as const) {
      const r = await rest(t, token, tool, input);
      expect(r.status, tool).toBe(403);
      expect(r.body).toMatchObject({ error: 'scope_required', scope });
    }
  });

  it('another workspace sees nothing of this one: its issues, resources and mappings are 404', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'mine' });
    const link = await ok(t, ws.token, 'repohost.link', { issueId: issue.id, url: url(3), kind: 'RELATES_TO' });
    expect((await rest(t, other.token, 'repohost.listLinked', { issueId: issue.id })).status).toBe(404);
    expect((await rest(t, other.token, 'repohost.sync', { resourceId: link.resourceId })).status).toBe(404);
    expect((await rest(t, other.token, 'repohost.importIssue', { mappingId: mapping.id, number: 3 })).status).toBe(404);
    expect((await rest(t, other.token, 'repohost.search', { mappingId: mapping.id })).status).toBe(404);
  });

  it('narrowed keys: links follow their issue; an import hidden from the key is 409, never a duplicate', async () => {
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [ws.id, 'Repo P']);
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [rows[0].id] });
    const outside = await ok(t, ws.token, 'issues.create', { title: 'outside' });
    await ok(t, ws.token, 'repohost.link', { issueId: outside.id, url: url(3), kind: 'RELATES_TO' });
    expect((await rest(t, key.token, 'repohost.listLinked', { issueId: outside.id })).status).toBe(404);
    expect((await rest(t, key.token, 'repohost.link', { issueId: outside.id, url: url(3), kind: 'SOURCE' })).status).toBe(404);
    const hidden = await rest(t, key.token, 'repohost.importIssue', { repoFullName: REPO, number: 1, projectId: rows[0].id });
    expect(hidden.status).toBe(409);
    expect(hidden.body.error).toBe('already_imported');
    const mine = await ok(t, key.token, 'repohost.importIssue', { repoFullName: REPO, number: 3, projectId: rows[0].id });
    expect(mine).toMatchObject({ created: true, issue: { projectId: rows[0].id } });
    expect(await ok(t, key.token, 'repohost.listLinked', { issueId: mine.issueId })).toHaveLength(1);
  });

  it('importIssue of an issue whose import was deleted is 409 naming it (no second issue); restored, it is found again', async () => {
    const first = await ok(t, ws.token, 'repohost.importIssue', { repoFullName: REPO, number: 6 });
    await ok(t, ws.token, 'issues.delete', { id: first.issueId });
    const again = await rest(t, ws.token, 'repohost.importIssue', { repoFullName: REPO, number: 6 });
    expect([again.status, again.body.error]).toEqual([409, 'already_imported']);
    expect(again.body.message).toBe(`acme/widgets#6 was imported into ${first.issue.key}, which is deleted: issues.restore brings it back`);
    const titled = await t.pools.owner.query("select count(*)::int as n from app_public.issues where workspace_id = $1 and title = 'Imported then deleted'", [ws.id]);
    expect(titled.rows[0].n).toBe(1);
    // A key that cannot see the deleted issue is told it is taken, not which issue.
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [ws.id, 'Repo Q']);
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [rows[0].id] });
    const hidden = await rest(t, narrowed.token, 'repohost.importIssue', { repoFullName: REPO, number: 6, projectId: rows[0].id });
    expect([hidden.status, hidden.body.error]).toEqual([409, 'already_imported']);
    expect(hidden.body.message).not.toContain(first.issue.key);
    await ok(t, ws.token, 'issues.restore', { id: first.issueId });
    expect(await ok(t, ws.token, 'repohost.importIssue', { repoFullName: REPO, number: 6 })).toMatchObject({ created: false, issueId: first.issueId });
  });

  it('answers over JSON-RPC', async () => {
    const r = await rpc(t, ws.token, 'tools/call', { name: 'repohost.parseUrl', arguments: { url: url(5) } }, '?profile=full');
    expect(r.body.result.structuredContent).toMatchObject({ number: 5, type: 'issue' });
    const s = await rpc(t, ws.token, 'tools/call', { name: 'repohost.search', arguments: { repoFullName: REPO, query: 'docs' } });
    expect(s.body.result.structuredContent.items.map((i: any) => i.number)).toEqual([3]);
    const call = async (name: string, args: object) => {
      const r = await rpc(t, ws.token, 'tools/call', { name, arguments: args });
      expect(r.body.result.isError, `${name}: ${JSON.stringify(r.body.result)}`).toBeFalsy();
      return r.body.result.structuredContent;
    };
    const imported = await call('repohost.importIssue', { repoFullName: REPO, number: 4 });
    expect(imported).toMatchObject({ created: true, resource: { state: 'closed' } });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'rpc links' });
    const link = await call('repohost.link', { issueId: issue.id, url: url(4), kind: 'RELATES_TO' });
    expect((await call('repohost.listLinked', { issueId: issue.id })).items.map((l: any) => l.id)).toEqual([link.id]);
    expect((await call('repohost.sync', { resourceId: link.resourceId })).items).toHaveLength(1);
  });
});
