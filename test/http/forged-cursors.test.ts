/**
 * Forged cursors against EVERY paged list of the catalog (found from the input schemas: a property
 * described as the previous page's nextCursor). A cursor the list did not return — garbage base64, another
 * list's prefix, the right prefix with a non-numeric, out-of-range or impossible-date token — is the same
 * clean 400 as any other foreign cursor: `issues: {<field>: "cursor is not one this list returned"}`, never
 * PostgreSQL's cast error under `input`. Lists keyed by text (labels, members) may accept some forgeries
 * as a place in their order (200); nothing else is allowed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemasOf, TOOLS } from '../../src/tools/catalog.ts';
import { admin, createAgent, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

const CURSOR_DESCRIPTION = 'nextCursor from the previous page';
const CLEAN = 'cursor is not one this list returned';
const UUID = '0b7c5b0e-8f1a-4c1e-9a55-2f1b6c3d4e5f';
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64url');

let t: TestApp;
let ws: Workspace;
let token: string;
let issueId: string;

/** Every list tool that takes a cursor, with the name of its cursor field (cursor, before). */
const lists = TOOLS.flatMap((tool) => {
  const props = (schemasOf(tool).input as { properties?: Record<string, { description?: string }> }).properties ?? {};
  return Object.entries(props).filter(([, s]) => s.description === CURSOR_DESCRIPTION).map(([field]) => ({ tool, field }));
});

/** The cursor prefixes the SQL of the lists reads (`…decode…(args->>'cursor', 'issues'…`). */
const SQL_DIR = path.resolve(import.meta.dirname, '../../sql');
const prefixesIn = (file: string) => {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  return [...text.matchAll(/decode\w*\(args->>'\w+', '([\w-]+)'/g)].map((m) => m[1]!);
};
const allPrefixes = [...new Set(lists.flatMap(({ tool }) => prefixesIn(path.join(SQL_DIR, tool.sqlFile))))];
/** A list's own prefixes, else those of the list function it calls (issues.assigned → issues.list), else all. */
function prefixesOf(tool: (typeof TOOLS)[number]): string[] {
  const file = path.join(SQL_DIR, tool.sqlFile);
  const own = prefixesIn(file);
  if (own.length) return [...new Set(own)];
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const called = [...text.matchAll(/(app_tools\.\w+)\(/g)].map((m) => TOOLS.find((x) => x.sqlFunction === m[1] && x !== tool)).filter((x) => !!x);
  const viaCalled = [...new Set(called.flatMap((x) => prefixesIn(path.join(SQL_DIR, x!.sqlFile))))];
  return viaCalled.length ? viaCalled : allPrefixes;
}

/** Tokens after `<prefix>:` that no list ever returns, each of a kind a cast would choke on. */
const BAD_TOKENS = [
  'abc', '', '-', '1.5', '1e3', ' 12', '2147483648', '99999999999', '9223372036854775808', '99999999999999999999999',
  `2026-02-30T00:00:00.000000Z|${UUID}`, `0000-01-01T00:00:00.000000Z|${UUID}`, `2026-13-01T00:00:00.000000Z|${UUID}`,
  `2026-01-01T25:00:00.000000Z|${UUID}`, `abc|${UUID}`, `${'x'.repeat(30)}|${UUID}`, `2026-02-30|${UUID}`, `0000-01-01|${UUID}`,
  `2026-01-01T00:00:00.000000Z|not-a-uuid-at-all-but-36-chars-long!`, '1:abc', 'NaN:1', '0.5:99999999999', '0.5:1:extra',
];
/** Not cursors of any list: garbage, broken base64, bytes that are not UTF-8, an unknown prefix. */
const GARBAGE = ['%%%', '!!!!', 'a', b64(Buffer.from([0xff, 0xfe, 0x3a, 0x31])), b64('nolist:12'), b64(`x:${UUID}`), b64('issues'), b64(':12')];

function forgeries(prefixes: string[]) {
  return [...GARBAGE.map((c) => ({ cursor: c, garbage: true })),
    ...prefixes.flatMap((p) => BAD_TOKENS.map((tok) => ({ cursor: b64(`${p}:${tok}`), garbage: false })))];
}

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t);
  await admin(t, 'update-workspace', { workspace: ws.key, 'time-tracking': 'true', json: true });
  const agent = await createAgent(t, ws, 'cursor-agent');
  // A key linked to an agent, so issues.assigned and the other agent-scoped lists read their cursor too.
  token = (await createKey(t, ws, { agent: agent.profileKey })).token;
  issueId = (await ok(t, ws.token, 'issues.create', { title: 'Cursor target' })).id;
});
afterAll(() => t?.close());

// id: the issue of issues.children / issues.history.
const REQUIRED: Record<string, () => unknown> = { issueId: () => issueId, id: () => issueId };
function baseInput(tool: (typeof lists)[number]['tool']): Record<string, unknown> {
  const schema = schemasOf(tool).input as { required?: string[] };
  return Object.fromEntries((schema.required ?? []).map((k) => {
    if (!REQUIRED[k]) throw new Error(`${tool.name}: no test value for required field ${k}`);
    return [k, REQUIRED[k]!()];
  }));
}

describe('forged cursors', () => {
  it('finds the paged lists in the catalog', () => {
    expect(lists.length).toBeGreaterThanOrEqual(20);
    expect(lists.map((l) => `${l.tool.name}.${l.field}`)).toEqual(expect.arrayContaining([
      'issues.list.cursor', 'issues.listWatching.cursor', 'events.recent.before', 'comments.list.before',
      'projects.list.cursor', 'initiatives.list.cursor', 'cycles.list.cursor', 'notes.list.cursor', 'time.list.cursor',
    ]));
    expect(allPrefixes).toEqual(expect.arrayContaining(['issues', 'events', 'comments', 'cycles', 'journal']));
  });

  for (const { tool, field } of lists) {
    it(`${tool.name} (${field})`, async () => {
      const cases = forgeries(prefixesOf(tool));
      const wrong: string[] = [];
      for (const { cursor, garbage } of cases) {
        const r = await rest(t, token, tool.name, { ...baseInput(tool), [field]: cursor });
        const clean = r.status === 400 && r.body?.error === 'invalid_input' && JSON.stringify(r.body.issues) === JSON.stringify({ [field]: CLEAN });
        // Garbage is never a cursor; a well-formed token of the wrong type may only be a text list's position.
        if (!(clean || (!garbage && r.status === 200))) {
          wrong.push(`${Buffer.from(cursor, 'base64url').toString()} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        }
      }
      expect(wrong).toEqual([]);
      // null is the first page, as absent: a paging loop's first call (`cursor = page.nextCursor`, null at first).
      const absent = await rest(t, token, tool.name, baseInput(tool));
      const nullCursor = await rest(t, token, tool.name, { ...baseInput(tool), [field]: null });
      expect(absent.status).toBe(200);
      expect([nullCursor.status, nullCursor.body]).toEqual([200, absent.body]);
    });
  }

  it('the reported cases are the clean 400 (issues.list, listWatching, events.recent, date-keyed lists)', async () => {
    const clean = (field: string) => ({ status: 400, body: { error: 'invalid_input', message: CLEAN, issues: { [field]: CLEAN } } });
    const call = async (tool: string, input: object) => {
      const r = await rest(t, token, tool, input);
      return { status: r.status, body: r.body };
    };
    expect(await call('issues.list', { cursor: b64('issues:abc') })).toEqual(clean('cursor'));
    expect(await call('issues.list', { cursor: b64('issues:99999999999') })).toEqual(clean('cursor'));
    expect(await call('issues.list', { cursor: b64('issues:99999999999'), priority: 'HIGH' })).toEqual(clean('cursor'));
    expect(await call('issues.list', { query: 'cursor', cursor: b64('issues-search:0.5:99999999999') })).toEqual(clean('cursor'));
    expect(await call('issues.list', { query: 'cursor', cursor: b64('issues-search:abc:1') })).toEqual(clean('cursor'));
    expect(await call('issues.listWatching', { cursor: b64('watching:abc') })).toEqual(clean('cursor'));
    expect(await call('events.recent', { before: b64('events:99999999999999999999') })).toEqual(clean('before'));
    expect(await call('events.recent', { before: b64('events:abc'), kinds: ['ISSUE_CREATED'] })).toEqual(clean('before'));
    const bad = `2026-02-30T00:00:00.000000Z|${UUID}`;
    expect(await call('comments.list', { issueId, before: b64(`comments:${bad}`) })).toEqual(clean('before'));
    for (const [tool, prefix] of [['projects.list', 'projects'], ['initiatives.list', 'initiatives'], ['notes.list', 'notes'], ['time.list', 'time'], ['runs.list', 'runs']]) {
      const input = tool === 'runs.list' ? { before: b64(`${prefix}:${bad}`) } : { cursor: b64(`${prefix}:${bad}`) };
      expect(await call(tool!, input), tool).toEqual(clean(tool === 'runs.list' ? 'before' : 'cursor'));
    }
    expect(await call('cycles.list', { cursor: b64(`cycles:2026-02-30|${UUID}`) })).toEqual(clean('cursor'));
    expect(await call('notes.listJournal', { cursor: b64(`journal:0000-01-01|${UUID}`) })).toEqual(clean('cursor'));
    // Over JSON-RPC: the same error as a tool result.
    const r = await rpc(t, token, 'tools/call', { name: 'issues.list', arguments: { cursor: b64('issues:abc') } });
    expect(JSON.parse(r.body.result.content[0].text)).toEqual({ error: 'invalid_input', message: CLEAN, issues: { cursor: CLEAN }, status: 400 });
  });

  it('real cursors still page (numeric, keyset by time, keyset by date)', async () => {
    for (let i = 0; i < 2; i++) await ok(t, token, 'issues.create', { title: `page ${i}` });
    const p1 = await ok(t, token, 'issues.list', { limit: 1 });
    const p2 = await ok(t, token, 'issues.list', { limit: 1, cursor: p1.nextCursor });
    expect(p2.items[0].number).toBeLessThan(p1.items[0].number);
    for (let i = 0; i < 2; i++) await ok(t, token, 'projects.create', { name: `P${i}` });
    const q1 = await ok(t, token, 'projects.list', { limit: 1 });
    const q2 = await ok(t, token, 'projects.list', { limit: 1, cursor: q1.nextCursor });
    expect(q2.items[0].id).not.toBe(q1.items[0].id);
    const e1 = await ok(t, token, 'events.recent', { limit: 1 });
    expect((await ok(t, token, 'events.recent', { limit: 1, before: e1.nextCursor })).items).toHaveLength(1);
    await ok(t, ws.token, 'notes.create', { body: 'a', kind: 'JOURNAL', journalDate: '2026-01-02' });
    await ok(t, ws.token, 'notes.create', { body: 'b', kind: 'JOURNAL', journalDate: '2026-01-01' });
    const j1 = await ok(t, ws.token, 'notes.listJournal', { limit: 1 });
    const j2 = await ok(t, ws.token, 'notes.listJournal', { limit: 1, cursor: j1.nextCursor });
    expect(j2.items[0].journalDate).toBe('2026-01-01');
  });
});
