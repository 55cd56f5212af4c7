/**
 * The issue page's long lists a page at a time, in Debian's headless chromium (an outside probe: the page read all
 * 1,505 comments of an issue, 7.1 MB, and again on every burst of live events): the newest 50 comments with the
 * count and "Show earlier comments"; a live comment re-reads only the newest page and keeps the earlier pages shown;
 * a burst of more than a page leaves a gap with a button that reads it; the timeline likewise ("Show older events").
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let url: string;
let browser: Browser;
let page: Page;
let issue: { id: string; key: string };
let ownerId: string;

/** Comments numbered from..to on the issue, one second apart (oldest first), in one statement. */
async function insertComments(from: number, to: number, base = "now() - interval '1 day'") {
  await t.pools.owner.query(
    `insert into app_public.comments (workspace_id, issue_id, author_user_id, body, created_at)
     select $1, $2, $3, 'Comment number ' || n, ${base} + n * interval '1 second' from generate_series($4::int, $5::int) n`,
    [ws.id, issue.id, ownerId, from, to]);
}

/** The comments each IssueLists read (the page's newest pages) returned, from now on. */
function newestReads(): number[] {
  const reads: number[] = [];
  page.on('response', async (res) => {
    if (!res.url().endsWith('/graphql') || !/query IssueLists/.test(res.request().postData() ?? '')) return;
    const body = await res.json().catch(() => null);
    if (body?.data?.comments) reads.push(body.data.comments.edges.length);
  });
  return reads;
}

const shownComments = () => page.$$eval('#comments .comment .markdown', (els) => els.map((e) => e.textContent!.trim()));
const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, n) => `Comment number ${from + n}`);

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'LONG');
  issue = await ok(t, ws.token, 'issues.create', { title: 'Talked about at length' });
  ownerId = (await t.pools.owner.query('select id from app_public.users where email = $1', [ws.ownerEmail])).rows[0].id;
  await insertComments(1, 230);
  // 120 events of the issue besides its creation: the timeline's first page is the newest 50.
  await t.pools.owner.query(
    `select app_private.record_event($1, 'ISSUE_PRIORITY_CHANGED', 'issue', $2, jsonb_build_object('from', 'LOW', 'to', 'HIGH', 'n', n))
     from generate_series(1, 120) n`, [ws.id, issue.id]);
  url = await t.listen();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${url}/#/issue/${issue.key}`);
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await page.fill('#key', ws.token, { timeout: 5000 });
  await page.click('#signin button[type=submit]');
  await page.waitForSelector(`main.issue[data-key="${issue.key}"]`);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the issue page reads its long lists a page at a time', () => {
  it('shows the newest 50 comments, oldest first, with the count; "Show earlier comments" reads the page before', async () => {
    await expect.poll(shownComments).toEqual(numbers(181, 230));
    expect(await page.textContent('#comments-count')).toBe('Showing the latest 50 of 230 comments');
    await page.click('#comments-earlier');
    await expect.poll(shownComments).toEqual(numbers(131, 230));
    expect(await page.textContent('#comments-count')).toBe('Showing 100 of 230 comments');
  });

  it('a live comment re-reads only the newest page, and the earlier pages stay', async () => {
    const reads = newestReads();
    const live = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'A live one' });
    await page.waitForSelector(`.comment[data-id="${live.id}"]`);
    // Comment 181 left the newest page (the last 50 after the kept ones); it is kept, not dropped.
    await expect.poll(shownComments).toEqual([...numbers(131, 230), 'A live one']);
    expect(await page.textContent('#comments-count')).toBe('Showing 101 of 231 comments');
    expect(reads.length).toBeGreaterThan(0);
    expect(Math.max(...reads)).toBeLessThanOrEqual(50);
  });

  it('a comment posted on the page shows at once', async () => {
    await page.fill('.new-comment textarea', 'Posted here');
    await page.click('.new-comment button[type=submit]');
    await expect.poll(async () => (await shownComments()).at(-1)).toBe('Posted here');
    expect((await shownComments()).length).toBe(102);
  });

  it('more than a page at once leaves a gap, shown with a button that reads it', async () => {
    const reads = newestReads();
    await insertComments(301, 370, 'now()');
    await expect.poll(async () => (await shownComments()).at(-1)).toBe('Comment number 370');
    // The newest 50 (321–370); 301–320 are not read yet, and the gap says so.
    await page.waitForSelector('#comments .gap button');
    expect((await shownComments()).slice(-51)).toEqual(['Posted here', ...numbers(321, 370)]);
    expect(Math.max(...reads)).toBeLessThanOrEqual(50);
    await page.click('#comments .gap button');
    await page.waitForSelector('#comments .gap', { state: 'detached' });
    expect(await shownComments()).toEqual([...numbers(131, 230), 'A live one', 'Posted here', ...numbers(301, 370)]);
    expect(await page.textContent('#comments-count')).toBe('Showing 172 of 302 comments');
  });

  it('reads back to the first comment, then the count goes', async () => {
    for (let n = 0; n < 3; n++) {
      await page.click('#comments-earlier:not([disabled])');
      await expect.poll(async () => (await shownComments())[0]).toBe(`Comment number ${Math.max(1, 131 - 50 * (n + 1))}`);
    }
    expect(await page.locator('#comments-earlier').count()).toBe(0);
    expect(await page.locator('#comments-count').count()).toBe(0);
    expect((await shownComments()).length).toBe(302);
  });

  it('a comment of an earlier page edited or deleted on the page changes there too (the live reads leave those pages alone)', async () => {
    const { rows: [first, second] } = await t.pools.owner.query(
      `select id from app_public.comments where issue_id = $1 and body in ('Comment number 1', 'Comment number 2') order by created_at`, [issue.id]);
    const one = page.locator(`.comment[data-id="${first!.id}"]`);
    await one.locator('.comment-edit').click();
    await one.locator('textarea').fill('Comment number 1, edited');
    await one.locator('button[type=submit]').click();
    await expect.poll(() => one.locator('.markdown').textContent()).toBe('Comment number 1, edited');
    const two = page.locator(`.comment[data-id="${second!.id}"]`);
    await two.locator('.comment-delete').click();
    await two.locator('.comment-delete-confirm').click();
    await page.waitForSelector(`.comment[data-id="${second!.id}"]`, { state: 'detached' });
    expect((await shownComments()).slice(0, 2)).toEqual(['Comment number 1, edited', 'Comment number 3']);
  });

  it('the timeline shows the newest 50 events, newest first, and "Show older events" reads more', async () => {
    const events = () => page.locator('#timeline li[data-kind]').count();
    // ISSUE_CREATED and the 120 inserted (comment events are the comments' own, not the issue's).
    expect(await page.textContent('#timeline-count')).toBe('Showing the latest 50 of 121 events');
    expect(await events()).toBe(50);
    await page.click('#timeline-earlier');
    await expect.poll(events).toBe(100);
    await page.click('#timeline-earlier:not([disabled])');
    await expect.poll(events).toBe(121);
    expect(await page.locator('#timeline li[data-kind]').last().getAttribute('data-kind')).toBe('ISSUE_CREATED');
    expect(await page.locator('#timeline-earlier').count()).toBe(0);
  });

  it('attachments and relations: the newest 50, the count, and a button for the rest', async () => {
    const other = await ok(t, ws.token, 'issues.create', { title: 'Linked from everywhere' });
    await t.pools.owner.query(
      `insert into app_public.attachments (workspace_id, kind, target_type, target_id, external_url, link_title, mime_type, created_at)
       select $1, 'LINK', 'issue', $2, 'https://example.com/' || n, 'Link ' || n, 'text/url', now() - interval '1 hour' + n * interval '1 second'
       from generate_series(1, 60) n`, [ws.id, other.id]);
    const items = Array.from({ length: 55 }, (_, n) => ({ title: `Blocked ${n + 1}` }));
    const made = await ok(t, ws.token, 'issues.createMany', { items });
    const ids: string[] = (made.items ?? made).map((i: { id: string }) => i.id);
    expect(ids.length).toBe(55);
    await t.pools.owner.query(
      `insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_at)
       select $1, $2, x.id, 'BLOCKS', now() - interval '1 hour' + x.n * interval '1 second' from unnest($3::uuid[]) with ordinality x(id, n)`,
      [ws.id, other.id, ids]);
    await page.goto(`${url}/#/issue/${other.key}`);
    await page.waitForSelector(`main.issue[data-key="${other.key}"]`);
    await expect.poll(() => page.locator('#attachments li a').count()).toBe(50);
    expect(await page.textContent('#attachments-count')).toBe('Showing the latest 50 of 60 attachments');
    expect(await page.locator('#attachments li a').first().textContent()).toBe('Link 11');
    await page.click('#attachments-earlier');
    await expect.poll(() => page.locator('#attachments li a').count()).toBe(60);
    expect(await page.locator('#attachments-count').count()).toBe(0);

    expect(await page.locator('#relations li a').count()).toBe(50);
    expect(await page.textContent('#relations-count')).toBe('Showing 50 of 55 relations');
    await page.click('#relations-earlier');
    await expect.poll(() => page.locator('#relations li a').count()).toBe(55);
    expect(await page.locator('#relations-count, #relations-earlier').count()).toBe(0);
  });
});
