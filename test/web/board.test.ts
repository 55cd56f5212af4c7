/**
 * The web board at GET / in Debian's headless chromium (playwright-core, no browser download): sign in with
 * a key, see the issues in status columns (read through /graphql), see an issue created over REST appear
 * within a second (SSE), drag a card to another column and see the status change over MCP, search.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let url: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'WEB');
  url = await t.listen();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = await browser.newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('web board', () => {
  it('serves the page with a strict CSP', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('refuses a bad key, signs in with a good one, shows the board, and updates live', async () => {
    const first = await ok(t, ws.token, 'issues.create', { title: 'Already there' });
    await page.goto(url);
    await page.fill('#key', 'svc_sk_nope');
    await page.click('#signin button[type=submit]');
    await expect.poll(() => page.textContent('#signin-error')).not.toBe('');

    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS', 'SUBSCRIBE_EVENTS'] });
    await page.fill('#key', key.token);
    await page.click('#signin button[type=submit]');
    await page.waitForSelector(`.card[data-id="${first.id}"]`);
    expect(await page.evaluate(() => sessionStorage.getItem('svc.key'))).toBe(key.token);
    expect(await page.textContent('#workspace')).toContain('WEB');
    const todo = page.locator('.column[data-category="TODO"]');
    expect(await todo.locator(`.card[data-id="${first.id}"]`).count()).toBe(1);
    await page.waitForSelector('#live:not([hidden])');

    // Created over REST: on the open board within a second, no reload.
    const created = await ok(t, ws.token, 'issues.create', { title: 'Made over REST' });
    await page.waitForSelector(`.card[data-id="${created.id}"]`, { timeout: 1000 });

    // Drag to IN_PROGRESS: the status changes (seen over MCP).
    await page.dragAndDrop(`.card[data-id="${created.id}"]`, '.column[data-category="IN_PROGRESS"]');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: created.id })).status.category, { timeout: 5000 }).toBe('IN_PROGRESS');
    await page.waitForSelector(`.column[data-category="IN_PROGRESS"] .card[data-id="${created.id}"]`);

    // Search narrows the board.
    await page.fill('#search', 'made ov');
    await expect.poll(() => page.locator('.card').count(), { timeout: 5000 }).toBe(1);
    await page.fill('#search', '');
    await expect.poll(() => page.locator('.card').count(), { timeout: 5000 }).toBe(2);

    // The key stays in this tab's session: a reload keeps the board.
    await page.reload();
    await page.waitForSelector(`.card[data-id="${first.id}"]`);
  }, 60_000);
});
