/**
 * Screenshots of the web board for the README: starts `svc start` on a temporary embedded PostgreSQL
 * (or DATABASE_URL), makes a workspace with demo data through the tools (test/support/board-demo.ts),
 * drives Debian's chromium (playwright-core, CHROMIUM=/path overrides) and writes PNGs of the board, the
 * list, an issue page and the agents view into docs/screenshots/.
 *
 *   npm run docs:screenshots
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { seedBoardDemo } from '../test/support/board-demo.ts';
import { run, startSvc } from './svc-process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(root, 'docs/screenshots');

const svc = async (args: string[], env: NodeJS.ProcessEnv): Promise<any> => JSON.parse(await run(args, env));

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-screenshots-'));
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
  if (!env.DATABASE_URL) env.SVC_DATA_DIR = dataDir;
  const started = startSvc(env);
  let browser;
  try {
    const url = await started.url;
    const ws = await svc(['admin', 'create-workspace', '--name', 'Acme', '--key', 'ACME', '--owner-email', 'ada@example.com', '--json'], env);
    await svc(['admin', 'create-agent', '--workspace', 'ACME', '--profile-key', 'coder', '--name', 'Coder', '--json'], env);
    await svc(['admin', 'create-agent', '--workspace', 'ACME', '--profile-key', 'reviewer', '--name', 'Reviewer', '--json'], env);
    const agentKey = await svc(['admin', 'create-key', '--workspace', 'ACME', '--user', 'ada@example.com', '--agent', 'coder', '--scopes', 'FULL', '--json'], env);
    const call = async (token: string, tool: string, input: Record<string, unknown>) => {
      const res = await fetch(`${url}/api/mcp/${tool}`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(input),
      });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`${tool}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    };
    const owner = ws.apiKey.rawKey as string;
    const demo = await seedBoardDemo(call, owner, agentKey.apiKey.rawKey, 'coder');

    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(url);
    await page.fill('#key', owner);
    await page.click('#signin button[type=submit]');
    await page.waitForSelector(`.card[data-id="${demo.login.id}"]`);
    await fs.mkdir(OUT, { recursive: true });
    const shot = async (name: string) => {
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(OUT, `${name}.png`) });
    };
    await shot('board');
    await page.click('#nav-list');
    await page.waitForSelector('main.list tbody tr');
    await page.keyboard.press('j');
    await shot('list');
    await page.goto(`${url}#/issue/${demo.login.key}`);
    await page.waitForSelector('#run');
    await shot('issue');
    await page.click('#nav-agents');
    await page.waitForSelector('#agents tr[data-agent="coder"]');
    await shot('agents');
    process.stdout.write(`screenshots written to ${path.relative(root, OUT)}/ (board, list, issue, agents)\n`);
  } finally {
    await browser?.close();
    started.child.kill('SIGTERM');
    await new Promise((r) => started.child.once('exit', r));
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`screenshots: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
