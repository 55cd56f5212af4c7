/**
 * "Your profile" on the web board, in Debian's headless chromium: the header names who is signed in (their email in
 * the tooltip); its dialog edits the name and the IANA time zone through GraphQL viewerUpdate (any PERSONAL or SESSION
 * key of the person, a read-only one too); a refused zone or name is said next to its field; Escape closes it and
 * the focus goes back to the header; the new name shows on the person's comments and in the assignee filter, after
 * a save here and live (USER_UPDATED) when it is changed elsewhere.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let url: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const WRITER = ['READ_ISSUES', 'WRITE_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'WRITE_COMMENTS', 'READ_USERS', 'SUBSCRIBE_EVENTS'] as const;
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

  it('a zone the service does not know, or an empty name, is said next to its field, and nothing is saved', async () => {
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
    await page.fill('#profile-name', '   ');
    await page.click('#profile-save');
    await page.waitForSelector('#profile-name-error');
    expect(await page.textContent('#profile-name-error')).toContain('must not be empty');
    expect(await page.locator('#profile-timezone-error').count()).toBe(0);
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

  it('a read-only SESSION key of hers edits her profile too (viewerUpdate needs no write scope)', async () => {
    const reader = await createKey(t, ws, { user: MEMBER, scopes: [...READER], kind: 'SESSION' });
    await signIn(reader.token);
    await page.waitForSelector('#readonly');
    await page.click('#profile');
    await page.waitForSelector('#profile-dialog[open]');
    await page.fill('#profile-name', 'Mia from a reader');
    await page.fill('#profile-timezone', 'Europe/Paris');
    await page.click('#profile-save');
    await page.waitForSelector('#profile-dialog', { state: 'detached' });
    expect(await viewer(reader.token)).toEqual({ name: 'Mia from a reader', email: MEMBER, timezone: 'Europe/Paris' });
    await expect.poll(() => page.textContent('#profile')).toContain('Mia from a reader');
  });
});
