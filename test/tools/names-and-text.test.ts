/**
 * Names and text as an outside tester of international text found them: one rule for blank names on every path the
 * SQL takes (GraphQL, chat threads, a person's name), slugs of accented names, markdown in standup drafts, and pin
 * positions a narrowed key cannot read a hidden pin from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, createWorkspace, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';
import { oneLine } from '../../src/tools/text-guard.ts';

let t: TestApp;
let ws: Workspace;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'NMT');
});
afterAll(() => t.close());

const AGENT = 'mutation($n: String!, $p: String!) { agentsCreate(input: {profileKey: $p, name: $n}) { agent { rowId name } } }';

describe('a name needs a visible character, on every path', () => {
  it('GraphQL agentsCreate and chatOpenThread refuse names of blanks and invisible characters (400 naming the field)', async () => {
    for (const [k, name] of ['\u3000\u00a0', '\u200b', '\u3164', ' \u2800 '].entries()) {
      const e = await gqlError(t, ws.token, AGENT, { n: name, p: `blank-${k}` });
      expect([e.code, e.issues], JSON.stringify(name)).toEqual(['invalid_input', { name: expect.stringMatching(/visible character|must not be empty/) }]);
    }
    const agent = (await gqlOk(t, ws.token, AGENT, { n: '\u00a0Ω Reviewer\u3000', p: 'reviewer' })).agentsCreate.agent;
    expect(agent.name, 'trimmed of every Unicode space').toBe('Ω Reviewer');
    const e = await gqlError(t, ws.token, 'mutation($a: UUID!, $t: String) { chatOpenThread(input: {agentId: $a, title: $t}) { chatThread { rowId } } }',
      { a: agent.rowId, t: '\u3000' });
    expect(e.issues).toEqual({ title: expect.stringMatching(/visible character|must not be empty/) });
  });

  it('a person\'s name is trimmed of non-breaking and ideographic spaces', async () => {
    const r = await gqlOk(t, ws.token, 'mutation($n: String) { viewerUpdate(input: {name: $n}) { user { name } } }', { n: '\u00a0Owner Ω\u00a0' });
    expect(r.viewerUpdate.user.name).toBe('Owner Ω');
  });
});

it('a workspace slug keeps the base letters of accented names', async () => {
  const r = await admin(t, 'create-workspace', { name: 'Équipe Café Straße', key: 'EQC', 'owner-email': 'eqc@example.com', json: true });
  expect(r.workspace.slug).toBe('equipe-cafe-strasse');
  const list = await admin(t, 'list-workspaces', { json: true });
  expect(list.items.find((w: { key: string }) => w.key === 'EQC')).toMatchObject({ slug: 'equipe-cafe-strasse' });
});

it('standup.draft escapes the markdown of issue titles, so a pasted draft shows them as written', async () => {
  const issue = await ok(t, ws.token, 'issues.create', { title: '**bold** [link](https://evil.example) `code` <b> &#42;ent&#42;' });
  const { markdown } = await ok(t, ws.token, 'standup.draft', {});
  expect(markdown).toContain(`\`${issue.key}\` \\*\\*bold\\*\\* \\[link\\]\\(https://evil.example\\) \\\`code\\\` \\<b\\> \\&#42;ent\\&#42;`);
  expect(markdown).not.toContain('[link](');
});

it('pins.list counts positions among the pins the key sees: a narrowed key reads no gap before its first pin', async () => {
  const { rows: [p1] } = await t.pools.owner.query<{ id: string }>("insert into app_public.projects (workspace_id, name) values ($1, 'P1') returning id", [ws.id]);
  const { rows: [p2] } = await t.pools.owner.query<{ id: string }>("insert into app_public.projects (workspace_id, name) values ($1, 'P2') returning id", [ws.id]);
  const hidden = await ok(t, ws.token, 'issues.create', { title: 'in P2', projectId: p2!.id });
  const shown = await ok(t, ws.token, 'issues.create', { title: 'in P1', projectId: p1!.id });
  const loose = await ok(t, ws.token, 'issues.create', { title: 'no project' });
  const mine = await createKey(t, ws, { projects: [p1!.id] });
  // The pins are the person's; the narrowed key is the same person's.
  await ok(t, mine.token, 'pins.set', { issueIds: [shown.id] });
  await ok(t, ws.token, 'pins.set', { issueIds: [hidden.id, shown.id, loose.id] });
  const full = await ok(t, ws.token, 'pins.list', {});
  expect(full.map((p: { issueId: string; position: number }) => [p.issueId, p.position])).toEqual([[hidden.id, 0], [shown.id, 1], [loose.id, 2]]);
  const narrowed = await ok(t, mine.token, 'pins.list', {});
  expect(narrowed.map((p: { issueId: string; position: number }) => [p.issueId, p.position])).toEqual([[shown.id, 0]]);
});

describe('the tools take names as one line with a visible character', () => {
  it('issues.create title and labels.create name of invisible characters are 400 naming the field', async () => {
    for (const title of ['\u200b', '\u3164', '\u2800']) {
      const r = await rest(t, ws.token, 'issues.create', { title });
      // Trimmed away (a zero-width space) it is empty; kept (a Hangul filler, the braille blank) it shows nothing.
      expect([r.status, r.body.issues], JSON.stringify(title)).toEqual([400, { title: expect.stringMatching(/visible character|must not be empty/) }]);
    }
    const r = await rest(t, ws.token, 'labels.create', { name: '\u200c' });
    expect([r.status, r.body.issues]).toEqual([400, { name: expect.stringMatching(/visible character|must not be empty/) }]);
  });

  it('every default-ignorable character is invisible, on the tools and in SQL; ends are trimmed of them, emoji keep theirs', async () => {
    const invisible = ['\u00ad', '\u034f', '\u061c', '\u17b4', '\ufe0f', '\ufe00\ufe02', '\u180b', '\u2065', '\u206a', '\ufff9',
      '\u{e0001}', '\u{e0041}\u{e0042}', '\u{1bca0}', '\u{1d173}', '\ufffc', '\u{13430}', '\u{13436}\u{13437}'];
    for (const [k, name] of invisible.entries()) {
      const tool = await rest(t, ws.token, 'labels.create', { name });
      expect([tool.status, tool.body.issues], JSON.stringify(name)).toEqual([400, { name: expect.stringMatching(/visible character|must not be empty/) }]);
      const e = await gqlError(t, ws.token, AGENT, { n: name, p: `ignorable-${k}` });
      expect(e.issues, JSON.stringify(name)).toEqual({ name: expect.stringMatching(/visible character|must not be empty/) });
    }
    const info = await ok(t, ws.token, 'labels.create', { name: '\u200bInfo\u00ad\u2060' });
    expect(info.name).toBe('Info');
    expect((await rest(t, ws.token, 'labels.create', { name: 'Info\u200b' })).status, 'the same name once trimmed').toBe(409);
    for (const name of ['Info\u200c', '\u200cInfo', 'Info\u206f', '\u{e0000}Info', 'Info\u{e0fff}', '\ufe0fInfo', '\u200dInfo', '\u{e007f}Info', 'Info\u{1d17a}']) {
      expect((await rest(t, ws.token, 'labels.create', { name })).status, JSON.stringify(name)).toBe(409);
    }
    // The SQL trims the same (GraphQL's own mutation).
    expect((await gqlOk(t, ws.token, AGENT, { n: '\u200c\ufe0fBot\u{e0000}\u200b', p: 'trimmed-bot' })).agentsCreate.agent.name).toBe('Bot');
    // Emoji end in a variation selector or a tag (a subdivision flag): kept whole.
    for (const [k, name] of ['Love \u2764\ufe0f', 'Scotland \u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}'].entries()) {
      expect((await ok(t, ws.token, 'labels.create', { name })).name).toBe(name);
      expect((await gqlOk(t, ws.token, AGENT, { n: name, p: `emoji-${k}` })).agentsCreate.agent.name).toBe(name);
    }
  });

  it('a status named with Unicode spaces around it is found, in a filter and a transition', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Move me' });
    const status = (await ok(t, ws.token, 'statuses.list', {})).find((s: { category: string }) => s.category === 'DONE');
    const moved = await ok(t, ws.token, 'issues.transition', { id: issue.id, status: `\u00a0${status.name}\u3000` });
    expect(moved.statusId).toBe(status.id);
    expect((await ok(t, ws.token, 'issues.list', { status: `\u00a0${status.name}` })).items.map((i: { id: string }) => i.id)).toContain(issue.id);
  });

  it('notes titles, plan verification labels and canvas edge labels are one line', async () => {
    const note = await rest(t, ws.token, 'notes.create', { title: 'evil\u202etxt.exe\nsecond\u0007', body: 'x' });
    expect([note.status, Object.keys(note.body.issues ?? {})]).toEqual([400, ['title']]);
    expect((await ok(t, ws.token, 'notes.create', { title: '  Padded  ', body: 'x' })).title).toBe('Padded');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Plan me' });
    const plan = await rest(t, ws.token, 'plans.addSteps', { issueId: issue.id, steps: [{ key: 's1', label: 'Step', verification: [{ label: 'x\u202ey\nz' }] }] });
    expect(plan.status).toBe(400);
    expect(JSON.stringify(plan.body.issues)).toMatch(/verification\.0\.label/);
    const canvas = await ok(t, ws.token, 'canvas.create', { name: 'C' });
    const a = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'text', text: 'A', x: 0, y: 0 });
    const b = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'text', text: 'B', x: 100, y: 0 });
    const edge = await rest(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: a.id, toNodeId: b.id, label: 'x\u202ey\nz\u001b' });
    expect([edge.status, Object.keys(edge.body.issues ?? {})]).toEqual([400, ['label']]);
  });
});

it('a title fetched from a page that shows nothing is no title (the hostname stays), as linkTitle given so is refused', () => {
  expect(oneLine('\u200b\u2060 \u3164')).toBe('');
  expect(oneLine('  \u200bRelease notes\u00ad ')).toBe('Release notes');
});

it('a profile key outside a-z, 0-9, _ . - is refused in words (GraphQL and the CLI reach the SQL)', async () => {
  const e = await gqlError(t, ws.token, AGENT, { n: 'Upper', p: 'TRIAGE' });
  expect(e.issues).toEqual({ profileKey: expect.stringMatching(/^must be 1 to 64 of a-z, 0-9, _ \. -/) });
});
