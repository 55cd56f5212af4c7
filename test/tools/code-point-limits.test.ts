/**
 * The tools' string limits count characters as PostgreSQL (`char_length`) and JSON Schema's maxLength count them:
 * code points, not JavaScript's UTF-16 units (docs/decisions.md, "Text is stored composed (NFC); lengths are code
 * points"). An emoji is one character and two UTF-16 units, so a title of 300 emoji (600 units) fits issues.create's
 * 500. zod 4.6.7 measures strings in code points in `.min()`, `.max()` and `.length()` (the version package-lock.json
 * pins); these tests hold the tools to it, whatever zod does later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bodyText, line } from '../../src/tools/define.ts';
import { ok, rest, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

const EMOJI = '\u{1F600}'; // 😀: one code point, two UTF-16 units
const ASTRAL = '\u{10400}'; // 𐐀 (Deseret capital long I): a letter outside the BMP
let t: TestApp;
let ws: Workspace;

beforeAll(async () => {
  ({ t, ws } = await startWithWorkspaces());
});
afterAll(() => t?.close());

describe('string limits count code points', () => {
  it('issues.create: a title of 300 emoji (600 UTF-16 units, max 500) is taken and stored whole', async () => {
    const title = EMOJI.repeat(300);
    const created = await ok(t, ws.token, 'issues.create', { title });
    expect(created.title).toBe(title);
    const read = await ok(t, ws.token, 'issues.get', { id: created.id });
    expect(read.title).toBe(title);
    expect([...read.title].length).toBe(300);
  });

  it('issues.create: 500 emoji are the most, 501 are refused naming title in the words of any max', async () => {
    expect((await ok(t, ws.token, 'issues.create', { title: EMOJI.repeat(500) })).title).toBe(EMOJI.repeat(500));
    const r = await rest(t, ws.token, 'issues.create', { title: EMOJI.repeat(501) });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid_input', issues: { title: 'Too big: expected string to have <=500 characters' } });
    // The same words as an ASCII title one past the limit.
    const ascii = await rest(t, ws.token, 'issues.create', { title: 'x'.repeat(501) });
    expect(ascii.body.issues).toEqual(r.body.issues);
  });

  it("tools/list still publishes maxLength 500 (and minLength 1) for issues.create's title", async () => {
    const listed = await rpc(t, ws.token, 'tools/list', {}, '?profile=full');
    const create = listed.body.result.tools.find((x: { name: string }) => x.name === 'issues.create');
    expect(create.inputSchema.properties.title).toMatchObject({ type: 'string', minLength: 1, maxLength: 500 });
    const [label] = await ok(t, ws.token, 'catalog.describe', { names: ['labels.create'] });
    expect(label.inputSchema.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 100 });
  });

  it('comments.create (bodyText): a body of 100,000 astral characters (200,000 UTF-16 units) is taken; 100,001 are not', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'long comments' });
    const body = ASTRAL.repeat(100_000);
    const made = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body });
    expect(made.body).toBe(body);
    const over = await rest(t, ws.token, 'comments.create', { issueId: issue.id, body: ASTRAL.repeat(100_001) });
    expect([over.status, over.body.issues]).toEqual([400, { body: 'Too big: expected string to have <=100000 characters' }]);
  });

  it('labels.create (line(100)): a name of 100 emoji is taken, 101 are not', async () => {
    const label = await ok(t, ws.token, 'labels.create', { name: EMOJI.repeat(100) });
    expect(label.name).toBe(EMOJI.repeat(100));
    const over = await rest(t, ws.token, 'labels.create', { name: `${EMOJI.repeat(100)}x` });
    expect([over.status, over.body.issues]).toEqual([400, { name: 'Too big: expected string to have <=100 characters' }]);
  });

  it('a floor counts code points too: five emoji are five characters, not ten', () => {
    // issues.* `rationale` is z.string().trim().min(10, ...): ten UTF-16 units of five emoji must not pass it.
    expect(z.string().min(10).safeParse(EMOJI.repeat(5)).success).toBe(false);
    expect(z.string().min(10).safeParse(EMOJI.repeat(10)).success).toBe(true);
    expect(line(3).safeParse(EMOJI.repeat(3)).success).toBe(true);
    expect(bodyText.safeParse(EMOJI.repeat(100_000)).success).toBe(true);
  });
});
