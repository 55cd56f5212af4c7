/**
 * Screenshots of the web board for the README: starts `svc start` on a temporary embedded PostgreSQL
 * (or DATABASE_URL), makes a workspace with demo data through the tools (test/support/board-demo.ts),
 * drives Debian's chromium (playwright-core, CHROMIUM=/path overrides) and writes PNGs of the board, the
 * list, an issue page and the agents view into docs/screenshots/.
 *
 *   npm run docs:screenshots
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { seedBoardDemo } from '../test/support/board-demo.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SVC = path.join(root, 'bin/svc.js');
const OUT = path.join(root, 'docs/screenshots');

function svc(args: string[], env: NodeJS.ProcessEnv): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`svc ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

function startSvc(env: NodeJS.ProcessEnv): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [SVC, 'start', '--no-worker'], { env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      log += d;
      const m = log.match(/svc listening on (http:\/\/[^\s"]+)/);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`svc start exited ${code}: ${log}`)));
  });
  return { child, url };
}

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
