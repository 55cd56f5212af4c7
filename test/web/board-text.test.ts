/**
 * The web board with an outside tester's texts, in Debian's headless chromium: lengths counted in characters as the
 * service counts them (a search of "a" + 150 emoji was cut into a lone surrogate; a title of 300 emoji took no more
 * keystrokes) and once composed (NFC: 300 "o" + U+0308 are 300, not 600), names and paragraphs in Arabic and Hebrew
 * isolated and set right to left, a 200-emoji agent name and long labels that made every issue page scroll sideways,
 * a 100-character status that widened the list's status column and ran over the next column's header on the board,
 * and a comment that commits after a later one shown by the live refresh.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let url: string;
let browser: Browser;
let page: Page;
let ownerId: string;
const EMOJI = '😀';
const ROBOTS = '🤖'.repeat(200);
const LONG_STATUS = 'S'.repeat(100);

const openIssue = async (key: string) => {
  await page.goto(`${url}/#/issue/${key}`);
  await page.waitForSelector(`main.issue[data-key="${key}"]`);
};
/** Whether the page scrolls sideways (wider than the window). */
const sideways = () => page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth);
/** The characters of an element's text that are not spaces, each with its left edge as laid out. */
const charLefts = (selector: string) => page.$eval(selector, (el) => {
  const lefts: { c: string; x: number }[] = [];
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent!;
    for (let i = 0; i < text.length; i++) {
      if (/\s/.test(text[i]!)) continue;
      const r = document.createRange();
      r.setStart(n, i);
      r.setEnd(n, i + 1);
      lefts.push({ c: text[i]!, x: r.getBoundingClientRect().left });
    }
  }
  return lefts;
});

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'TXT');
  ownerId = (await t.pools.owner.query('select id from app_public.users where email = $1', [ws.ownerEmail])).rows[0].id;
  // Names ending in Arabic, read by the page at sign-in.
  await admin(t, 'update-user', { email: ws.ownerEmail, name: 'usr … مالك', json: true });
  await createAgent(t, ws, 'bot', { name: 'Bot روبوت' });
  url = await t.listen();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(10_000);
  await page.goto(`${url}/#/board`);
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await page.fill('#key', ws.token, { timeout: 5000 });
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#workspace:not(:text("Issue board"))');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('lengths in characters, as the service counts them', () => {
  it('a search in the address is cut by characters, never inside an emoji', async () => {
    const q = `a${EMOJI.repeat(150)}`; // 151 characters, 301 UTF-16 units: within the limit
    await page.goto(`${url}/#/board?q=${encodeURIComponent(q)}`);
    await page.waitForSelector('#board');
    await expect.poll(() => page.inputValue('#search')).toBe(q);
    await page.waitForTimeout(500);
    expect(await page.locator('.error:visible').allTextContents()).toEqual([]);
    expect(await page.locator('#address-notice').count()).toBe(0);

    const long = EMOJI.repeat(250);
    await page.goto(`${url}/#/list?q=${encodeURIComponent(long)}`);
    await expect.poll(() => page.inputValue('#search')).toBe(EMOJI.repeat(200));
    expect(await page.textContent('#address-notice')).toContain('cut to its first 200 characters');
    await page.waitForTimeout(500);
    expect(await page.locator('.error:visible').allTextContents()).toEqual([]);
  });

  it('the search box takes 200 characters, and past them says so (searching the first 200) instead of refusing keys', async () => {
    await page.goto(`${url}/#/board`);
    await page.waitForSelector('#board');
    await page.fill('#search', '');
    await page.focus('#search');
    await page.keyboard.insertText(EMOJI.repeat(150)); // maxLength 200 (UTF-16 units) took 100 of them
    expect(await page.inputValue('#search')).toBe(EMOJI.repeat(150));
    expect(await page.getAttribute('#search', 'maxlength')).toBeNull();
    expect(await page.locator('#search-too-long').count()).toBe(0);
    await page.keyboard.insertText(EMOJI.repeat(60));
    expect(await page.inputValue('#search')).toBe(EMOJI.repeat(210));
    expect(await page.textContent('#search-too-long')).toBe('A search can be at most 200 characters long (this one has 210). Searching its first 200.');
    // What is searched (and put in the address) is the first 200.
    await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toBe(`#/board?q=${EMOJI.repeat(200)}`);
    await page.waitForTimeout(500);
    expect(await page.locator('.error:visible').allTextContents()).toEqual([]);
    await page.fill('#search', '');
  });

  it('Edit title takes keystrokes on a title of 300 emoji; past 500 characters it says so and sends nothing', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: EMOJI.repeat(300) });
    await openIssue(issue.key);
    await page.click('#edit-title');
    await page.press('#title-input', 'End');
    await page.keyboard.insertText('!'); // maxLength 500 (UTF-16 units) took nothing more
    expect(await page.inputValue('#title-input')).toBe(`${EMOJI.repeat(300)}!`);
    expect(await page.getAttribute('#title-input', 'maxlength')).toBeNull();
    await page.press('#title-input', 'Enter');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).title).toBe(`${EMOJI.repeat(300)}!`);

    await page.click('#edit-title');
    await page.press('#title-input', 'End');
    await page.keyboard.insertText(EMOJI.repeat(200)); // 501 characters
    expect(await page.textContent('#title-too-long')).toBe('A title can be at most 500 characters long (this one has 501).');
    await page.press('#title-input', 'Enter');
    expect(await page.textContent('#issue-error')).toBe('Not saved: A title can be at most 500 characters long (this one has 501).');
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).title).toBe(`${EMOJI.repeat(300)}!`);
    await page.press('#title-input', 'Backspace'); // one character (an emoji) less: 500
    expect(await page.locator('#title-too-long').count()).toBe(0);
    await page.press('#title-input', 'Enter');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).title).toBe(`${EMOJI.repeat(300)}!${EMOJI.repeat(199)}`);
  });

  it('a new issue on the board takes a title of 300 emoji', async () => {
    await page.goto(`${url}/#/board`);
    await page.click('#board .column >> nth=0 >> button.add');
    const input = page.locator('.new-issue input');
    await input.focus();
    await page.keyboard.insertText(`${EMOJI.repeat(300)} new`);
    expect(await input.inputValue()).toBe(`${EMOJI.repeat(300)} new`);
    expect(await input.getAttribute('maxlength')).toBeNull();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.list', { query: 'new' })).items.some((i: { title: string }) => i.title === `${EMOJI.repeat(300)} new`)).toBe(true);
  });
});

describe('lengths counted once composed (NFC), as the service counts them', () => {
  const O = 'o\u0308'; // ö decomposed: two code points, one character once composed
  const E = 'e\u0301'; // é decomposed

  it('Edit title takes 300 decomposed ö (300 characters composed) and sends them composed', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'To be umlauted' });
    await openIssue(issue.key);
    await page.click('#edit-title');
    await page.fill('#title-input', '');
    await page.keyboard.insertText(O.repeat(300)); // 600 code points as typed: it said "(this one has 600)"
    expect(await page.inputValue('#title-input')).toBe(O.repeat(300));
    expect(await page.locator('#title-too-long').count()).toBe(0);
    await page.press('#title-input', 'Enter');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).title).toBe('ö'.repeat(300));
    expect(await page.locator('#issue-error').count()).toBe(0);
    // 501 once composed is still too long, and counted composed.
    await page.click('#edit-title');
    await page.fill('#title-input', '');
    await page.keyboard.insertText(O.repeat(501));
    expect(await page.textContent('#title-too-long')).toBe('A title can be at most 500 characters long (this one has 501).');
    await page.keyboard.press('Escape');
  });

  it('a new issue on the board takes a title of 300 decomposed ö', async () => {
    await page.goto(`${url}/#/board`);
    await page.click('#board .column >> nth=0 >> button.add');
    await page.locator('.new-issue input').focus();
    await page.keyboard.insertText(`${O.repeat(300)} fresh`);
    expect(await page.locator('.new-issue .too-long').count()).toBe(0);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.list', { query: 'fresh' })).items.some((i: { title: string }) => i.title === `${'ö'.repeat(300)} fresh`)).toBe(true);
  });

  it('a search of 150 decomposed é in the address is not cut, and all 150 are searched (composed)', async () => {
    await page.goto(`${url}/#/board?q=${encodeURIComponent(E.repeat(150))}`);
    await page.waitForSelector('#board');
    await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toBe(`#/board?q=${'é'.repeat(150)}`);
    expect(await page.locator('#address-notice').count()).toBe(0);
    expect(await page.inputValue('#search')).toBe('é'.repeat(150));
    // Typed decomposed in the box: 150 characters, not "too long", searched whole.
    await page.fill('#search', '');
    await page.focus('#search');
    await page.keyboard.insertText(E.repeat(150));
    await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toBe(`#/board?q=${'é'.repeat(150)}`);
    expect(await page.locator('#search-too-long').count()).toBe(0);
    await page.waitForTimeout(300);
    expect(await page.locator('.error:visible').allTextContents()).toEqual([]);
    await page.fill('#search', '');
  });
});

describe('names and paragraphs in another script', () => {
  it('an author and agent named in Arabic leave the comment\'s date in order; Arabic paragraphs are set right to left', async () => {
    const botKey = await createKey(t, ws, { agent: 'bot' });
    const issue = await ok(t, ws.token, 'issues.create', {
      title: 'عنوان بالعربية', description: 'مرحبا بالعالم. هذا وصف للمشكلة.\n\nAn English paragraph after it.',
    });
    const comment = await ok(t, botKey.token, 'comments.create', { issueId: issue.id, body: 'تم الإصلاح.' });
    await openIssue(issue.key);
    const header = `.comment[data-id="${comment.id}"] header`;
    await page.waitForSelector(`${header} .badge.agent`);
    expect(await page.textContent(`${header} .author`)).toBe('usr … مالك');
    // The date reads left to right after the names (it was "3:23:12 ,11/30/2026 … مالك PM").
    const date = await charLefts(`${header} > .meta`);
    expect(date.length).toBeGreaterThan(10);
    for (let n = 1; n < date.length; n++) expect(date[n]!.x, `${date.map((d) => d.c).join('')} at ${n}`).toBeGreaterThan(date[n - 1]!.x);
    const badge = await page.locator(`${header} .badge.agent`).boundingBox();
    expect(date[0]!.x).toBeGreaterThan(badge!.x + badge!.width);

    const directions = await page.$$eval('#description p', (ps) => ps.map((p) => [getComputedStyle(p).direction, p.getBoundingClientRect().right - p.getBoundingClientRect().left]));
    expect(directions.map((d) => d[0])).toEqual(['rtl', 'ltr']);
    expect(await page.$eval(`.comment[data-id="${comment.id}"] .markdown p`, (p) => getComputedStyle(p).direction)).toBe('rtl');
    expect(await page.$eval('#issue-title', (el) => getComputedStyle(el).unicodeBidi)).toBe('isolate');
    // What is typed takes its direction from its text too.
    expect(await page.getAttribute('.new-comment textarea', 'dir')).toBe('auto');
    await page.click('#edit-title');
    expect(await page.getAttribute('#title-input', 'dir')).toBe('auto');
    await page.keyboard.press('Escape');
  });
  it('a status named in Hebrew keeps its column header in order: the name, then its count', async () => {
    const status = await ok(t, ws.token, 'statuses.create', { name: 'בבדיקה שלב ב', category: 'IN_PROGRESS' });
    await ok(t, ws.token, 'issues.create', { title: 'Under review', statusId: status.id });
    await page.goto(`${url}/#/board`);
    await page.reload(); // the statuses as they are now
    const h2 = `#board .column[data-status="${status.id}"] h2`;
    await page.waitForSelector(`${h2} .count:text("1")`);
    // The name is isolated (it was bare text beside the count; an outside tester read "1 · בבדיקה שלב ב").
    expect(await page.$eval(h2, (el) => [...el.querySelectorAll('bdi')].map((b) => b.textContent))).toEqual(['בבדיקה שלב ב']);
    // Laid out: every letter of the name, then "·", then the count, left to right.
    const name = (await page.locator(`${h2} bdi`).boundingBox())!;
    const after = (await charLefts(h2)).filter((c) => '·1'.includes(c.c));
    expect(after.map((c) => c.c)).toEqual(['·', '1']);
    expect(after[0]!.x).toBeGreaterThanOrEqual(name.x + name.width - 0.5);
    expect(after[1]!.x).toBeGreaterThan(after[0]!.x);
    // The list's status cells too.
    await page.goto(`${url}/#/list`);
    await page.waitForSelector('main.list tbody tr');
    expect(await page.$$eval('main.list td.status', (tds) => tds.every((td) => td.querySelector('bdi')?.textContent === td.textContent))).toBe(true);
  });
});

describe('one long valid name does not widen the page', () => {
  /** An issue in a status, project and agent named at their longest (100, 200 and 200 characters), made once. */
  let made: Promise<{ key: string; statusId: string }> | undefined;
  const longest = () => (made ??= (async () => {
    const status = await ok(t, ws.token, 'statuses.create', { name: LONG_STATUS, category: 'IN_PROGRESS' });
    const project = await ok(t, ws.token, 'projects.create', { name: 'P'.repeat(200) });
    await createAgent(t, ws, 'long-a', { name: 'A'.repeat(200) });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'In the longest status', statusId: status.id, projectId: project.id });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'long-a' });
    await page.reload(); // the statuses and agents as they are now
    await page.waitForSelector('#workspace:not(:text("Issue board"))');
    return { key: issue.key as string, statusId: status.id as string };
  })());

  it('a 200-emoji agent and long labels: no page scrolls sideways at 1400 px or 390 px', async () => {
    await createAgent(t, ws, 'robots', { name: ROBOTS });
    const labels = [];
    for (const name of ['ل'.repeat(100), 'x'.repeat(100), `${'long label '.repeat(8)}end`]) labels.push((await ok(t, ws.token, 'labels.create', { name })).id);
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Labelled at length', labelIds: labels });
    const assigned = await ok(t, ws.token, 'issues.create', { title: 'Given to the robots' });
    await ok(t, ws.token, 'issues.assign', { id: assigned.id, profileKey: 'robots' });
    const long = await longest();
    for (const width of [1400, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const hash of [`#/issue/${issue.key}`, `#/issue/${assigned.key}`, '#/board', '#/list', '#/agents']) {
        await page.goto(`${url}/${hash}`);
        await page.waitForSelector('main:not(:has-text("Loading"))');
        if (hash.startsWith('#/issue/')) await page.waitForSelector('#issue-agent');
        if (hash === '#/board') await page.waitForSelector(`.card[data-key="${long.key}"]`);
        if (hash === '#/list') await page.waitForSelector(`main.list tr[data-key="${long.key}"]`);
        await page.waitForTimeout(200);
        expect(await sideways(), `${hash} at ${width} px`).toBeLessThanOrEqual(0);
      }
      await page.goto(`${url}/#/issue/${issue.key}`);
      await page.waitForSelector('#issue-agent');
      // The selects and the label chips stay inside the sidebar (a chip's whole name is in its tooltip).
      const aside = (await page.locator('aside.side').boundingBox())!;
      const chips = await page.$$eval('#labels .label', (els) => els.map((e) => e.getBoundingClientRect().right));
      expect(chips).toHaveLength(3);
      for (const right of [...chips, ...await Promise.all(['#issue-agent', '#issue-status'].map(async (sel) => {
        const box = (await page.locator(sel).boundingBox())!;
        return box.x + box.width;
      }))]) expect(right, `at ${width} px`).toBeLessThanOrEqual(aside.x + aside.width);
      expect(await page.locator(`#labels .label[title="${'x'.repeat(100)}"]`).count()).toBe(1);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('a 100-character status and 200-character agent widen no list column: the title keeps its width, nothing scrolls sideways', async () => {
    const { statusId } = await longest();
    for (const width of [1400, 1024, 800, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${url}/#/list`);
      const row = page.locator('main.list tr', { hasText: 'In the longest status' });
      await row.waitFor();
      const at = `at ${width} px`;
      expect(await sideways(), at).toBeLessThanOrEqual(0);
      // The list itself does not scroll sideways either (it was 1229 px wide in a 768 px list at 800 px).
      expect(await page.$eval('main.list', (el) => el.scrollWidth - el.clientWidth), at).toBeLessThanOrEqual(0);
      const widths = await page.$eval('main.list table', (table) => Object.fromEntries(
        [...table.querySelectorAll('thead th')].map((th) => [th.className, th.getBoundingClientRect().width]).concat([['table', table.getBoundingClientRect().width]])));
      // The status column was 909 px at 1400 px (the title 181 px; 57 px at 1024 and 800 px).
      if (width >= 1024) expect(widths.title!, at).toBeGreaterThanOrEqual(0.4 * widths.table!);
      else expect(widths.title!, at).toBeGreaterThanOrEqual(0.25 * widths.table!);
      expect(widths.status!, at).toBeLessThanOrEqual(240);
      if (width > 760) expect(widths.assignee!, at).toBeLessThanOrEqual(260);
      // The status is cut with "…" inside its cell, all of it in the tooltip.
      const cell = row.locator('td.status');
      expect(await cell.locator(`[title="${LONG_STATUS}"]`).count(), at).toBe(1);
      expect(await cell.evaluate((td) => { const b = td.getBoundingClientRect(); return [...td.querySelectorAll('*')].every((e) => e.getBoundingClientRect().right <= b.right + 0.5); }), at).toBe(true);
      // Statuses of ordinary length ("In Progress", a Hebrew one) are not cut, also on a phone.
      const cutShort = await page.$$eval('main.list td.status .name', (els, longName) => els
        .filter((e) => e.textContent !== longName && e.scrollWidth > e.clientWidth).map((e) => e.textContent), LONG_STATUS);
      expect(cutShort, at).toEqual([]);
    }
    // The board: the long status's header stays inside its column, its count and "+" in view.
    for (const width of [1400, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${url}/#/board`);
      const column = `#board .column[data-status="${statusId}"]`;
      await page.waitForSelector(`${column} .card`);
      const at = `at ${width} px`;
      expect(await page.$eval(`${column} h2`, (h) => h.scrollWidth - h.clientWidth), at).toBeLessThanOrEqual(0);
      const box = (await page.locator(column).boundingBox())!;
      for (const part of ['h2', 'h2 .count', 'h2 button.add', `h2 [title="${LONG_STATUS}"]`]) {
        const b = (await page.locator(`${column} ${part}`).boundingBox())!;
        expect(b.x + b.width, `${part} ${at}`).toBeLessThanOrEqual(box.x + box.width);
      }
      // No column's header runs over the next.
      const headers = await page.$$eval('#board .column h2', (hs) => hs.map((h) => {
        const r = h.getBoundingClientRect();
        return { left: r.left, right: Math.max(r.right, ...[...h.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right)) };
      }));
      for (let n = 1; n < headers.length; n++) expect(headers[n - 1]!.right, at).toBeLessThanOrEqual(headers[n]!.left);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  });
});

describe('the live refresh', () => {
  it('shows a comment that commits after a later one (its place is before the last one kept), and "Show earlier" still reads the rest', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Written to at once' });
    // Comment n was written at `base` + n seconds; "Late 11.5" half a second after comment 11.
    const base = new Date(Date.now() - 86_400_000).toISOString();
    const insert = (body: string, seconds: number) => t.pools.owner.query(
      `insert into app_public.comments (workspace_id, issue_id, author_user_id, body, created_at)
       values ($1, $2, $3, $4, $5::timestamptz + $6 * interval '1 second')`, [ws.id, issue.id, ownerId, body, base, seconds]);
    await t.pools.owner.query(
      `insert into app_public.comments (workspace_id, issue_id, author_user_id, body, created_at)
       select $1, $2, $3, 'Comment ' || n, $4::timestamptz + n * interval '1 second' from generate_series(1, 60) n`, [ws.id, issue.id, ownerId, base]);
    const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, n) => `Comment ${from + n}`);
    const shown = () => page.$$eval('#comments .comment .markdown', (els) => els.map((e) => e.textContent!.trim()));
    await openIssue(issue.key);
    await expect.poll(shown).toEqual(numbers(11, 60));

    // Written before comment 12 but committed now (its insert's event makes the page read again): comment 11 leaves
    // the newest page and is kept; the late one shows in its place, once.
    await insert('Late 11.5', 11.5);
    await expect.poll(shown).toEqual([...numbers(11, 11), 'Late 11.5', ...numbers(12, 60)]);
    // Another, before the last row kept (11.5) in the order but in the newest page.
    await insert('Late 30.5', 30.5);
    await expect.poll(shown).toEqual([...numbers(11, 11), 'Late 11.5', ...numbers(12, 30), 'Late 30.5', ...numbers(31, 60)]);
    expect(await page.textContent('#comments-count')).toBe('Showing 52 of 62 comments');
    await page.click('#comments-earlier');
    await expect.poll(shown).toEqual([...numbers(1, 11), 'Late 11.5', ...numbers(12, 30), 'Late 30.5', ...numbers(31, 60)]);
    expect(await page.locator('#comments-count, #comments-earlier, #comments .gap').count()).toBe(0);
  });
});
