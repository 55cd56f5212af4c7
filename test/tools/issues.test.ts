import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, createKey, createWorkspace, insertLabel, insertProject, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let projectA: string;
let projectB: string;
let labelX: string;
let labelY: string;

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'ENG');
  projectA = await insertProject(t, ws, 'Alpha');
  projectB = await insertProject(t, ws, 'Beta');
  labelX = await insertLabel(t, ws, 'bug');
  labelY = await insertLabel(t, ws, 'infra');
});
afterAll(() => t.close());

describe('issues.create', () => {
  it('creates with a per-workspace number and key, default status, labels, and an ISSUE_CREATED event', async () => {
    const issue = await ok(t, ws.token, 'issues.create', {
      title: 'Login fails', description: 'Stack trace attached', priority: 'HIGH', projectId: projectA, labelIds: [labelX],
    });
    expect(issue).toMatchObject({ key: `ENG-${issue.number}`, title: 'Login fails', priority: 'HIGH', projectId: projectA, description: 'Stack trace attached' });
    expect(issue.status.category).toBe('TODO');
    expect(issue.labels.map((l: { id: string }) => l.id)).toEqual([labelX]);
    expect(issue.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const next = await ok(t, ws.token, 'issues.create', { title: 'Second' });
    expect(next.number).toBe(issue.number + 1);

    const events = await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({ kind: 'ISSUE_CREATED', subjectType: 'issue', subjectId: issue.id });
    expect(events.items[0].payload).toMatchObject({ issueId: issue.id, key: issue.key });
    expect(events.items[0].actor).toMatchObject({ name: expect.any(String) });
  });

  it('numbers issues per workspace', async () => {
    const other = await createWorkspace(t);
    const first = await ok(t, other.token, 'issues.create', { title: 'first elsewhere' });
    expect(first.number).toBe(1);
    expect(first.key).toBe(`${other.key}-1`);
  });

  it('does not make creates in one workspace wait for each other to commit (a failed create leaves a gap)', async () => {
    const busy = await createWorkspace(t);
    const held = await t.pools.owner.connect();
    try {
      await held.query('begin');
      const { rows: [open] } = await held.query(
        `insert into app_public.issues (workspace_id, title, status_id)
         select $1, 'not committed yet', id from app_public.statuses where workspace_id = $1 and is_default returning number`, [busy.id]);
      // With a counter row locked until commit, this call would wait for `held` (and time out here).
      const next = await Promise.race([
        ok(t, busy.token, 'issues.create', { title: 'not waiting' }),
        new Promise((_, reject) => setTimeout(() => reject(new Error('issues.create waited for another transaction')), 3000)),
      ]) as { number: number };
      expect(next.number).toBe(open.number + 1);
      await held.query('rollback');
      const after = await ok(t, busy.token, 'issues.create', { title: 'after the rollback' });
      expect(after.number).toBe(next.number + 1); // open.number is never used: a gap, as documented
    } finally {
      held.release();
    }
  });

  it('rejects bad input with 400 and an issues map, writing nothing', async () => {
    const before = await ok(t, ws.token, 'events.recent', { limit: 1 });
    const cases: Array<[unknown, string]> = [
      [{}, 'title'],
      [{ title: '' }, 'title'],
      [{ title: 'x', priority: 'SUPER' }, 'priority'],
      [{ title: 'x', projectId: 'nope' }, 'projectId'],
      [{ title: 'x', labelIds: ['nope'] }, 'labelIds.0'],
      [{ title: 'x', unknownField: 1 }, 'unknownField'],
      [{ title: 'x', dueDate: 'tomorrow' }, 'dueDate'],
      [{ title: 'x'.repeat(501) }, 'title'],
    ];
    for (const [input, field] of cases) {
      const r = await rest(t, ws.token, 'issues.create', input);
      expect(r.status, JSON.stringify(input)).toBe(400);
      expect(r.body.error).toBe('invalid_input');
      expect(Object.keys(r.body.issues)).toContain(field);
    }
    const after = await ok(t, ws.token, 'events.recent', { limit: 1 });
    expect(after.items[0].id).toBe(before.items[0].id);
  });

  it('answers 404 for a project, status or label it cannot see', async () => {
    const other = await createWorkspace(t);
    const foreignProject = await insertProject(t, other, 'Foreign');
    const foreignLabel = await insertLabel(t, other, 'foreign');
    expect((await rest(t, ws.token, 'issues.create', { title: 'x', projectId: foreignProject })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.create', { title: 'x', labelIds: [foreignLabel] })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.create', { title: 'x', statusId: crypto.randomUUID() })).status).toBe(404);
  });

  it('treats malformed JSON and non-object bodies as 400', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/mcp/issues.create', payload: '{"title": ',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_json', issues: { body: expect.any(String) } });
    expect((await rest(t, ws.token, 'issues.create', [1, 2])).status).toBe(400);
  });

  it('answers 404 unknown_tool for a tool that does not exist', async () => {
    const r = await rest(t, ws.token, 'issues.fly', {});
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('unknown_tool');
    // Past the router's 100-character limit on a path parameter: the same answer, in the same body.
    const long = await rest(t, ws.token, 'x'.repeat(5000), {});
    expect([long.status, long.body.error, typeof long.body.message]).toEqual([404, 'unknown_tool', 'string']);
    expect(long.body).not.toHaveProperty('code');
    // JSON-RPC names at most 100 characters of an unknown name back.
    const rpcLong = await rpc(t, ws.token, 'tools/call', { name: 'y'.repeat(100_000), arguments: {} });
    expect(rpcLong.body.error.message.length).toBeLessThan(200);
    // A name that is close to a tool's names it, on every surface; tools/call carries REST's refusal in data.
    for (const [asked, meant] of [['issues_create', 'issues.create'], ['issue.create', 'issues.create'], ['issues.creat', 'issues.create'],
                                  ['Issues.List', 'issues.list'], ['comments/create', 'comments.create']] as const) {
      const message = `Unknown tool: ${asked}; did you mean ${meant}?`;
      if (!asked.includes('/')) expect((await rest(t, ws.token, asked, {})).body).toEqual({ error: 'unknown_tool', message }); // a path's slash is another path
      const viaRpc = await rpc(t, ws.token, 'tools/call', { name: asked, arguments: {} });
      expect(viaRpc.body.error).toEqual({ code: -32602, message, data: { error: 'unknown_tool', message, status: 404 } });
      expect((await rest(t, ws.token, 'catalog.call', { name: asked })).body.message).toBe(message);
    }
    expect((await rest(t, ws.token, 'issues.fly', {})).body.message).toBe('Unknown tool: issues.fly');
  });

  it('names and titles are one line: control, line-break and direction-override characters are 400 on the field', async () => {
    for (const title of ['two\nlines', 'bell\u0007', 'tab\there', 'evil\u202Egnp.exe', 'sep\u2028x']) {
      const r = await rest(t, ws.token, 'issues.create', { title });
      expect([r.status, Object.keys(r.body.issues ?? {})], JSON.stringify(title)).toEqual([400, ['title']]);
    }
    const label = await rest(t, ws.token, 'labels.create', { name: 'a\r\nb' });
    expect([label.status, Object.keys(label.body.issues ?? {})]).toEqual([400, ['name']]);
    expect((await ok(t, ws.token, 'issues.create', { title: '  Ünïcode ✓ 日本語 — fine  ' })).title).toBe('Ünïcode ✓ 日本語 — fine');
    // Descriptions are text of many lines.
    expect((await ok(t, ws.token, 'issues.create', { title: 'Multi', description: 'one\ntwo\tthree' })).title).toBe('Multi');
  });

  it('JSON-RPC arguments that are not an object are refused as a REST body that is not (no arguments is {})', async () => {
    for (const args of [null, [], 'x', 3]) {
      const r = await rpc(t, ws.token, 'tools/call', { name: 'issues.create', arguments: args });
      expect(r.body.result.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.parse(r.body.result.content[0].text)).toMatchObject({ error: 'invalid_input', issues: { arguments: expect.any(String) } });
    }
    const none = await rpc(t, ws.token, 'tools/call', { name: 'issues.list' });
    expect(none.body.result.isError).toBeFalsy();
  });
});

describe('issues.get', () => {
  it('is lean by default and adds description and labels on request; finds by id or key', async () => {
    const created = await ok(t, ws.token, 'issues.create', { title: 'Lean', description: 'hidden by default', labelIds: [labelY] });
    const lean = await ok(t, ws.token, 'issues.get', { id: created.id });
    expect(lean).toMatchObject({ id: created.id, status: { category: 'TODO' }, labelIds: [labelY] });
    expect(lean).not.toHaveProperty('description');
    expect(lean).not.toHaveProperty('labels');
    const full = await ok(t, ws.token, 'issues.get', { id: created.key.toLowerCase(), include: { description: true, labels: true } });
    expect(full.description).toBe('hidden by default');
    expect(full.labels).toEqual([expect.objectContaining({ id: labelY, name: 'infra' })]);
  });

  it('include.full gives back everything a write answered: the completion contract, creator, start and completion', async () => {
    // What a create takes came back from no read over REST or MCP (an outside probe exporting a workspace).
    const created = await ok(t, ws.token, 'issues.create', {
      title: 'Contract', description: 'd', labelIds: [labelY], slaMinutes: 90, expectedOutput: 'A PR',
      verificationChecklist: [{ id: 'tests', label: 'Tests pass' }], artifactRequired: true,
    });
    const { updatedAt: _u, ...answered } = created;
    const read = await ok(t, ws.token, 'issues.get', { id: created.id, include: { full: true } });
    expect(read).toMatchObject(answered);
    expect(read).toMatchObject({ slaMinutes: 90, expectedOutput: 'A PR', artifactRequired: true, createdByUserId: expect.any(String), startedAt: null, completedAt: null });
    // With the other includes beside it.
    const more = await ok(t, ws.token, 'issues.get', { id: created.key, include: { full: true, comments: true } });
    expect(more).toMatchObject({ verificationChecklist: [{ id: 'tests', label: 'Tests pass' }], comments: [], commentCount: 0 });
  });

  it('answers 404 for unknown ids and deleted issues', async () => {
    expect((await rest(t, ws.token, 'issues.get', { id: crypto.randomUUID() })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.get', { id: 'ENG-99999' })).status).toBe(404);
    const created = await ok(t, ws.token, 'issues.create', { title: 'to delete' });
    await t.pools.owner.query('update app_public.issues set deleted_at = now() where id = $1', [created.id]);
    expect((await rest(t, ws.token, 'issues.get', { id: created.id })).status).toBe(404);
  });
});

describe('issues.list', () => {
  let fresh: Workspace;
  beforeAll(async () => {
    fresh = await createWorkspace(t);
  });

  it('pages newest first with an opaque cursor, no duplicates, no gaps', async () => {
    for (let i = 0; i < 7; i++) await ok(t, fresh.token, 'issues.create', { title: `page ${i}` });
    const seen: number[] = (await allPages(t, fresh.token, 'issues.list', {}, 3)).map((i: { number: number }) => i.number);
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect((await rest(t, fresh.token, 'issues.list', { cursor: 'garbage!' })).status).toBe(400);
    // null is the first page, over JSON-RPC as over REST (a paging loop's first call).
    const first = await rpc(t, fresh.token, 'tools/call', { name: 'issues.list', arguments: { limit: 3, cursor: null } });
    expect(JSON.parse(first.body.result.content[0].text).items.map((i: { number: number }) => i.number)).toEqual([7, 6, 5]);
    expect((await rest(t, fresh.token, 'issues.list', { limit: 0 })).status).toBe(400);
    expect((await rest(t, fresh.token, 'issues.list', { limit: 201 })).status).toBe(400);
  });

  it('filters by status id, category or name (any case); a name no status has is a 400 on status', async () => {
    const made = await ok(t, fresh.token, 'issues.create', { title: 'status filter' });
    for (const status of [made.statusId, made.status.category, made.status.name, made.status.name.toUpperCase()]) {
      expect((await ok(t, fresh.token, 'issues.list', { status })).items.map((i: { id: string }) => i.id), status).toContain(made.id);
    }
    expect((await ok(t, fresh.token, 'issues.list', { status: 'CANCELED' })).items).toEqual([]);
    const typo = await rest(t, fresh.token, 'issues.list', { status: 'In Progres' });
    expect([typo.status, Object.keys(typo.body.issues ?? {})]).toEqual([400, ['status']]);
  });

  it('filters by status, priority, project, labels and queued', async () => {
    const statuses = await ok(t, ws.token, 'statuses.list', {});
    const done = statuses.find((s: { category: string }) => s.category === 'DONE');
    const a = await ok(t, ws.token, 'issues.create', { title: 'filter a', priority: 'URGENT', projectId: projectB, statusId: done.id });
    const b = await ok(t, ws.token, 'issues.create', { title: 'filter b', priority: 'LOW', labelIds: [labelY, labelX] });
    const ids = async (input: object) => (await ok(t, ws.token, 'issues.list', { limit: 200, ...input })).items.map((i: { id: string }) => i.id);
    expect(await ids({ status: 'DONE' })).toEqual([a.id]);
    expect(await ids({ status: 'done' })).toEqual([a.id]); // by name, case-insensitive
    expect(await ids({ status: done.id })).toEqual([a.id]);
    expect(await ids({ statusId: done.id })).toEqual([a.id]);
    expect(await ids({ status: 'in_progress' })).not.toContain(a.id); // a category however written
    // Both filters named different statuses and listed nothing: one of them is asked for.
    const both = await rest(t, ws.token, 'issues.list', { status: 'Done', statusId: statuses[0].id });
    expect([both.status, Object.keys(both.body.issues)]).toEqual([400, ['status']]);
    expect(await ids({ priority: 'URGENT' })).toEqual([a.id]);
    // A list is any of them, in issues.list, issues.count and a search with the filter alike.
    const urgentOrLow = await ids({ priorities: ['URGENT', 'LOW'] });
    expect(urgentOrLow).toEqual(expect.arrayContaining([a.id, b.id]));
    expect((await ok(t, ws.token, 'issues.list', { limit: 200 })).items
      .filter((i: { priority: string }) => ['URGENT', 'LOW'].includes(i.priority)).map((i: { id: string }) => i.id).sort()).toEqual([...urgentOrLow].sort());
    expect(await ids({ priorities: ['URGENT', 'LOW'], query: 'filter' })).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(await ids({ priorities: ['HIGH'], query: 'filter' })).toEqual([]);
    expect((await ok(t, ws.token, 'issues.count', { priorities: ['URGENT', 'LOW'] })).total).toBe(urgentOrLow.length);
    expect(await ids({ priorities: ['URGENT', 'LOW'], priority: 'LOW' })).toEqual([b.id]); // both apply
    for (const priorities of [[], ['URGENT', 'urgent'], 'URGENT', [1], ['LOW', 'LOW', 'LOW', 'LOW', 'LOW', 'LOW']]) {
      const r = await rest(t, ws.token, 'issues.list', { priorities });
      expect([r.status, Object.keys(r.body.issues ?? {})[0]?.startsWith('priorities')]).toEqual([400, true]);
    }
    const mistaken = await rest(t, ws.token, 'issues.list', { priority: ['URGENT', 'LOW'] });
    expect([mistaken.status, mistaken.body.issues]).toEqual([400, { priority: 'one priority; for any of several, use priorities' }]);
    expect(await ids({ projectId: projectB })).toEqual([a.id]);
    expect(await ids({ labelIds: [labelY] })).toContain(b.id);
    expect(await ids({ labelIds: [labelY] })).not.toContain(a.id);
    expect(await ids({ queued: true })).toEqual([]);
    expect(await ids({ assignedAgentId: null })).toContain(a.id);
    expect(await ids({ projectId: null })).toContain(b.id);
  });
});

describe('narrowing (spec 5.6)', () => {
  it('project and label narrowing combine with OR, in lists and single reads', async () => {
    const inA = await ok(t, ws.token, 'issues.create', { title: 'in A', projectId: projectA });
    const inB = await ok(t, ws.token, 'issues.create', { title: 'in B', projectId: projectB });
    const labelled = await ok(t, ws.token, 'issues.create', { title: 'labelled', projectId: projectB, labelIds: [labelX] });
    const loose = await ok(t, ws.token, 'issues.create', { title: 'loose' });

    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectA], labels: [labelX] });
    const list = await ok(t, narrowed.token, 'issues.list', { limit: 200 });
    const listed = list.items.map((i: { id: string }) => i.id);
    expect(listed).toContain(inA.id);
    expect(listed).toContain(labelled.id);
    expect(listed).not.toContain(inB.id);
    expect(listed).not.toContain(loose.id);
    for (const i of list.items) {
      expect(i.projectId === projectA || i.labelIds.includes(labelX)).toBe(true);
    }
    expect((await rest(t, narrowed.token, 'issues.get', { id: inA.id })).status).toBe(200);
    expect((await rest(t, narrowed.token, 'issues.get', { id: inB.id })).status).toBe(404);
    expect((await rest(t, narrowed.token, 'issues.get', { id: loose.key })).status).toBe(404);
    expect((await rest(t, narrowed.token, 'events.recent', { subjectType: 'issue', subjectId: inB.id })).status).toBe(404);
    const events = await ok(t, narrowed.token, 'events.recent', { limit: 200 });
    const subjects = new Set(events.items.filter((e: { subjectType: string }) => e.subjectType === 'issue').map((e: { subjectId: string }) => e.subjectId));
    expect(subjects.has(inB.id)).toBe(false);
    expect(subjects.has(inA.id)).toBe(true);
  });

  it('a narrowed key can create only inside its narrowing', async () => {
    const projectKey = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectA] });
    const inside = await rest(t, projectKey.token, 'issues.create', { title: 'inside', projectId: projectA });
    expect(inside.status).toBe(200);
    // A project outside the narrowing is invisible to the key, so naming it is a 404 (nothing leaks)…
    const outside = await rest(t, projectKey.token, 'issues.create', { title: 'outside', projectId: projectB });
    expect(outside.status).toBe(404);
    // …and an issue that would land outside the narrowing is refused.
    const noProject = await rest(t, projectKey.token, 'issues.create', { title: 'no project' });
    expect([noProject.status, noProject.body.error]).toEqual([403, 'narrowing']);
    const labelKey = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], labels: [labelX] });
    expect((await rest(t, labelKey.token, 'issues.create', { title: 'labelled', labelIds: [labelX] })).status).toBe(200);
    const unlabelled = await rest(t, labelKey.token, 'issues.create', { title: 'unlabelled' });
    expect([unlabelled.status, unlabelled.body.error]).toEqual([403, 'narrowing']);
    const many = await rest(t, labelKey.token, 'issues.createMany', { items: [{ title: 'ok', labelIds: [labelX] }, { title: 'not ok' }] });
    expect([many.status, many.body.error]).toEqual([403, 'narrowing']);
    // Refused before the insert: no issue number was used up by the refusals.
    const next = await ok(t, ws.token, 'issues.create', { title: 'after the refusals' });
    expect(next.number).toBe(inside.body.number + 2);
    const titles = (await ok(t, ws.token, 'issues.list', { limit: 200 })).items.map((i: { title: string }) => i.title);
    expect(titles).not.toContain('outside');
    expect(titles).not.toContain('unlabelled');
  });
});

describe('input the tools forgive or refuse', () => {
  it('a label listed twice on create is the label once', async () => {
    const made = await ok(t, ws.token, 'issues.create', { title: 'Twice labelled', labelIds: [labelX, labelY, labelX] });
    expect([...made.labelIds].sort()).toEqual([labelX, labelY].sort());
  });

  it('issues.update takes queued, as issues.queue does (false takes an issue out of the dispatch pool)', async () => {
    const made = await ok(t, ws.token, 'issues.create', { title: 'Queued by mistake' });
    expect((await ok(t, ws.token, 'issues.queue', { id: made.id })).queued).toBe(true);
    expect((await ok(t, ws.token, 'issues.update', { id: made.id, queued: false })).queued).toBe(false);
    expect((await ok(t, ws.token, 'issues.update', { id: made.id, queued: true })).queued).toBe(true);
  });

  it('events.recent refuses a kind that does not exist (it listed nothing before)', async () => {
    const r = await rest(t, ws.token, 'events.recent', { kinds: ['ISSUE_CREATED', 'NOPE'] });
    expect([r.status, Object.keys(r.body.issues)]).toEqual([400, ['kinds.1']]);
    expect((await rest(t, ws.token, 'events.recent', { kinds: ['ISSUE_CREATED'] })).status).toBe(200);
  });
});
