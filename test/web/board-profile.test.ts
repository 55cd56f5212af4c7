/**
 * "Your profile" on the web board, in Debian's headless chromium: the header names who is signed in (their email in
 * the tooltip); its dialog edits the name and the IANA time zone through GraphQL viewerUpdate (a PERSONAL or SESSION
 * key of the person holding WRITE_USERS, or FULL; for a key without it the dialog is read-only and says why); a
 * refused zone or name is said next to its field, in plain words, and a blank name is not sent; Escape closes it and
 * the focus goes back to the header; the new name shows on the person's comments and in the assignee filter, after
 * a save here and live (USER_UPDATED) when it is changed elsewhere.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let url: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** The board's writing scopes, and WRITE_USERS, which viewerUpdate needs. */
const WRITER = ['READ_ISSUES', 'WRITE_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'WRITE_COMMENTS', 'READ_USERS', 'WRITE_USERS', 'SUBSCRIBE_EVENTS'] as const;
const READER = ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS', 'SUBSCRIBE_EVENTS'] as const;
const MEMBER = 'mia@example.com';
/** The zone the browser runs in (the context's), which "Use this browser's zone" offers. */
const BROWSER_ZONE = 'Pacific/Auckland';
let member: { id: string; token: string };
let issue: { id: string; key: string };
let commentId: string;

const viewer = async (token = member.token) =>
  (await gqlOk<{ viewer: { name: string; email: string; timezone: string } }>(t, token, 'query { viewer { name email timezone } }')).viewer;
const focused = () => page.evaluate(() => document.activeElement?.id ?? '');

/** The names of the mutations the page sends from now on. */
function mutations(): string[] {
  const sent: string[] = [];
  page.on('request', (r) => {
    const m = /mutation (\w+)/.exec(r.url().endsWith('/graphql') ? r.postData() ?? '' : '');
    if (m) sent.push(m[1]!);
  });
  return sent;
}

async function signIn(token: string, hash = '#/board') {
  await page.goto(`${url}/${hash}`);
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await page.fill('#key', token, { timeout: 5000 });
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#workspace:not(:text("Issue board"))', { timeout: 5000 });
}

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'PRO');
  await admin(t, 'add-member', { workspace: ws.key, email: MEMBER, role: 'MEMBER', json: true });
  member = await createKey(t, ws, { user: MEMBER, scopes: [...WRITER] });
  issue = await ok(t, member.token, 'issues.create', { title: 'Profile probe' });
  commentId = (await ok(t, member.token, 'comments.create', { issueId: issue.id, body: 'My own words' })).id;
  url = await t.listen();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: BROWSER_ZONE });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await signIn(member.token, `#/issue/${issue.key}`);
  await page.waitForSelector(`main.issue[data-key="${issue.key}"]`);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const author = () => page.textContent(`.comment[data-id="${commentId}"] .author`);

describe('your profile', () => {
  it('the header names who is signed in, with their email in the tooltip; the dialog takes the focus and Escape gives it back', async () => {
    expect((await viewer()).name).toBe('mia');
    expect(await page.textContent('#profile')).toContain('mia');
    expect(await page.getAttribute('#profile', 'title')).toBe(MEMBER);
    expect(await author()).toBe('mia');

    await page.click('#profile');
    await page.waitForSelector('#profile-dialog[open]');
    expect(await page.getAttribute('#profile-dialog', 'aria-labelledby')).toBe('profile-title');
    expect(await page.textContent('#profile-title')).toBe('Your profile');
    await expect.poll(focused).toBe('profile-name');
    // Labelled fields, with the saved values.
    expect(await page.getAttribute('label[for="profile-name"]', 'for')).toBe('profile-name');
    expect(await page.inputValue('#profile-name')).toBe('mia');
    expect(await page.textContent('label[for="profile-timezone"]')).toBe('Time zone');
    expect(await page.inputValue('#profile-timezone')).toBe('UTC');
    // The zones to pick from are the browser's.
    expect(await page.locator('#profile-zones option[value="Europe/Paris"]').count()).toBe(1);
    // The rest of the page is inert while it is open: Tab stays in the dialog.
    for (let n = 0; n < 8; n++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('#profile-dialog')) || document.activeElement === document.body)).toBe(true);
    }
    await page.fill('#profile-name', 'Not kept');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#profile-dialog', { state: 'detached' });
    await expect.poll(focused).toBe('profile');
    expect((await viewer()).name).toBe('mia');
  });

  it('Save writes the name and the browser\'s zone; the header, her comment and the assignee filter show the new name', async () => {
    await page.click('#profile');
    await page.waitForSelector('#profile-dialog[open]');
    await page.fill('#profile-name', '  Mia Lindqvist ');
    await page.click('#profile-browser-zone');
    expect(await page.inputValue('#profile-timezone')).toBe(BROWSER_ZONE);
    await page.click('#profile-save');
    await page.waitForSelector('#profile-dialog', { state: 'detached' });
    await expect.poll(focused).toBe('profile');
    expect(await viewer()).toEqual({ name: 'Mia Lindqvist', email: MEMBER, timezone: BROWSER_ZONE });
    await expect.poll(() => page.textContent('#profile')).toContain('Mia Lindqvist');
    // Her comment was read before the change and is not re-read with the newest page: the name is the workspace's.
    await expect.poll(author).toBe('Mia Lindqvist');
    await page.goto(`${url}/#/board`);
    await expect.poll(() => page.locator('select[name="assignee"] option', { hasText: 'Mia Lindqvist' }).count()).toBe(1);
  });

  it('a zone the service does not know, or an empty name, is said next to its field in plain words, and nothing is saved', async () => {
    await page.click('#profile');
    await page.waitForSelector('#profile-dialog[open]');
    expect(await page.inputValue('#profile-timezone')).toBe(BROWSER_ZONE);
    await page.fill('#profile-timezone', 'Mars/Olympus');
    await page.click('#profile-save');
    await page.waitForSelector('#profile-timezone-error');
    expect(await page.textContent('#profile-timezone-error')).toContain('unknown time zone Mars/Olympus');
    expect(await page.getAttribute('#profile-timezone', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#profile-timezone', 'aria-describedby')).toContain('profile-timezone-error');
    expect(await page.locator('#profile-name-error').count()).toBe(0);
    await expect.poll(focused).toBe('profile-timezone');
    expect(await page.isVisible('#profile-dialog[open]')).toBe(true);

    await page.fill('#profile-timezone', BROWSER_ZONE);
    // A blank name is not sent: said at once, in words.
    const sent = mutations();
    await page.fill('#profile-name', '   ');
    await page.click('#profile-save');
    await page.waitForSelector('#profile-name-error');
    expect(await page.textContent('#profile-name-error')).toBe('A name cannot be empty.');
    expect(await page.locator('#profile-timezone-error').count()).toBe(0);
    await expect.poll(focused).toBe('profile-name');
    await page.waitForTimeout(300);
    expect(sent).toEqual([]);
    // One of nothing but invisible characters is the service's to refuse: said in words too, not as its rule.
    await page.fill('#profile-name', '\u2800'); // the braille blank: kept by trimming (a zero-width space is trimmed away: empty)
    await page.click('#profile-save');
    await expect.poll(() => page.textContent('#profile-name-error')).toBe('A name needs a visible character.');
    expect(sent).toEqual(['SaveProfile']);
    await page.click('#profile-cancel');
    await page.waitForSelector('#profile-dialog', { state: 'detached' });
    await expect.poll(focused).toBe('profile');
    expect(await viewer()).toEqual({ name: 'Mia Lindqvist', email: MEMBER, timezone: BROWSER_ZONE });
  });

  it('a name changed elsewhere (USER_UPDATED on the stream) shows without a reload', async () => {
    await page.goto(`${url}/#/issue/${issue.key}`);
    await page.waitForSelector(`main.issue[data-key="${issue.key}"]`);
    await page.waitForSelector('#live.live:not(.off)');
    await admin(t, 'update-user', { email: MEMBER, name: 'Mia L.', json: true });
    await expect.poll(() => page.textContent('#profile')).toContain('Mia L.');
    await expect.poll(author).toBe('Mia L.');
  });

  it('a read-only SESSION key of hers shows her profile read-only and says why: no Save, and nothing is sent', async () => {
    const reader = await createKey(t, ws, { user: MEMBER, scopes: [...READER], kind: 'SESSION' });
    // What the dialog says is what the service does: viewerUpdate needs WRITE_USERS.
    expect(await gqlError(t, reader.token, 'mutation { viewerUpdate(input: {name: "Renamed"}) { user { name } } }'))
      .toMatchObject({ status: 403, code: 'scope_required' });
    await signIn(reader.token);
    await page.waitForSelector('#readonly');
    await page.click('#profile');
    await page.waitForSelector('#profile-dialog[open]');
    expect(await page.textContent('#profile-readonly')).toBe('This key cannot change your profile: it lacks the WRITE_USERS scope.');
    // Her profile as it is, in fields that do not take a change, described by that line.
    expect(await page.inputValue('#profile-name')).toBe('Mia L.');
    expect(await page.inputValue('#profile-timezone')).toBe(BROWSER_ZONE);
    for (const field of ['#profile-name', '#profile-timezone']) {
      expect(await page.isEditable(field)).toBe(false);
      expect(await page.getAttribute(field, 'aria-describedby')).toContain('profile-readonly');
    }
    expect(await page.locator('#profile-save, #profile-browser-zone, #profile-dialog button[type=submit]').count()).toBe(0);
    expect(await page.textContent('#profile-cancel')).toBe('Close');
    // No way to save: typing changes nothing, Enter and a submitted form send nothing.
    const sent = mutations();
    await page.focus('#profile-name');
    await page.keyboard.type('Mia from a reader');
    await page.keyboard.press('Enter');
    await page.evaluate(() => document.querySelector<HTMLFormElement>('#profile-dialog form')!.requestSubmit());
    await page.waitForTimeout(300);
    expect(await page.inputValue('#profile-name')).toBe('Mia L.');
    expect(sent).toEqual([]);
    expect(await page.textContent('#profile-error')).toBe('');
    await page.click('#profile-cancel');
    await page.waitForSelector('#profile-dialog', { state: 'detached' });
    await expect.poll(focused).toBe('profile');
    expect(await viewer(reader.token)).toEqual({ name: 'Mia L.', email: MEMBER, timezone: BROWSER_ZONE });
  });

  it('a SESSION key made as the sign-in page says (create-key, FULL by default), or one holding WRITE_USERS, saves', async () => {
    // `npx svc admin create-key --workspace KEY --user you@example.com` (with --kind SESSION): FULL holds WRITE_USERS.
    const session = (await admin(t, 'create-key', { workspace: ws.key, user: MEMBER, kind: 'SESSION', json: true })).apiKey;
    expect([session.kind, session.scopes]).toEqual(['SESSION', ['FULL']]);
    // A narrower one: the board's read scopes and WRITE_USERS only (read-only for issues, not for her profile).
    const profiler = await createKey(t, ws, { user: MEMBER, scopes: [...READER, 'WRITE_USERS'], kind: 'SESSION' });
    for (const [token, name, zone] of [[session.rawKey, 'Mia from a session', 'Europe/Paris'], [profiler.token, 'Mia, profile only', 'America/New_York']] as const) {
      await signIn(token);
      await page.click('#profile');
      await page.waitForSelector('#profile-dialog[open]');
      expect(await page.locator('#profile-readonly').count()).toBe(0);
      await page.fill('#profile-name', name);
      await page.fill('#profile-timezone', zone);
      await page.click('#profile-save');
      await page.waitForSelector('#profile-dialog', { state: 'detached' });
      expect(await viewer(token)).toEqual({ name, email: MEMBER, timezone: zone });
      await expect.poll(() => page.textContent('#profile')).toContain(name);
    }
    expect(await page.isVisible('#readonly')).toBe(true);
  });
});
