/**
 * The web board for keyboard and screen-reader users, after an outside probe that used it with the keyboard only and
 * read Chromium's accessibility tree (docs/decisions.md, "The board for the keyboard and screen readers"): where the
 * focus goes after an action and on a view change (and back), the issue page's way back to where it was opened from,
 * the list's selection as the focus, what the live region says, fields tied to their messages, shortcuts that can be
 * turned off, names and roles, the issue page's headings, and Escape in its editors. In Debian's headless chromium.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let url: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let backlog: { id: string; name: string };
let todo: { id: string; name: string };
let done: { id: string; name: string };
let a11y: { id: string };
let bug: { id: string };
/** An issue in Todo with a priority and two labels, and one with comments to edit. */
let chip: { id: string; key: string };
let talk: { id: string; key: string };
const BULK = 120;
/** The key field's aria-invalid and aria-describedby once a bad key was refused. */
let signInRefused: (string | null)[];

/** What has the focus: "BODY", or the element's tag, id and classes. */
const focused = () => page.evaluate(() => {
  const e = document.activeElement;
  if (e?.tagName === 'H1') return 'H1';
  return !e || e === document.body ? 'BODY' : `${e.tagName}${e.id ? `#${e.id}` : ''}${typeof e.className === 'string' && e.className ? `.${e.className.split(' ').join('.')}` : ''}`;
});
const focusedIs = (selector: string) => page.evaluate((s) => document.activeElement === document.querySelector(s), selector);
/** What the page's live region says now. */
const said = async () => (await page.textContent('#announcer'))?.trim();

/** A node of Chromium's accessibility tree: its role, name, description and states (CDP, as screen readers get it). */
async function ax(selector: string) {
  const cdp = await context.newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    if (!nodeId) throw new Error(`no ${selector}`);
    const { node } = await cdp.send('DOM.describeNode', { nodeId });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    const n = nodes.find((x) => x.backendDOMNodeId === node.backendNodeId)!;
    return {
      role: n.role?.value as string, name: n.name?.value as string | undefined, description: n.description?.value as string | undefined,
      states: Object.fromEntries((n.properties ?? []).map((p) => [p.name, p.value.value])),
    };
  } finally {
    await cdp.detach();
  }
}

async function signIn(token: string, hash = '#/board') {
  await page.goto(`${url}/${hash}`);
  await page.evaluate(() => { sessionStorage.clear(); localStorage.clear(); });
  await page.reload();
  await page.fill('#key', token, { timeout: 5000 });
  await page.keyboard.press('Enter');
  await page.waitForSelector('#workspace:not(:text("Issue board"))', { timeout: 5000 });
}

const openIssue = async (key: string) => {
  await page.goto(`${url}/#/issue/${key}`);
  await page.waitForSelector(`main.issue[data-key="${key}"]`);
};
const column = (status: { id: string }) => `#board .column[data-status="${status.id}"]`;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'AX');
  const statuses: { id: string; name: string; category: string }[] = await ok(t, ws.token, 'statuses.list', {});
  backlog = statuses.find((s) => s.category === 'BACKLOG')!;
  todo = statuses.find((s) => s.category === 'TODO')!;
  done = statuses.find((s) => s.category === 'DONE')!;
  a11y = await ok(t, ws.token, 'labels.create', { name: 'a11y', color: '#0c66e4' });
  bug = await ok(t, ws.token, 'labels.create', { name: 'bug', color: '#c9372c' });
  for (let from = 0; from < BULK; from += 100) {
    const items = Array.from({ length: Math.min(100, BULK - from) }, (_, n) => ({ title: `Routine chore ${from + n}`, statusId: backlog.id }));
    await ok(t, ws.token, 'issues.createMany', { items });
  }
  chip = await ok(t, ws.token, 'issues.create', { title: 'Dark mode toggle missing', statusId: todo.id, priority: 'HIGH', labelIds: [a11y.id, bug.id] });
  talk = await ok(t, ws.token, 'issues.create', { title: 'Talked over', statusId: todo.id, description: 'Words' });
  url = await t.listen();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(url);
  // A bad key first: the field is tied to what is said about it.
  await page.fill('#key', 'svc_sk_nope');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#signin-error:not(:empty)');
  signInRefused = [await page.getAttribute('#key', 'aria-invalid'), await page.getAttribute('#key', 'aria-describedby')];
  await signIn((await createKey(t, ws, { kind: 'PERSONAL' })).token);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the board', () => {
  it('a refused key is tied to what is said about it', () => {
    expect(signInRefused).toEqual(['true', 'signin-error']);
  });

  it('columns are regions named by their status, holding a list of cards whose names say priority and labels in words', async () => {
    await page.goto(`${url}/#/board`);
    await page.waitForSelector(`${column(todo)} .card[data-id="${chip.id}"]`);
    expect(await ax(column(backlog))).toMatchObject({ role: 'region', name: `${backlog.name}, 50 or more issues` });
    // The heading says the count with its noun, and not the "+" button's name.
    expect((await ax(`${column(backlog)} h2`)).name).toBe(`${backlog.name}, 50 or more issues`);
    expect((await ax(`${column(todo)} h2`)).name).toBe(`${todo.name}, 2 issues`);
    expect((await ax(`${column(todo)} ul.cards`)).role).toBe('list');
    expect((await ax(`${column(todo)} ul.cards > li`)).role).toBe('listitem');
    const card = await ax(`.card[data-id="${chip.id}"]`);
    expect(card.role).toBe('link');
    expect(card.name).toMatch(new RegExp(`^${chip.key} Dark mode toggle missing ?, priority HIGH, labels: a11y, bug`));
    // Each "Show more" is named by its column.
    expect((await ax(`${column(backlog)} button.more`)).name).toBe(`Show more in ${backlog.name}`);
    expect(await ax('#live')).toMatchObject({ role: 'status' });
  });

  it('at 390 and 800 px only the board scrolls sideways, not the page (the cards\' hidden names widened it)', async () => {
    // A card with a priority and labels (their names are the hidden text) in the last column, gone again after.
    const far = await ok(t, ws.token, 'issues.create', { title: 'Far to the right', statusId: done.id, priority: 'HIGH', labelIds: [a11y.id, bug.id] });
    for (const width of [390, 800]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${url}/#/board`);
      await page.waitForSelector(`${column(done)} .card`);
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth), `${width} px`).toBeLessThanOrEqual(0);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await ok(t, ws.token, 'issues.delete', { id: far.id });
  });

  it('"Show more" says what it read, and its last page hands the focus to the first card it brought', async () => {
    await page.goto(`${url}/#/board`);
    const more = `${column(backlog)} button.more`;
    await page.waitForSelector(more);
    await page.focus(more);
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe(`${backlog.name}: 100 or more issues`);
    expect(await focusedIs(more)).toBe(true); // the button stays, and the focus on it
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe(`${backlog.name}: ${BULK} issues`);
    await expect.poll(() => page.locator(more).count()).toBe(0);
    await expect.poll(() => page.evaluate((sel) => document.activeElement === document.querySelectorAll(sel)[100], `${column(backlog)} .card`)).toBe(true);
  });

  it('a filter and a search say what they find; Clear, the notice\'s × and Enter or Escape in the search box keep the focus', async () => {
    await page.goto(`${url}/#/board`);
    await page.waitForSelector(`.card[data-id="${chip.id}"]`);
    await page.selectOption('select[name="priority"]', 'HIGH');
    await expect.poll(said).toBe('1 issue');
    await page.focus('.filters button.link');
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedIs('select[name="project"]')).toBe(true);
    await expect.poll(said).toMatch(/^\d+ or more issues$/);

    await page.focus('#search');
    await page.keyboard.type('Dark mode');
    await expect.poll(said).toBe('1 issue');
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('INPUT#search');
    await page.keyboard.press('Escape');
    expect([await focused(), await page.inputValue('#search')]).toEqual(['INPUT#search', 'Dark mode']);
    await page.fill('#search', '');

    await page.goto(`${url}/#/board?priority=nope`);
    await page.waitForSelector('#address-notice');
    await page.focus('#address-notice button');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#address-notice').count()).toBe(0);
    await expect.poll(focused).toBe('INPUT#search');
  });

  it('creating an issue with "+" is said', async () => {
    await page.goto(`${url}/#/board`);
    await page.focus(`${column(todo)} button.add`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${column(todo)} .new-issue input:focus`);
    await page.keyboard.type('Made from the keyboard');
    await page.keyboard.press('Enter');
    await expect.poll(said).toMatch(new RegExp(`^AX-\\d+ created in ${todo.name}$`));
    expect(await focusedIs(`${column(todo)} button.add`)).toBe(true);
  });

  it('a new issue\'s title past its limit is tied to the message saying so', async () => {
    await page.goto(`${url}/#/board`);
    await page.focus(`${column(todo)} button.add`);
    await page.keyboard.press('Enter');
    await page.fill(`${column(todo)} .new-issue input`, 'x'.repeat(510));
    const input = `${column(todo)} .new-issue input`;
    expect(await page.getAttribute(input, 'aria-invalid')).toBe('true');
    const described = await page.getAttribute(input, 'aria-describedby');
    expect(await page.textContent(`#${described}`)).toContain('at most 500 characters');
    await page.keyboard.press('Escape');
  });

  it('a card moved to another column by someone else keeps the focus', async () => {
    const moving = await ok(t, ws.token, 'issues.create', { title: 'Moved under my feet', statusId: todo.id });
    await page.goto(`${url}/#/board`);
    const card = `.card[data-id="${moving.id}"]`;
    await page.waitForSelector(`${column(todo)} ${card}`);
    await page.focus(card);
    await ok(t, ws.token, 'issues.transition', { id: moving.id, statusId: done.id });
    await page.waitForSelector(`${column(done)} ${card}`);
    await expect.poll(() => focusedIs(`${column(done)} ${card}`)).toBe(true);
  });

  it('opening a card focuses the issue\'s h1; back on the board the focus and the scroll are where they were', async () => {
    await page.goto(`${url}/#/board?q=chore`);
    const card = `${column(backlog)} .card >> nth=40`;
    await page.waitForSelector(card);
    await page.locator(card).focus();
    const key = await page.locator(card).getAttribute('data-key');
    const y = await page.evaluate(() => scrollY);
    expect(y).toBeGreaterThan(500);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`main.issue[data-key="${key}"]`);
    await expect.poll(focused).toBe('H1');
    // Its way back is the board it came from, search included.
    expect([await page.textContent('main.issue > p > a'), await page.getAttribute('main.issue > p > a', 'href')]).toEqual(['← Board', '#/board?q=chore']);
    await page.goBack();
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.key)).toBe(key);
    expect(Math.abs(await page.evaluate(() => scrollY) - y)).toBeLessThan(5);
    // The link back does the same.
    await page.keyboard.press('Enter');
    await page.waitForSelector(`main.issue[data-key="${key}"]`);
    await page.focus('main.issue > p > a');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.key)).toBe(key);
    expect(page.url()).toBe(`${url}/#/board?q=chore`);
  });
});

describe('the list', () => {
  const row = () => page.evaluate(() => document.activeElement?.closest('main.list tbody tr')?.getAttribute('data-key') ?? null);
  const keys = () => page.locator('main.list tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));

  it('j and the arrows move the focus to the row\'s link, so Enter opens it; the arrows scroll the page elsewhere', async () => {
    await page.goto(`${url}/#/board`);
    await page.waitForSelector('#board .card');
    await page.focus('#nav-list');
    await page.keyboard.press('Enter');
    await page.waitForSelector('main.list tbody tr');
    await expect.poll(focused).toBe('H1'); // the new view's heading, not the nav link
    // Outside the list the arrows are the page's: they scroll it and move no selection.
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(0);
    expect(await row()).toBeNull();
    const all = await keys();
    expect(await page.locator('main.list tr[aria-selected]').count()).toBe(0);
    await page.keyboard.press('j');
    expect(await row()).toBe(all[1]);
    await page.keyboard.press('ArrowDown');
    expect(await row()).toBe(all[2]);
    await page.keyboard.press('k');
    expect(await row()).toBe(all[1]);
    // The row's link is read with its title and status.
    expect((await ax('main.list tr.selected td.key a')).description).toMatch(/^\S.* \S/);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`main.issue[data-key="${all[1]}"]`);
    await expect.poll(focused).toBe('H1');
    // Back: the row opened has the focus again.
    await page.goBack();
    await expect.poll(row).toBe(all[1]);
  });

  it('"Load more" says what it read, and its last page hands the focus to the first row it brought', async () => {
    await page.goto(`${url}/#/list`);
    await page.waitForSelector('main.list button.more');
    await page.focus('main.list button.more');
    await page.keyboard.press('Enter');
    await expect.poll(said).toMatch(/^1\d\d issues shown$/);
    await expect.poll(() => page.locator('main.list button.more').count()).toBe(0);
    const all = await keys();
    await expect.poll(row).toBe(all[100]);
  });

  it('"← Issues" goes back to the list with its filters', async () => {
    await page.goto(`${url}/#/list?label=${a11y.id}`);
    await expect.poll(() => page.locator('main.list tbody tr').count()).toBe(1);
    await page.keyboard.press('j'); // one row: j stays on it, with the focus
    expect(await row()).toBe(chip.key);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`main.issue[data-key="${chip.key}"]`);
    expect([await page.textContent('main.issue > p > a'), await page.getAttribute('main.issue > p > a', 'href')]).toEqual(['← Issues', `#/list?label=${a11y.id}`]);
    await page.focus('main.issue > p > a');
    await page.keyboard.press('Enter');
    await expect.poll(row).toBe(chip.key);
    expect(await page.inputValue('select[name="label"]')).toBe(a11y.id);
  });

  it('the single-key shortcuts can be turned off, and stay off', async () => {
    await page.goto(`${url}/#/list`);
    await page.waitForSelector('main.list tbody tr');
    await page.focus('#shortcuts');
    await page.keyboard.press('Space');
    expect(await page.isChecked('#shortcuts')).toBe(false);
    await page.reload();
    await page.waitForSelector('main.list tbody tr');
    expect(await page.isChecked('#shortcuts')).toBe(false);
    expect(await page.textContent('main.list .hint')).not.toContain('j/k');
    await page.focus('main.list h1');
    await page.keyboard.press('j');
    await page.keyboard.press('/');
    expect(await focused()).toBe('H1');
    // The arrows, not character keys, still move in the list.
    await page.focus('main.list tr.selected td.key a');
    const all = await keys();
    await page.keyboard.press('ArrowDown');
    expect(await row()).toBe(all[1]);
    await page.focus('#shortcuts');
    await page.keyboard.press('Space');
    await page.focus('main.list h1');
    await page.keyboard.press('/');
    expect(await focused()).toBe('INPUT#search');
  });
});

describe('the issue page', () => {
  it('headings go h1, then an h2 for each section in the order of the page', async () => {
    await openIssue(talk.key);
    const headings = await page.$$eval('main.issue :is(h1, h2, h3, h4)', (hs) => hs.map((h) => `${h.tagName} ${h.textContent}`));
    expect(headings).toEqual([`H1 ${talk.key} Talked over`, 'H2 Details', 'H2 Relations', 'H2 Attachments', 'H2 Description', 'H2 Timeline', 'H2 Comments']);
  });

  it('removing a label leaves the focus on the next ×, then on "Add a label…"; adding and removing are said', async () => {
    await openIssue(chip.key);
    await expect.poll(focused).toBe('H1');
    await page.focus('.remove-label[aria-label="Remove the label a11y"]');
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Label a11y removed');
    await expect.poll(() => focusedIs('.remove-label[aria-label="Remove the label bug"]')).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Label bug removed');
    await expect.poll(focused).toBe('SELECT#issue-add-label');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Label a11y added');
  });

  it('a status held by the keyboard is named "Status", its hint a description; the save is said', async () => {
    await openIssue(chip.key);
    await page.focus('#issue-status');
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('#issue-status-pending');
    expect(await ax('#issue-status')).toMatchObject({ name: 'Status', description: 'Enter to save, Esc to undo' });
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Status saved');
    expect(await focused()).toBe('SELECT#issue-status');
  });

  it('the description editor: Escape, Cancel and Save give the focus back to "Edit description"', async () => {
    await openIssue(talk.key);
    for (const leave of ['Escape', 'Cancel', 'Save description']) {
      await page.focus('#edit-description');
      await page.keyboard.press('Enter');
      await expect.poll(focused).toBe('TEXTAREA#description-input');
      if (leave === 'Escape') await page.keyboard.press('Escape');
      else {
        await page.keyboard.type(' more');
        await page.focus(`.md-editor button:text-is("${leave}")`);
        await page.keyboard.press('Enter');
      }
      await expect.poll(focused).toBe('BUTTON#edit-description.link.section-tool');
    }
    await expect.poll(said).toBe('Description saved');
  });

  it('a blank title is tied to what is said about it', async () => {
    await openIssue(talk.key);
    await page.focus('#edit-title');
    await page.keyboard.press('Enter');
    await page.fill('#title-input', '   ');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getAttribute('#title-input', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#title-input', 'aria-describedby')).toBe('issue-error');
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe('BUTTON#edit-title.link');
  });

  it('posting a comment, and a refused one, leave the focus in the box; the refusal is tied to it', async () => {
    await openIssue(talk.key);
    await page.fill('.new-comment textarea', 'x'.repeat(100_001));
    await page.focus('.new-comment button[type=submit]');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#comment-error')).toMatch(/^Not posted: A comment can be at most 100,000/);
    await expect.poll(() => focusedIs('.new-comment textarea')).toBe(true);
    expect([await page.getAttribute('.new-comment textarea', 'aria-invalid'), await page.getAttribute('.new-comment textarea', 'aria-describedby')]).toEqual(['true', 'comment-error']);
    await page.fill('.new-comment textarea', 'First words');
    await page.focus('.new-comment button[type=submit]');
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Comment posted');
    await expect.poll(() => focusedIs('.new-comment textarea')).toBe(true);
    expect(await page.getAttribute('.new-comment textarea', 'aria-invalid')).toBeNull();
  });

  it('a comment\'s Edit and Delete are named by it; Escape, Save, "Keep it" and Delete put the focus somewhere sensible', async () => {
    const c = await ok(t, ws.token, 'comments.create', { issueId: talk.id, body: 'To be changed' });
    await openIssue(talk.key);
    const at = `.comment[data-id="${c.id}"]`;
    await page.waitForSelector(`${at} .comment-edit`);
    expect((await ax(`${at} .comment-edit`)).name).toMatch(/^Edit comment by .+ at .+/);
    expect((await ax(`${at} .comment-delete`)).name).toMatch(/^Delete comment by .+ at .+/);

    await page.focus(`${at} .comment-edit`);
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe(`TEXTAREA#comment-input-${c.id}`);
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedIs(`${at} .comment-edit`)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe(`TEXTAREA#comment-input-${c.id}`);
    await page.keyboard.type(', changed');
    await page.focus(`${at} .md-editor button[type=submit]`);
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Comment saved');
    await expect.poll(() => focusedIs(`${at} .comment-edit`)).toBe(true);

    await page.focus(`${at} .comment-delete`);
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedIs(`${at} .comment-delete-confirm`)).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedIs(`${at} .comment-delete`)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedIs(`${at} .comment-delete-confirm`)).toBe(true);
    await page.focus(`${at} .confirm button:text-is("Keep it")`);
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedIs(`${at} .comment-delete`)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedIs(`${at} .comment-delete-confirm`)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Comment deleted');
    await expect.poll(() => page.locator(at).count()).toBe(0);
    await expect.poll(() => focusedIs('.new-comment textarea')).toBe(true);
  });
});

// After an outside re-test (each fails without its fix). Each test removes what it made: earlier tests count cards.
describe('after the re-test', () => {
  /** An element's box inside the board's visible part and the window. */
  const inView = () => page.evaluate(() => {
    const r = document.activeElement!.getBoundingClientRect();
    const board = document.querySelector('main')!.getBoundingClientRect();
    return r.left >= board.left && r.right <= board.right + 1 && r.top >= 0 && r.bottom <= innerHeight + 1;
  });

  it('a refused Save in the description or comment editor leaves the focus in its textarea, tied to the message; Escape still leaves', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Refused edits', statusId: done.id });
    const c = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'Keep me' });
    await openIssue(issue.key);
    await page.focus('#edit-description');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('TEXTAREA#description-input');
    await page.fill('#description-input', 'x'.repeat(100_001));
    await page.focus('.md-editor button[type=submit]');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#issue-error')).toBe('Not saved: A description can be at most 100,000 characters long.');
    await expect.poll(focused).toBe('TEXTAREA#description-input');
    expect([await page.getAttribute('#description-input', 'aria-invalid'), await page.getAttribute('#description-input', 'aria-describedby')]).toEqual(['true', 'issue-error']);
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe('BUTTON#edit-description.link.section-tool');

    // An emptied comment, saved from its preview: back in the textarea (Write again).
    const at = `.comment[data-id="${c.id}"]`;
    await page.focus(`${at} .comment-edit`);
    await page.keyboard.press('Enter');
    await page.fill(`#comment-input-${c.id}`, '  ');
    await page.focus(`${at} .preview-toggle`);
    await page.keyboard.press('Enter');
    await page.focus(`${at} .md-editor button[type=submit]`);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#comment-error')).toBe('Not saved: A comment cannot be empty (Delete removes it).');
    await expect.poll(focused).toBe(`TEXTAREA#comment-input-${c.id}`);
    expect(await page.getAttribute(`#comment-input-${c.id}`, 'aria-describedby')).toBe('comment-error');
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedIs(`${at} .comment-edit`)).toBe(true);
    await ok(t, ws.token, 'issues.delete', { id: issue.id });
  });

  it('each editor\'s message is its own, and goes when its editor closes', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Own messages', statusId: done.id });
    await openIssue(issue.key);
    await page.focus('#edit-description');
    await page.keyboard.press('Enter');
    await page.fill('#description-input', 'x'.repeat(100_001));
    await page.focus('.md-editor button[type=submit]');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#issue-error')).toMatch(/^Not saved: A description/);
    // "Edit title" opened meanwhile: the title is not refused (it was, with the description's message).
    await page.focus('#edit-title');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('INPUT#title-input');
    await expect.poll(() => page.locator('#issue-error').count()).toBe(0);
    expect([await page.getAttribute('#title-input', 'aria-invalid'), await page.getAttribute('#title-input', 'aria-describedby')]).toEqual([null, null]);
    // A blank title's message goes with Escape (it stayed until a later write succeeded).
    await page.fill('#title-input', '   ');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#issue-error')).toBe('Not saved: A title cannot be empty.');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#issue-error').count()).toBe(0);
    await ok(t, ws.token, 'issues.delete', { id: issue.id });
  });

  it('labels added with the keyboard one after another each take; the last one hands the focus to its ×', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Labelled by keys', statusId: done.id });
    await openIssue(issue.key);
    await page.focus('#issue-add-label');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Label a11y added');
    // Back on its placeholder (it showed nothing, and the next ArrowDown chose the placeholder).
    await expect.poll(() => page.$eval('#issue-add-label', (s) => (s as HTMLSelectElement).selectedIndex)).toBe(0);
    expect(await focused()).toBe('SELECT#issue-add-label');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Label bug added');
    // No label left to add: the select goes, and the focus to the new label's ×.
    await expect.poll(() => page.locator('#issue-add-label').count()).toBe(0);
    await expect.poll(() => focusedIs('.remove-label[aria-label="Remove the label bug"]')).toBe(true);
    await ok(t, ws.token, 'issues.delete', { id: issue.id });
  });

  it('Accept and Decline are named by their request, say what they did, and hand the focus on', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Asked twice', statusId: done.id });
    const first = await ok(t, ws.token, 'actionRequests.create', { issueId: issue.id, title: 'First ask', kind: 'FREE_FORM' });
    const second = await ok(t, ws.token, 'actionRequests.create', { issueId: issue.id, title: 'Second ask', kind: 'FREE_FORM' });
    await openIssue(issue.key);
    const button = (r: { id: string }, which: string) => `.request[data-id="${r.id}"] button.${which}`;
    await page.waitForSelector(button(first, 'accept'));
    expect((await ax(button(first, 'accept'))).name).toBe('Accept “First ask”');
    expect((await ax(button(second, 'decline'))).name).toBe('Decline “Second ask”');
    // The newest first: the second, then the first.
    await page.focus(button(second, 'accept'));
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Accepted: Second ask');
    await expect.poll(() => focusedIs(button(first, 'accept'))).toBe(true);
    await page.focus(button(first, 'decline'));
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Declined: First ask');
    await expect.poll(focused).toBe('H2#requests-title');
    expect((await ax('#requests-title')).name).toBe('Requests');
    await ok(t, ws.token, 'issues.delete', { id: issue.id });
  });

  it('"Show earlier comments" says how many came, and its last page hands the focus to the first comment it brought', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Talked at length', statusId: done.id });
    const owner = (await t.pools.owner.query('select id from app_public.users where email = $1', [ws.ownerEmail])).rows[0].id;
    const { rows } = await t.pools.owner.query(
      `insert into app_public.comments (workspace_id, issue_id, author_user_id, body, created_at)
       select $1, $2, $3, 'Comment number ' || n, now() - interval '1 day' + n * interval '1 second' from generate_series(1, 56) n returning id, body`,
      [ws.id, issue.id, owner]);
    const oldest = rows.find((r: { body: string }) => r.body === 'Comment number 1').id;
    await openIssue(issue.key);
    await page.focus('#comments-earlier');
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('6 more comments shown');
    await expect.poll(() => page.locator('#comments-earlier').count()).toBe(0);
    await expect.poll(() => focusedIs(`.comment[data-id="${oldest}"]`)).toBe(true);
    await ok(t, ws.token, 'issues.delete', { id: issue.id });
  });

  it('the way back is where the issue was opened from: a board, Agents, else the list', async () => {
    const back = async () => [await page.textContent('main.issue > p > a'), await page.getAttribute('main.issue > p > a', 'href')];
    await page.goto(`${url}/#/board?q=Talked`);
    const card = `.card[data-id="${talk.id}"]`;
    await page.waitForSelector(card);
    await page.focus(card);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`main.issue[data-key="${talk.key}"]`);
    expect(await back()).toEqual(['← Board', '#/board?q=Talked']);
    await page.focus('#nav-agents');
    await page.keyboard.press('Enter');
    await page.waitForSelector('main.agents');
    await page.evaluate((key) => { location.hash = `#/issue/${key}`; }, chip.key);
    await page.waitForSelector(`main.issue[data-key="${chip.key}"]`);
    expect(await back()).toEqual(['← Agents', '#/agents']); // it said "← Board", to #/board?q=Talked
    // From one issue to another the way back stays.
    await page.evaluate((key) => { location.hash = `#/issue/${key}`; }, talk.key);
    await page.waitForSelector(`main.issue[data-key="${talk.key}"]`);
    expect(await back()).toEqual(['← Agents', '#/agents']);
    await page.evaluate(() => { location.hash = '#/nowhere'; });
    await page.waitForSelector('main.notfound');
    await page.evaluate((key) => { location.hash = `#/issue/${key}`; }, chip.key);
    await page.waitForSelector(`main.issue[data-key="${chip.key}"]`);
    expect(await back()).toEqual(['← Issues', '#/list']);
  });

  it('back on the board at 390 px, a card that moved to a column off to the right is scrolled into view', async () => {
    const moving = await ok(t, ws.token, 'issues.create', { title: 'Moved while open', statusId: todo.id });
    await page.setViewportSize({ width: 390, height: 800 });
    try {
      await page.goto(`${url}/#/board`);
      const card = `.card[data-id="${moving.id}"]`;
      await page.waitForSelector(`${column(todo)} ${card}`);
      await page.focus(card);
      await page.keyboard.press('Enter');
      await page.waitForSelector(`main.issue[data-key="${moving.key}"]`);
      await ok(t, ws.token, 'issues.transition', { id: moving.id, statusId: done.id });
      await page.goBack();
      await expect.poll(() => focusedIs(`${column(done)} ${card}`)).toBe(true);
      expect(await inView()).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await ok(t, ws.token, 'issues.delete', { id: moving.id });
    }
  });

  it('a focused card deleted by someone else hands the focus to the next card in its column, else to its "+"', async () => {
    const made = [
      await ok(t, ws.token, 'issues.create', { title: 'Vanishing one', statusId: done.id }),
      await ok(t, ws.token, 'issues.create', { title: 'Vanishing two', statusId: done.id }),
    ];
    await page.goto(`${url}/#/board?q=Vanishing`);
    // The two alone (the render right after the address is followed still shows the search before it).
    const shown = () => page.$$eval(`${column(done)} .card`, (cards) => cards.map((c) => (c as HTMLElement).dataset.id!));
    await expect.poll(async () => (await shown()).sort()).toEqual(made.map((i) => i.id).sort());
    const [first, next] = await shown();
    await page.focus(`.card[data-id="${first}"]`);
    await ok(t, ws.token, 'issues.delete', { id: first });
    await expect.poll(() => page.locator(`.card[data-id="${first}"]`).count()).toBe(0);
    await expect.poll(() => focusedIs(`.card[data-id="${next}"]`)).toBe(true);
    await ok(t, ws.token, 'issues.delete', { id: next });
    await expect.poll(() => page.locator(`.card[data-id="${next}"]`).count()).toBe(0);
    await expect.poll(() => focusedIs(`${column(done)} button.add`)).toBe(true);
  });

  it('names shown in CSS capitals are read in their own case', async () => {
    await openIssue(talk.key);
    expect((await ax('main.issue aside')).name).toBe('Details');
    expect((await ax('main.issue aside > h2:nth-of-type(2)')).name).toBe('Relations');
    expect((await ax('main.issue aside > h2:nth-of-type(3)')).name).toBe('Attachments');
    await page.goto(`${url}/#/list`);
    await page.waitForSelector('main.list tbody tr');
    expect((await ax('select[name="project"]')).name).toBe('Project');
    expect((await ax('select[name="label"]')).name).toBe('Label');
    expect((await ax('main.list th.key')).name).toBe('Key');
  });

  it('the dispatch figures\' labels are read in their own case', async () => {
    await page.goto(`${url}/#/agents`);
    await page.waitForSelector('#dispatch dl.stats');
    expect((await ax('#dispatch [data-stat="assignments"] dt')).name).toBe('Assignments');
    expect((await ax('#dispatch [data-stat="wait"] dt')).name).toBe('Queue to assignment p50 / p90');
    // Nor is their text in capitals anywhere in the tree (it was, as each label's name and its text).
    const cdp = await context.newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree', {});
    await cdp.detach();
    const read = nodes.filter((n) => !n.ignored).map((n) => n.name?.value);
    expect(read).not.toContain('ASSIGNMENTS');
    expect(read).not.toContain('WATCHDOG ALERTS');
  });

  it('a poll\'s votes are named by their request, and say what they did', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Polled', statusId: done.id });
    const poll = await ok(t, ws.token, 'actionRequests.create', { issueId: issue.id, title: 'Which one?', options: [{ key: 'a', label: 'Alpha' }, { key: 'b', label: 'Beta' }] });
    await openIssue(issue.key);
    const vote = (key: string) => `.request[data-id="${poll.id}"] button.vote[data-option="${key}"]`;
    await page.waitForSelector(vote('a'));
    expect((await ax(vote('a'))).name).toBe('Alpha · 0 “Which one?”');
    expect((await ax(vote('b'))).name).toBe('Beta · 0 “Which one?”');
    await page.focus(vote('b'));
    await page.keyboard.press('Enter');
    await expect.poll(said).toBe('Voted for Beta');
    await expect.poll(() => ax(vote('b')).then((n) => n.name)).toBe('Beta · 1 “Which one?”');
    expect(await focusedIs(vote('b'))).toBe(true);
    await ok(t, ws.token, 'issues.delete', { id: issue.id });
  });
});
