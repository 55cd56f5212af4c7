/**
 * The web board at GET / in Debian's headless chromium (playwright-core, no browser download), one browser
 * and one page for the file: sign in, the board (filters, drag to another column and the status seen over
 * MCP, an issue created over REST on the open board within a second), search, the list's keyboard
 * navigation, the issue page (markdown rendered, HTML in it not executed), the agents view (a poll voted
 * on, a request accepted, both checked over MCP; the dispatch and pipeline dashboards, an agent's timeline, webhook
 * health for an admin only), and a project-narrowed key that sees only its issues.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchWorkspace } from '../../src/dispatch/tasks.ts';
import { admin, createAgent, createKey, createWorkspace, ok, rest, startTestApp, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';
import { seedBoardDemo } from '../support/board-demo.ts';

let t: TestApp;
let ws: Workspace;
let url: string;
let browser: Browser;
let page: Page;
let demo: Awaited<ReturnType<typeof seedBoardDemo>>;
const BOARD_SCOPES = ['READ_ISSUES', 'WRITE_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'WRITE_COMMENTS', 'READ_USERS', 'SUBSCRIBE_EVENTS'] as const;

async function signIn(token: string) {
  await page.evaluate(() => sessionStorage.clear());
  await page.goto(`${url}#/board`);
  await page.reload();
  await page.fill('#key', token, { timeout: 5000 });
  await page.click('#signin button[type=submit]');
  await page.waitForSelector('#board .column', { timeout: 5000 });
}

let agentKey: { token: string };
beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'WEB');
  await createAgent(t, ws, 'coder');
  agentKey = await createKey(t, ws, { agent: 'coder' });
  demo = await seedBoardDemo((token, tool, input) => ok(t, token, tool, input), ws.token, agentKey.token, 'coder');
  url = await t.listen();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = await browser.newPage();
  // Shorter than the test timeout, so a wait that never ends names its own line.
  page.setDefaultTimeout(10_000);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const cards = () => page.locator('#board .card').count();

describe('web board', () => {
  it('serves the page and the bundle with a strict CSP', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.body).not.toMatch(/<script>|style=/);
    const js = await t.app.inject({ method: 'GET', url: '/web/app.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect((await t.app.inject({ method: 'GET', url: '/web/app.css' })).statusCode).toBe(200);
  });

  it('refuses a bad key, signs in, shows the board, updates live, and drags a card (seen over MCP)', async () => {
    await page.goto(url);
    await page.fill('#key', 'svc_sk_nope');
    await page.click('#signin button[type=submit]');
    await expect.poll(() => page.textContent('#signin-error')).not.toBe('');

    const key = await createKey(t, ws, { scopes: [...BOARD_SCOPES] });
    await page.fill('#key', key.token);
    await page.click('#signin button[type=submit]');
    await page.waitForSelector(`.card[data-id="${demo.login.id}"]`);
    expect(await page.evaluate(() => sessionStorage.getItem('svc.key'))).toBe(key.token);
    expect(await page.textContent('#workspace')).toContain('WEB');
    expect(await page.title()).toBe('Board · ' + (await ok(t, ws.token, 'workspace.get', {})).name);
    expect(await cards()).toBe(5);
    // Labels on the cards; a key that may write sees no read-only badge and cards that move.
    expect(await page.textContent(`.card[data-id="${demo.login.id}"] .labels`)).toContain('bug');
    expect(await page.locator('#readonly').count()).toBe(0);
    expect(await page.getAttribute(`.card[data-id="${demo.login.id}"]`, 'draggable')).toBe('true');
    await page.waitForSelector('#live.live:not(.off)');

    // Created over REST: on the open board within a second, no reload.
    const created = await ok(t, ws.token, 'issues.create', { title: 'Made over REST' });
    await page.waitForSelector(`.column[data-category="TODO"] .card[data-id="${created.id}"]`, { timeout: 1000 });

    // Drag to IN_PROGRESS: the status changes (seen over MCP), through the issuesUpdate mutation.
    await page.dragAndDrop(`.card[data-id="${created.id}"]`, '.column[data-category="IN_PROGRESS"]');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: created.id })).status.category, { timeout: 5000 }).toBe('IN_PROGRESS');
    await page.waitForSelector(`.column[data-category="IN_PROGRESS"] .card[data-id="${created.id}"]`);
    // A lane is as tall as the board: dropped near the bottom of the short TODO lane, far below its cards, it lands.
    const lane = (await page.locator('.column[data-category="TODO"]').boundingBox())!;
    expect(lane.height).toBeGreaterThan(400);
    await page.dragAndDrop(`.card[data-id="${created.id}"]`, '.column[data-category="TODO"]', { targetPosition: { x: lane.width / 2, y: lane.height - 20 } });
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: created.id })).status.category, { timeout: 5000 }).toBe('TODO');
    // The board shows the card where it was dropped, then re-reads: drag again once it shows TODO steadily (a drag
    // while the re-read was under way started from the column the card had been in, and did nothing).
    let steady = 0;
    await expect.poll(async () => {
      steady = (await page.locator(`.column[data-category="TODO"] .card[data-id="${created.id}"]`).count()) ? steady + 1 : 0;
      return steady;
    }, { interval: 150, timeout: 5000 }).toBeGreaterThanOrEqual(4);
    // Where the card is after every change of the board: once dropped it stays in its new column (it flicked back
    // to the old one between the write and the re-read that shows it).
    await page.evaluate((id) => {
      const seen: string[] = [];
      (window as { __columns?: string[] }).__columns = seen;
      new MutationObserver(() => {
        const at = document.querySelector(`.card[data-id="${id}"]`)?.closest<HTMLElement>('.column')?.dataset.category ?? 'none';
        if (seen.at(-1) !== at) seen.push(at);
      }).observe(document.getElementById('board')!, { childList: true, subtree: true });
    }, created.id);
    await page.dragAndDrop(`.card[data-id="${created.id}"]`, '.column[data-category="IN_PROGRESS"]');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: created.id })).status.category, { timeout: 5000 }).toBe('IN_PROGRESS');
    await page.waitForTimeout(1000); // the write's own event re-reads the board too
    expect(await page.evaluate(() => (window as { __columns?: string[] }).__columns)).toEqual(['IN_PROGRESS']);
    const events = await ok(t, ws.token, 'events.recent', { limit: 20 });
    expect(JSON.stringify(events)).toContain('ISSUE_STATUS_CHANGED');
  });

  it('under a stream of events the board re-reads five times, then about every 3 s (its six calls from 120 a minute), and leaves the header alone', async () => {
    await page.waitForSelector('#live.live:not(.off)');
    const reads: string[] = [];
    const count = (r: { url(): string; postData(): string | null }) => {
      if (r.url().endsWith('/graphql')) reads.push(/query (\w+)/.exec(r.postData() ?? '')?.[1] ?? 'other');
    };
    page.on('request', count);
    const flooded = await ok(t, ws.token, 'issues.create', { title: 'Flooded 0' });
    const started = Date.now();
    for (let i = 1; i <= 24; i++) {
      await ok(t, ws.token, 'issues.update', { id: flooded.id, title: `Flooded ${i}` });
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (Date.now() - started) / 1000;
    // The last change still shows, soon after the stream goes quiet.
    await page.waitForSelector(`.card[data-id="${flooded.id}"]:has-text("Flooded 24")`, { timeout: 4000 });
    page.off('request', count);
    const boards = reads.filter((q) => q === 'Board').length;
    expect(boards).toBeGreaterThanOrEqual(2);
    expect(boards).toBeLessThanOrEqual(5 + Math.ceil(seconds / 3) + 1);
    expect(reads.filter((q) => q === 'Meta')).toEqual([]);
    // The tests after this one count the demo's cards.
    await ok(t, ws.token, 'issues.delete', { id: flooded.id });
    await page.waitForSelector(`.card[data-id="${flooded.id}"]`, { state: 'detached', timeout: 5000 });
  });

  it('filters by project, label, assignee, priority and the current sprint', async () => {
    const only = async (name: string, value: string, ids: string[]) => {
      await page.selectOption(`select[name="${name}"]`, value);
      await expect.poll(cards).toBe(ids.length);
      for (const id of ids) expect(await page.locator(`.card[data-id="${id}"]`).count()).toBe(1);
      await page.selectOption(`select[name="${name}"]`, '');
    };
    await only('project', demo.docs.id, [demo.guide.id, (await ok(t, ws.token, 'issues.list', { query: 'rate limit headers' })).items[0].id]);
    await only('label', demo.bug.id, [demo.login.id]);
    await only('priority', 'HIGH', [demo.search.id]);
    await only('assignee', `agent:${(await ok(t, ws.token, 'agents.list', {})).items?.[0]?.id ?? (await ok(t, ws.token, 'agents.list', {}))[0].id}`, [demo.login.id]);
    // The cycle filter offers the current sprint first.
    const firstCycle = await page.locator('select[name="cycle"] option').nth(1).textContent();
    expect(firstCycle).toContain('Current sprint (Sprint 1)');
    await only('cycle', demo.sprint.id, [demo.login.id, demo.search.id]);
    await expect.poll(cards).toBe(6);
    // The filters and the search are in the address: a reload (or the link, shared) shows the same board.
    await page.selectOption('select[name="label"]', demo.bug.id);
    await page.fill('#search', 'login');
    await expect.poll(() => page.url()).toBe(`${url}/#/board?label=${demo.bug.id}&q=login`);
    await page.reload();
    await page.waitForSelector(`.card[data-id="${demo.login.id}"]`);
    expect([await cards(), await page.inputValue('select[name="label"]'), await page.inputValue('#search')]).toEqual([1, demo.bug.id, 'login']);
    await page.selectOption('select[name="label"]', '');
    await page.fill('#search', '');
    await expect.poll(() => page.url()).toBe(`${url}/#/board`);
    await expect.poll(cards).toBe(6);
    // An address followed without a reload (a link, back, forward) brings its filters too; the nav links carry them.
    await page.evaluate((label) => { location.hash = `#/board?label=${label}`; }, demo.bug.id);
    await expect.poll(cards).toBe(1);
    expect(await page.inputValue('select[name="label"]')).toBe(demo.bug.id);
    expect(await page.getAttribute('#nav-list', 'href')).toBe(`#/list?label=${demo.bug.id}`);
    await page.goBack();
    await expect.poll(cards).toBe(6);
    expect(await page.inputValue('select[name="label"]')).toBe('');
  });

  it('searches, and the list moves with j/k and the arrows, opens with Enter, / focuses the search', async () => {
    await page.fill('#search', 'made ov');
    await expect.poll(cards, { timeout: 5000 }).toBe(1);
    await page.fill('#search', '');
    await expect.poll(cards, { timeout: 5000 }).toBe(6);

    await page.click('#nav-list');
    await page.waitForSelector('main.list tbody tr');
    const selected = () => page.getAttribute('main.list tr.selected', 'data-key');
    const keys = await page.locator('main.list tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
    expect(await selected()).toBe(keys[0]);
    await page.keyboard.press('j');
    await page.keyboard.press('ArrowDown');
    expect(await selected()).toBe(keys[2]);
    await page.keyboard.press('k');
    expect(await selected()).toBe(keys[1]);
    // Back from an issue, the list is where it was.
    await page.click('main.list tr.selected td.key a');
    await page.waitForSelector(`main.issue[data-key="${keys[1]}"]`);
    await page.goBack();
    await page.waitForSelector('main.list tbody tr');
    expect(await selected()).toBe(keys[1]);
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search');
    await page.keyboard.type('login');
    await expect.poll(() => page.locator('main.list tbody tr').count(), { timeout: 5000 }).toBe(1);
    await page.keyboard.press('Escape'); // keeps what it searches, and the focus
    expect(await page.inputValue('#search')).toBe('login');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search');
    expect(await selected()).toBe(demo.login.key);
    // The selected row's link is the list's one Tab stop: Tab gets there past the filters, and Enter opens it.
    for (let n = 0; n < 20 && !(await page.evaluate(() => Boolean(document.activeElement?.closest('main.list tbody')))); n++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-key'))).toBe(demo.login.key);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`main.issue[data-key="${demo.login.key}"]`);
  });

  it('shows the issue page: markdown rendered safely, assignee, comments with agent and confidence, relations, attachments, the run and its timeline', async () => {
    expect(await page.textContent('#issue-title')).toBe('Login fails with long passwords');
    // The tab's title follows the page's render (an effect): polled, not read at once.
    await expect.poll(() => page.title()).toMatch(new RegExp(`^${demo.login.key} Login fails with long passwords · `));
    // A re-read of the workspace (its rename here) keeps the issue's title in the tab: two effects wrote it, and
    // the header's, run after the page's, left "WEB-1 · Workspace" (a CI flake when any meta event arrived).
    const wsName = (await ok(t, ws.token, 'workspace.get', {})).name;
    await ok(t, ws.token, 'workspace.updateSettings', { name: 'Renamed WEB' });
    await expect.poll(() => page.title(), { timeout: 3000 }).toBe(`${demo.login.key} Login fails with long passwords · Renamed WEB`);
    await ok(t, ws.token, 'workspace.updateSettings', { name: wsName });
    await expect.poll(() => page.title(), { timeout: 3000 }).toBe(`${demo.login.key} Login fails with long passwords · ${wsName}`);
    expect(await page.locator('#description > h2').textContent()).toBe('Steps');
    expect(await page.locator('#description strong').first().textContent()).toBe('login');
    // GFM: a table (agents write reports in it) and strikethrough.
    expect(await page.locator('#description table td').allTextContents()).toEqual(['64', 'ok', '72', 'ok fails']);
    expect(await page.locator('#description del').textContent()).toBe('ok');
    // Raw HTML is shown as text, never parsed or run; the javascript: link loses its URL.
    expect(await page.locator('#description script, #description img').count()).toBe(0);
    expect(await page.textContent('#description')).toContain('<script>');
    // A tag on a line of its own does not turn the markdown after it into raw text.
    expect(await page.locator('#description strong', { hasText: 'after html' }).count()).toBe(1);
    expect(await page.locator('#description .dropped-link', { hasText: 'a link' }).count()).toBe(1);
    expect(await page.locator('#description a[href^="javascript"]').count()).toBe(0);
    // An image from another site is a link to it, not a request to that site.
    expect(await page.locator('#description a.external-image').getAttribute('href')).toBe('https://example.com/d.png');
    expect(await page.textContent('#description a.external-image')).toBe('diagram (image)');
    // One whose URL was dropped keeps its text, and links nowhere.
    expect(await page.locator('#description a[href=""]').count()).toBe(0);
    expect(await page.locator('#description .dropped-link', { hasText: 'trap' }).count()).toBe(1);
    // A dangerous link with a title too (it became <a href="" title>, which reloaded the app).
    expect(await page.locator('#description .dropped-link', { hasText: 'titled' }).count()).toBe(1);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    // A footnote scrolls to its note on the page; the address stays the issue's (it went to a page "user-content-fn-1").
    const issueHash = await page.evaluate(() => location.hash);
    await page.locator('#description a[href="#user-content-fn-1"]').click();
    expect(await page.evaluate(() => location.hash)).toBe(issueHash);
    expect(await page.locator('main.notfound').count()).toBe(0);
    expect(await page.textContent('#description')).toContain('Anything after the 72nd byte is ignored.');

    expect(await page.textContent('#assignee')).toContain('Agent: coder');
    expect(await page.textContent('#labels')).toContain('bug');
    const agentComment = page.locator('.comment', { hasText: 'Reproduced' });
    expect(await agentComment.textContent()).toMatch(/via agent coder.*confidence HIGH/);
    expect(await agentComment.locator('strong').last().textContent()).toBe('72 bytes');
    expect(await page.textContent('#relations')).toContain(demo.search.key);
    expect(await page.textContent('#attachments')).toContain('Incident 42');
    // What done means: the expected output and the checklist, not done yet.
    expect(await page.locator('#contract strong').textContent()).toBe('128 bytes');
    expect(await page.textContent('#contract .checklist li[data-id="regression"]')).toBe('☐ A regression test for 72 bytes');
    expect(await page.textContent('#run .mode')).toBe('EXECUTE');
    expect(await page.textContent('#run .step')).toBe('Reproducing with a 72-byte password');
    expect(await page.textContent('#run .tokens')).toContain('21660');
    expect(await page.textContent('#run .cost')).toBe('$0.1275');
    expect(await page.locator('#timeline li').count()).toBeGreaterThan(2);
    expect(await page.locator('#timeline li[data-kind="ISSUE_UPDATED"]', { hasText: 'linked: blocks' }).count()).toBe(1);

    // Live: a comment posted over MCP appears without a reload; one written here lands over GraphQL.
    await ok(t, ws.token, 'comments.create', { issueId: demo.login.id, body: 'Posted over *MCP*' });
    await page.waitForSelector('.comment em:text("MCP")', { timeout: 2000 });
    await page.fill('.new-comment textarea', 'Written in the **browser**');
    await page.click('.new-comment button[type=submit]');
    await expect.poll(async () => (await ok(t, ws.token, 'comments.list', { issueId: demo.login.id })).items[0].body).toBe('Written in the **browser**');
    await page.selectOption('#issue-priority', 'LOW');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: demo.login.id })).priority).toBe('LOW');
    // The timeline says what changed, not only the kind of change.
    await expect.poll(() => page.locator('#timeline li[data-kind="ISSUE_PRIORITY_CHANGED"]').first().textContent()).toContain('priority URGENT → LOW');
    expect(await page.locator('#timeline li[data-kind="AGENT_ASSIGNED"]').first().textContent()).toMatch(/assigned to coder/);
    // In words a person reads, not the API's field names or event kinds.
    await ok(t, ws.token, 'issues.update', { id: demo.login.id, dueDate: '2027-01-15' });
    await expect.poll(() => page.locator('#timeline li[data-kind="ISSUE_UPDATED"]').first().textContent()).toContain('changed due date');
    expect(await page.locator('#timeline li[data-kind="ISSUE_CREATED"]').textContent()).toMatch(/ created$/);
    // The agent's usage reports move the run's figures live; they are not timeline lines.
    const runId = (await ok(t, ws.token, 'runs.list', { issueId: demo.login.id })).items[0].id;
    await ok(t, agentKey.token, 'runs.recordUsage', { runId, tokensIn: 30_000, costUsd: 0.2, currentStep: 'Writing the regression test' });
    await expect.poll(() => page.textContent('#run .step'), { timeout: 2000 }).toBe('Writing the regression test');
    expect(await page.textContent('#run .tokens')).toContain('33410');
    expect(await page.textContent('#run .cost')).toBe('$0.2000');
    expect(await page.locator('#timeline li[data-kind="AGENT_RUN_UPDATED"]').count()).toBe(0);
  });

  it('agents view: presence and work, a poll voted on and a request accepted (checked over MCP)', async () => {
    await page.click('#nav-agents');
    await page.waitForSelector('#agents tr[data-agent="coder"]');
    const row = page.locator('#agents tr[data-agent="coder"]');
    expect(await row.locator('.presence').textContent()).toBe('BUSY');
    expect(await row.textContent()).toContain(demo.login.key);

    const poll = page.locator(`.request[data-id="${demo.poll.id}"]`);
    await poll.locator('button.vote[data-option="256"]').click();
    await expect.poll(async () => (await ok(t, ws.token, 'actionRequests.results', { id: demo.poll.id })).myVote).toBe('256');
    await page.waitForSelector(`.request[data-id="${demo.poll.id}"] button.vote.mine[data-option="256"]`);

    await page.locator(`.request[data-id="${demo.card.id}"] button.accept`).click();
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: demo.guide.id })).status.category).toBe('DONE');
    await page.waitForSelector(`.request[data-id="${demo.card.id}"]`, { state: 'detached' });

    // Presence changes arrive live.
    agentKey = await createKey(t, ws, { agent: 'coder' });
    await ok(t, agentKey.token, 'agents.heartbeat', { status: 'OFFLINE' });
    await page.waitForSelector('#agents tr[data-agent="coder"] .presence:text("OFFLINE")', { timeout: 2000 });
    // An open issue still assigned once its run finished shows as the agent's, without a run (it showed "—").
    const handed = await ok(t, ws.token, 'issues.assign', { id: demo.search.id, profileKey: 'coder' });
    await ok(t, agentKey.token, 'runs.complete', { runId: handed.currentRun.id, summary: 'Looked into it', verificationResult: [] });
    await page.waitForSelector(`#agents tr[data-agent="coder"] .assigned:has-text("${demo.search.key}")`, { timeout: 3000 });
    expect(await page.locator('#agents tr[data-agent="coder"] .assigned').first().textContent()).toContain('assigned, no open run');
    // A run whose issue a person closed stays open until its agent completes it: the row says so.
    const closing = await ok(t, ws.token, 'issues.create', { title: 'Closed under the agent' });
    await ok(t, ws.token, 'issues.assign', { id: closing.id, profileKey: 'coder' });
    const done = (await ok(t, ws.token, 'statuses.list', {})).find((st: { category: string }) => st.category === 'DONE');
    await ok(t, ws.token, 'issues.transition', { id: closing.id, statusId: done.id });
    await page.waitForSelector(`#agents tr[data-agent="coder"] div:has-text("${closing.key}") .closed-issue`, { timeout: 3000 });
    expect(await page.locator(`#agents tr[data-agent="coder"] div:has-text("${closing.key}") .closed-issue`).textContent()).toContain(`${done.name}, run still open`);
  });

  it('creates an issue in a column: its status, the board\'s filters (here a label), seen over MCP and on the board', async () => {
    await page.click('#nav-board');
    await page.fill('#search', ''); // the search test left "login" in it
    // Wait for the cleared search to land (it is debounced).
    await expect.poll(cards).toBeGreaterThan(1);
    await page.selectOption('select[name="label"]', demo.bug.id);
    await expect.poll(cards).toBe(1);
    await page.click('.column[data-category="BACKLOG"] h2 button.add');
    await page.fill('.column[data-category="BACKLOG"] .new-issue input', 'Created on the board');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.list', { query: 'created on the board' })).items.length).toBe(1);
    const made = (await ok(t, ws.token, 'issues.list', { query: 'created on the board' })).items[0];
    expect([made.status.category, made.labelIds]).toEqual(['BACKLOG', [demo.bug.id]]);
    await page.waitForSelector(`.column[data-category="BACKLOG"] .card[data-id="${made.id}"]`);
    expect(await page.locator('.new-issue').count()).toBe(0);
    // An empty title creates nothing; Escape closes the form.
    await page.click('.column[data-category="TODO"] h2 button.add');
    await page.waitForSelector('.column[data-category="TODO"] .new-issue input:focus'); // focused by its effect
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.new-issue').count()).toBe(0);
    await page.selectOption('select[name="label"]', '');
    // A search landing while the form is open leaves it open, with what was typed in it.
    await page.click('.column[data-category="TODO"] h2 button.add');
    await page.fill('.column[data-category="TODO"] .new-issue input', 'Half typed');
    await page.fill('#search', 'nothing-matches-this');
    await expect.poll(cards).toBe(0);
    expect(await page.inputValue('.column[data-category="TODO"] .new-issue input')).toBe('Half typed');
    await page.press('.column[data-category="TODO"] .new-issue input', 'Escape');
    await page.fill('#search', '');
    await expect.poll(cards).toBeGreaterThan(1);
  });

  it('the issue page assigns an agent, claims and releases for the signed-in person, and queues for the dispatcher (each seen over MCP)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Hand me to an agent' });
    const coderId = (await ok(t, ws.token, 'agents.list', {})).find((a: { profileKey: string }) => a.profileKey === 'coder').id;
    await page.goto(`${url}#/issue/${issue.key}`);
    await page.waitForSelector(`main.issue[data-key="${issue.key}"]`);
    expect(await page.textContent('#assignee')).toBe('Nobody');
    await page.selectOption('#issue-agent', coderId);
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgentId).toBe(coderId);
    expect((await ok(t, ws.token, 'runs.list', { issueId: issue.id })).items[0]).toMatchObject({ status: 'ACTIVE', engagementMode: 'EXECUTE' });
    await expect.poll(() => page.textContent('#assignee')).toContain('Agent: coder');
    // The select offers the other agents only; the assigned one is its placeholder.
    expect(await page.locator(`#issue-agent option[value="${coderId}"]`).count()).toBe(0);

    const me = (await ok(t, ws.token, 'members.list', {})).items.find((m: { user: { email: string } }) => m.user.email === ws.ownerEmail).userId;
    await page.click('#issue-claim');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).claimedById).toBe(me);
    await expect.poll(() => page.textContent('#issue-claim')).toBe('Release');
    await page.click('#issue-claim');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).claimedById).toBeNull();
    await expect.poll(() => page.textContent('#issue-claim')).toBe('Claim');

    await page.check('#issue-queued');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).queued).toBe(true);
    const kinds = (await subjectEvents(t, ws.token, 'issue', issue.id)).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['ISSUE_ASSIGNED', 'AGENT_ASSIGNED', 'ISSUE_QUEUED']));
    // Unassigning ends the agent's run.
    await page.selectOption('#issue-agent', 'none');
    await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgentId).toBeNull();
    await expect.poll(() => page.textContent('#assignee')).toBe('Nobody');
    expect(await page.locator('#issue-agent option[value="none"]').count()).toBe(0);
  });

  it('a key narrowed to one project sees only its issues; the tab keeps its key across a reload', async () => {
    const narrowed = await createKey(t, ws, { scopes: [...BOARD_SCOPES], projects: [demo.docs.id] });
    await page.click('#signout', { timeout: 5000 });
    await page.waitForSelector('#signin', { timeout: 5000 });
    await signIn(narrowed.token);
    await page.waitForSelector(`.card[data-id="${demo.guide.id}"]`, { timeout: 5000 });
    expect(await cards()).toBe(2);
    expect(await page.locator(`.card[data-id="${demo.login.id}"]`).count()).toBe(0);
    await page.goto(`${url}#/issue/${demo.login.key}`);
    await page.waitForSelector('main.page .empty', { timeout: 5000 });
    await page.reload();
    await page.waitForSelector('main.page .empty', { timeout: 5000 });
    await page.click('#nav-board');
    await page.waitForSelector(`.card[data-id="${demo.guide.id}"]`, { timeout: 5000 });
    expect(await cards()).toBe(2);
    // Live within its view: an issue made in its project appears, and goes when it moves to another project.
    await page.waitForSelector('#live.live:not(.off)');
    const passing = await ok(t, ws.token, 'issues.create', { title: 'Passing through Docs', projectId: demo.docs.id });
    await page.waitForSelector(`.card[data-id="${passing.id}"]`, { timeout: 1000 });
    await ok(t, ws.token, 'issues.update', { id: passing.id, projectId: demo.platform.id });
    await page.waitForSelector(`.card[data-id="${passing.id}"]`, { state: 'detached', timeout: 1000 });
    expect(await cards()).toBe(2);
    // "+" with no project filter files the issue in the key's project (without it the service refuses it: narrowing).
    await page.click('.column[data-category="TODO"] h2 button.add');
    await page.fill('.column[data-category="TODO"] .new-issue input', 'Filed by a narrowed key');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.column[data-category="TODO"] .card:has-text("Filed by a narrowed key")', { timeout: 3000 });
    const filed = (await ok(t, ws.token, 'issues.list', { query: 'filed by a narrowed key' })).items[0];
    expect(filed.projectId ?? filed.project?.id).toBe(demo.docs.id);
    await ok(t, ws.token, 'issues.delete', { id: filed.id });
    await page.waitForSelector(`.card[data-id="${filed.id}"]`, { state: 'detached', timeout: 3000 });
  });

  it('a read-only key gets no controls it may not use: cards do not move, no status, priority, comment or vote controls', async () => {
    const readOnly = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS', 'SUBSCRIBE_EVENTS'] });
    await page.click('#signout', { timeout: 5000 });
    await page.waitForSelector('#signin', { timeout: 5000 });
    await signIn(readOnly.token);
    await page.waitForSelector('#readonly');
    const card = `.card[data-id="${demo.search.id}"]`;
    await page.waitForSelector(card);
    expect(await page.getAttribute(card, 'draggable')).toBe('false');
    expect(await page.locator('.column h2 button.add').count()).toBe(0);
    const before = (await ok(t, ws.token, 'issues.get', { id: demo.search.id })).status.category;
    const target = before === 'DONE' ? 'TODO' : 'DONE';
    await page.dragAndDrop(card, `.column[data-category="${target}"]`);
    await page.waitForTimeout(300);
    expect((await ok(t, ws.token, 'issues.get', { id: demo.search.id })).status.category).toBe(before);
    expect(await page.locator('#board ~ .error, p.error[role=alert]').count()).toBe(0);

    await page.goto(`${url}#/issue/${demo.search.key}`);
    await page.waitForSelector(`main.issue[data-key="${demo.search.key}"]`);
    expect(await page.isDisabled('#issue-status')).toBe(true);
    expect(await page.isDisabled('#issue-priority')).toBe(true);
    expect(await page.locator('.new-comment').count()).toBe(0);
    expect(await page.locator('#issue-agent, #issue-claim, #issue-queued').count()).toBe(0);
    expect(await page.textContent('#comment-readonly')).toContain('WRITE_COMMENTS');

    await page.click('#nav-agents');
    await page.waitForSelector(`.request[data-id="${demo.poll.id}"]`);
    expect(await page.locator(`.request[data-id="${demo.poll.id}"] button.vote`).evaluateAll((b) => b.every((x) => (x as HTMLButtonElement).disabled))).toBe(true);
  });

  it('a key without SUBSCRIBE_EVENTS is told it is not live, and the board does not ask for the stream', async () => {
    const quiet = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] });
    const streamRequests: string[] = [];
    const onRequest = (r: { url(): string }) => { if (r.url().includes('/api/plugins/events')) streamRequests.push(r.url()); };
    page.on('request', onRequest);
    try {
      await page.click('#signout', { timeout: 5000 });
      await page.waitForSelector('#signin', { timeout: 5000 });
      streamRequests.length = 0;
      await signIn(quiet.token);
      await expect.poll(() => page.textContent('#live')).toBe('not live: refreshed every 15 s');
      expect(await page.getAttribute('#live', 'title')).toContain('SUBSCRIBE_EVENTS');
      await page.waitForTimeout(300);
      expect(streamRequests).toEqual([]);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('refuses an agent key; in the list Enter on a focused link is the link\'s, and the selection stays on its issue as rows arrive', async () => {
    await page.click('#signout', { timeout: 5000 });
    await page.waitForSelector('#signin', { timeout: 5000 });
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    // An agent's key, with few scopes or all: it hears that the board wants a person's key, not which scope it lacks.
    await page.fill('#key', (await createKey(t, ws, { agent: 'coder', scopes: ['READ_ISSUES'] })).token);
    await page.click('#signin button[type=submit]');
    await expect.poll(() => page.textContent('#signin-error')).toBe('This is an agent\'s key; sign in with a personal or session key');
    await page.reload();
    await page.waitForSelector('#signin');
    expect(await page.textContent('#signin-error')).toBe('');
    agentKey = await createKey(t, ws, { agent: 'coder' });
    await page.fill('#key', agentKey.token);
    await page.click('#signin button[type=submit]');
    await expect.poll(() => page.textContent('#signin-error')).toContain('agent');
    await signIn((await createKey(t, ws, { scopes: [...BOARD_SCOPES] })).token);

    await page.click('#nav-list');
    await page.waitForSelector('main.list tbody tr');
    const selected = () => page.getAttribute('main.list tr.selected', 'data-key');
    await page.keyboard.press('j');
    const chosen = await selected();
    const rows = await page.locator('main.list tbody tr').count();
    await ok(t, ws.token, 'issues.create', { title: 'Arrives above the selection' });
    await expect.poll(() => page.locator('main.list tbody tr').count(), { timeout: 5000 }).toBe(rows + 1);
    expect(await selected()).toBe(chosen);
    // Enter on the focused "Board" link follows the link, not the selected row.
    await page.focus('#nav-board');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#board .column');
    expect(page.url()).toContain('#/board');
  });

  it('a key revoked while the page is open signs the page out, saying why', async () => {
    const key = await createKey(t, ws, { scopes: [...BOARD_SCOPES] });
    await page.click('#signout', { timeout: 5000 });
    await page.waitForSelector('#signin', { timeout: 5000 });
    await signIn(key.token);
    await page.waitForSelector('#live:not(.off)');
    await t.pools.owner.query('select app_private.revoke_api_key($1)', [key.id]);
    await page.waitForSelector('#signin', { timeout: 10_000 });
    expect(await page.textContent('#signin-error')).toMatch(/Signed out: .*revoked/i);
    expect(await page.evaluate(() => sessionStorage.getItem('svc.key'))).toBeNull();
  });

  it('signing out ends a SESSION key (a PERSONAL key is only forgotten by the tab); issue links take the key in any case', async () => {
    const session = await createKey(t, ws, { kind: 'SESSION', ttlHours: 1, scopes: [...BOARD_SCOPES] });
    await page.click('#signout', { timeout: 5000 }).catch(() => undefined);
    await page.waitForSelector('#signin', { timeout: 5000 });
    await signIn(session.token);
    await page.goto(`${url}#/issue/${demo.login.key.toLowerCase()}`);
    await expect.poll(() => page.textContent('#issue-title'), { timeout: 5000 }).toBe('Login fails with long passwords');
    // More than a page of keys newer than it (the board looked for itself among the newest 100, and signed out
    // without revoking when it was not there).
    await createAgent(t, ws, 'many-keys');
    for (let i = 0; i < 101; i++) await createKey(t, ws, { agent: 'many-keys', scopes: ['READ_ISSUES'] });
    await page.click('#signout', { timeout: 5000 });
    await page.waitForSelector('#signin', { timeout: 5000 });
    t.keys.forget(session.id);
    await expect.poll(async () => (await rest(t, session.token, 'workspace.get', {})).body.error, { timeout: 5000 }).toBe('revoked');

    const personal = await createKey(t, ws, { scopes: [...BOARD_SCOPES] });
    await signIn(personal.token);
    await page.waitForSelector('#live:not(.off)');
    await page.click('#signout', { timeout: 5000 });
    await page.waitForSelector('#signin', { timeout: 5000 });
    expect((await rest(t, personal.token, 'workspace.get', {})).status).toBe(200);
  });

  it('a file attachment on the issue page downloads at a signed URL asked for through GraphQL', async () => {
    const key = await createKey(t, ws, { scopes: [...BOARD_SCOPES] });
    await page.click('#signout', { timeout: 5000 }).catch(() => undefined);
    await page.waitForSelector('#signin', { timeout: 5000 });
    await signIn(key.token);
    const bytes = Buffer.from('incident notes\n');
    const up = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: demo.login.id, filename: 'notes.txt', mimeType: 'text/plain', sizeBytes: bytes.length });
    expect((await fetch(up.uploadUrl, { method: 'PUT', body: bytes })).status).toBe(200);
    const file = await ok(t, ws.token, 'attachments.finalize', { key: up.key });
    await page.goto(`${url}#/issue/${demo.login.key}`);
    const button = `#attachments button.download[data-id="${file.id}"]`;
    await page.waitForSelector(button);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
    expect(download.suggestedFilename()).toBe('notes.txt');
    expect(download.url()).toContain('/blobs/');
  });

  it('agents view dashboards: dispatch figures and bars, pipeline counts, an agent\'s timeline and uptime; webhook health for an admin, not a member', async () => {
    // A workspace of its own: the figures are exactly what this test did.
    const ops = await createWorkspace(t, 'OPS');
    await createAgent(t, ops, 'ops-bot');
    await createAgent(t, ops, 'reviewer');
    const bot = await createKey(t, ops, { agent: 'ops-bot' });
    await ok(t, bot.token, 'agents.heartbeat', { status: 'ONLINE' });
    const hook = (await admin(t, 'create-webhook', { workspace: ops.key, url: 'https://hooks.example.com/ops', json: true })).webhook;
    // Its receiver has failed every attempt for an hour (the delivery worker's bookkeeping).
    await t.pools.owner.query(`update app_public.webhooks set failing_since = now() - interval '1 hour' where id = $1`, [hook.id]);
    // An automatic assignment: queued, then handed out by the dispatcher (run inline: this app has no worker).
    await t.pools.owner.query('update app_public.workspaces set auto_dispatch = true where id = $1', [ops.id]);
    const rotate = await ok(t, ops.token, 'issues.create', { title: 'Rotate the deploy keys' });
    await ok(t, ops.token, 'issues.queue', { id: rotate.id });
    const client = await t.pools.owner.connect();
    try {
      expect(await dispatchWorkspace(client, ops.id)).toBe(1);
    } finally {
      client.release();
    }
    // One assigned by hand, one left in the queue.
    const flaky = await ok(t, ops.token, 'issues.create', { title: 'Fix the flaky deploy' });
    await ok(t, ops.token, 'issues.assign', { id: flaky.id, profileKey: 'ops-bot' });
    const runbook = await ok(t, ops.token, 'issues.create', { title: 'Update the runbook' });
    await ok(t, ops.token, 'issues.queue', { id: runbook.id });
    expect((await ok(t, ops.token, 'issues.get', { id: runbook.id })).assignedAgentId).toBeNull();
    // Up for the last 6 hours of the window: its status changes moved back in time.
    const botId = (await ok(t, ops.token, 'agents.list', {})).find((a: { profileKey: string }) => a.profileKey === 'ops-bot').id;
    await t.pools.owner.query(`update app_public.activity_events set created_at = now() - interval '6 hours'
      where kind = 'AGENT_STATUS_CHANGED' and subject_id = $1`, [botId]);
    // The agent existed the whole window (uptime counts from its creation).
    await t.pools.owner.query(`update app_public.agents set created_at = now() - interval '2 days' where id = $1`, [botId]);

    const reads: string[] = [];
    const count = (r: { url(): string; postData(): string | null }) => {
      if (r.url().endsWith('/graphql')) reads.push(/query (\w+)/.exec(r.postData() ?? '')?.[1] ?? 'other');
    };
    await page.goto(url); // signIn clears this origin's session (the file's tests leave one; alone, the page is blank)
    // FULL holds ADMIN, which webhookHealth needs beside an OWNER/ADMIN user.
    await signIn((await createKey(t, ops)).token);
    page.on('request', count);
    await page.click('#nav-agents');
    const stat = (name: string) => page.locator(`#dispatch [data-stat="${name}"] dd`).first().textContent();
    await page.waitForSelector('#dispatch [data-stat="assignments"]');
    expect(await stat('assignments')).toBe('2');
    expect(await stat('mode')).toBe('1 / 1');
    expect(await stat('queued')).toBe('1');
    expect(await stat('wait')).toMatch(/^[\d.]+ s \/ [\d.]+ s$/);
    expect(await page.textContent('#dispatch [data-stat="wait"] dd.meta')).toBe('over 1 automatic');
    expect(await stat('watchdogs')).toBe('0');
    // A bar an hour; the last one holds both assignments, said in its text for those who do not see the bar.
    // Buckets start on the hour, so 24 hours take 24 bars, or 25 when the window starts inside an hour.
    expect([24, 25]).toContain(await page.locator('#dispatch ol.bars li').count());
    expect(await page.getAttribute('#dispatch ol.bars li:last-child', 'data-assigned')).toBe('2');
    expect(await page.textContent('#dispatch ol.bars li:last-child .sr-only')).toContain('2 assigned (1 automatic)');
    // The pipeline beside each agent's work.
    const botRow = page.locator('#agents tr[data-agent="ops-bot"]');
    expect(await botRow.locator('.assigned-open').textContent()).toBe('2');
    expect(await botRow.locator('.runs').textContent()).toBe('2 active');
    // Wrapped between words only ("1 complete/d" at 1280 px, web-security probe).
    expect(await botRow.locator('.runs').evaluate((el) => getComputedStyle(el).overflowWrap)).toBe('normal');
    expect(await page.locator('#agents tr[data-agent="reviewer"] .assigned-open').textContent()).toBe('0');
    expect(await page.locator('#agents tr[data-agent="reviewer"] .runs').textContent()).toBe('—');
    // Webhook health: this key's user is the workspace's OWNER, its key unnarrowed with ADMIN.
    expect(await page.textContent('#webhooks tbody')).toContain('https://hooks.example.com/ops');
    expect(await page.textContent(`#webhooks tr[data-webhook="${hook.id}"] .badge.alerting`)).toMatch(/^failing since /);
    // The page's figures came in its one read (the Agents query); the timeline is read when opened, newest first,
    // with the uptime.
    expect(reads).toContain('Agents');
    expect(reads).not.toContain('AgentTimeline');
    await botRow.locator('button.timeline-toggle').click();
    expect(await botRow.locator('button.timeline-toggle').getAttribute('aria-expanded')).toBe('true');
    const timeline = page.locator(`#timeline-${botId} .agent-timeline`);
    await timeline.locator('li').first().waitFor();
    expect(reads).toContain('AgentTimeline');
    expect(await timeline.locator('li[data-kind="AGENT_ASSIGNED"]').count()).toBe(2);
    expect(await timeline.locator('li[data-kind="AGENT_ASSIGNED"]').allTextContents()).toEqual(
      [expect.stringContaining('by hand'), expect.stringContaining('by the dispatcher')]);
    // Each line names its issue, linked to its page (a no-ack alert is something to act on).
    expect(await timeline.locator('li[data-kind="AGENT_ASSIGNED"] a').first().getAttribute('href')).toMatch(/^#\/issue\/OPS-\d+$/);
    // Newest first (the status change moved back in time above keeps its place: left out here).
    const times = await timeline.locator('li:not([data-kind="AGENT_STATUS_CHANGED"]) time')
      .evaluateAll((ts) => ts.map((x) => x.getAttribute('datetime')!));
    expect(times.map((x) => Date.parse(x))).toEqual(times.map((x) => Date.parse(x)).sort((a, b) => b - a));
    expect(await timeline.locator('.uptime .ratio').textContent()).toBe('25 %');
    page.off('request', count);
    await botRow.locator('button.timeline-toggle').click();
    await page.waitForSelector(`#timeline-${botId}`, { state: 'detached' });

    // A MEMBER sees the same figures, and no webhook table (webhookHealth is admin_required for it): no error either.
    await admin(t, 'add-member', { workspace: ops.key, email: 'ops-member@example.com', role: 'MEMBER', json: true });
    // FULL too: the member is refused for its role, not for a scope.
    const member = await createKey(t, ops, { user: 'ops-member@example.com' });
    await page.click('#signout', { timeout: 5000 });
    await page.waitForSelector('#signin', { timeout: 5000 });
    await signIn(member.token);
    const answered = page.waitForResponse((r) => r.url().endsWith('/graphql') && /query Agents/.test(r.request().postData() ?? ''));
    await page.click('#nav-agents');
    expect(((await (await answered).json()).errors as { path: string[]; extensions: { code: string } }[])
      .map((e) => [e.path[0], e.extensions.code])).toEqual([['webhookHealth', 'admin_required']]);
    await page.waitForSelector('#agents tr[data-agent="ops-bot"] .assigned-open');
    expect(await stat('assignments')).toBe('2');
    expect(await page.textContent('#agents tr[data-agent="ops-bot"] .assigned-open')).toBe('2');
    expect(await page.locator('#webhooks').count()).toBe(0);
    expect(await page.locator('main.agents .error').count()).toBe(0);
  });
});

