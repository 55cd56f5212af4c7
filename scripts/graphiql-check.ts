/**
 * GraphiQL in a real headless browser (Debian's chromium) against `svc start`: opens GET /graphiql,
 * checks its first screen says how to add the key and that the Docs list the schema with no key and no
 * manual re-fetch, types the Authorization header and a query into GraphiQL's own editors, presses the run button and
 * waits for the answer in the result pane. Exits 0 and prints one JSON line on success.
 *
 *   node --import tsx scripts/graphiql-check.ts                 start `svc start` itself (DATABASE_URL,
 *                                                               else an embedded PostgreSQL in a temp dir)
 *   node --import tsx scripts/graphiql-check.ts --url URL --key KEY   use a running server
 *
 * Needs chromium (`apt-get install -y chromium`; CHROMIUM=/path overrides). Talks to it over the Chrome
 * DevTools Protocol with Node's WebSocket (no browser-automation dependency).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { run, startSvc } from './svc-process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const QUERY = '{ currentWorkspace { key name } viewer { email } viewerRole }';

// Node 20 has WebSocket behind a flag (Node 22 has it by default): re-run ourselves with the flag.
if (typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'undefined') {
  const child = spawn(process.execPath, ['--experimental-websocket', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 1));
} else {
  main().then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`graphiql-check: ${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (${(last as Error).message})` : ''}`);
}


async function stopChild(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** A minimal Chrome DevTools Protocol client over one page's WebSocket. */
class Cdp {
  private nextId = 1;
  private pending = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  private listeners: Array<(method: string, params: any) => void> = [];

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (ev) => {
      const msg = JSON.parse(String(ev.data));
      if (msg.id && this.pending.has(msg.id)) {
        const p = this.pending.get(msg.id)!;
        this.pending.delete(msg.id);
        if (msg.error) p.reject(new Error(`${msg.error.message}`));
        else p.resolve(msg.result);
      } else if (msg.method) {
        for (const l of this.listeners) l(msg.method, msg.params);
      }
    });
  }

  static async connect(url: string): Promise<Cdp> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve, { once: true });
      ws.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)), { once: true });
    });
    return new Cdp(ws);
  }

  send<T = any>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise<T>((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  once(method: string): Promise<any> {
    return new Promise((resolve) => {
      const l = (m: string, p: any) => {
        if (m === method) {
          this.listeners = this.listeners.filter((x) => x !== l);
          resolve(p);
        }
      };
      this.listeners.push(l);
    });
  }

  onEvent(l: (method: string, params: any) => void) {
    this.listeners.push(l);
  }

  async eval<T = any>(expression: string): Promise<T> {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result.value as T;
  }

  close() {
    this.ws.close();
  }
}

async function launchChromium(profileDir: string): Promise<{ child: ChildProcess; port: number }> {
  const bin = process.env.CHROMIUM || '/usr/bin/chromium';
  await fs.access(bin).catch(() => {
    throw new Error(`${bin} not found: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM`);
  });
  const args = [
    '--headless=new', '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--disable-dev-shm-usage',
    '--remote-debugging-port=0', `--user-data-dir=${profileDir}`, '--window-size=1400,900', 'about:blank',
  ];
  if (process.getuid?.() === 0) args.unshift('--no-sandbox'); // chromium refuses to run as root with its sandbox
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`chromium exited ${code}: ${stderr.slice(-2000)}`))));
  const port = await Promise.race([
    exited,
    waitFor('chromium DevTools port', async () => {
      const text = await fs.readFile(path.join(profileDir, 'DevToolsActivePort'), 'utf8').catch(() => '');
      return Number(text.split('\n')[0]) || undefined;
    }),
  ]);
  return { child, port };
}

/** Clicks the centre of the first element matching `selector` with real mouse events. */
async function click(cdp: Cdp, selector: string) {
  const box = await waitFor(`${selector} on screen`, () => cdp.eval<{ x: number; y: number } | null>(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? { x: r.x + Math.min(r.width / 2, 40), y: r.y + Math.min(r.height / 2, 12) } : null;
  })()`));
  for (const type of ['mousePressed', 'mouseReleased']) {
    await cdp.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
  }
}

/** Replaces the text of the Monaco editor whose model URI ends with `uriSuffix`, typing like a user. */
async function typeInto(cdp: Cdp, uriSuffix: string, text: string) {
  // Under load the editor may not take focus on the first click: type again until it holds the text.
  let shown = '';
  for (let attempt = 1; ; attempt++) {
    await click(cdp, `[data-uri$="${uriSuffix}"] .view-lines`);
    await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, modifiers: 2, commands: ['selectAll'] });
    await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, modifiers: 2 });
    await cdp.send('Input.insertText', { text });
    // The editor auto-closes brackets it sees typed: drop whatever it added after the cursor.
    await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'End', code: 'End', windowsVirtualKeyCode: 35, modifiers: 2 | 8, commands: ['selectToEndOfDocument'] });
    await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'End', code: 'End', windowsVirtualKeyCode: 35, modifiers: 2 | 8 });
    await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'Delete', code: 'Delete', windowsVirtualKeyCode: 46, commands: ['deleteForward'] });
    await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: 'Delete', code: 'Delete', windowsVirtualKeyCode: 46 });
    try {
      await waitFor(`${uriSuffix} to hold the text`, async () => {
        shown = await editorText(cdp, uriSuffix);
        return shown.replace(/\s+/g, '') === text.replace(/\s+/g, '');
      }, 10_000);
      return;
    } catch (err) {
      if (attempt >= 3) throw new Error(`${(err as Error).message}; it shows ${JSON.stringify(shown)}`);
    }
  }
}

async function editorText(cdp: Cdp, uriSuffix: string): Promise<string> {
  return cdp.eval<string>(`(() => {
    const el = document.querySelector('[data-uri$="${uriSuffix}"] .view-lines');
    return el ? [...el.children].sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
      .map((l) => l.textContent.replace(/\\u00a0/g, ' ')).join('\\n') : '';
  })()`);
}

async function main() {
  const { values } = parseArgs({ options: { url: { type: 'string' }, key: { type: 'string' } } });
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    let baseUrl = values.url;
    let key = values.key;
    let workspaceKey: string | undefined;
    if (!baseUrl) {
      const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
      if (!env.DATABASE_URL) {
        const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-graphiql-'));
        env.SVC_DATA_DIR = dataDir;
        cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
      }
      const svc = startSvc(env);
      cleanups.push(() => stopChild(svc.child));
      baseUrl = await svc.url;
      workspaceKey = `GQ${Math.random().toString(36).slice(2, 7).toUpperCase()}`.replace(/[^A-Z0-9]/g, 'X');
      const created = JSON.parse(await run(['admin', 'create-workspace', '--name', 'GraphiQL check', '--key', workspaceKey,
        '--owner-email', `graphiql-${workspaceKey.toLowerCase()}@example.com`, '--json'], env));
      key = created.apiKey.rawKey as string;
    }
    if (!key) throw new Error('--key is required with --url');

    const profileDir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-chromium-'));
    cleanups.push(() => fs.rm(profileDir, { recursive: true, force: true }));
    const browser = await launchChromium(profileDir);
    cleanups.push(() => stopChild(browser.child));

    const targets = await (await fetch(`http://127.0.0.1:${browser.port}/json/list`)).json() as Array<{ type: string; webSocketDebuggerUrl: string }>;
    const page = targets.find((t) => t.type === 'page');
    if (!page) throw new Error('chromium opened no page');
    const cdp = await Cdp.connect(page.webSocketDebuggerUrl);
    cleanups.push(async () => cdp.close());
    const consoleErrors: string[] = [];
    cdp.onEvent((method, params) => {
      if (method === 'Runtime.exceptionThrown') consoleErrors.push(params.exceptionDetails?.exception?.description ?? params.exceptionDetails?.text);
    });
    await cdp.send('Page.enable');
    await cdp.send('Runtime.enable');
    const loaded = cdp.once('Page.loadEventFired');
    await cdp.send('Page.navigate', { url: `${baseUrl}/graphiql` });
    await loaded;
    const title = await cdp.eval<string>('document.title');

    // GraphiQL (Ruru) has mounted its editors.
    await waitFor('the GraphiQL editors', () => cdp.eval<boolean>(`!!document.querySelector('[data-uri$="-operation.graphql"] .view-lines') && !!document.querySelector('.graphiql-execute-button')`));
    // The first screen says how to add the key.
    const firstScreen = await waitFor('the welcome text in the operation editor', async () => {
      const text = await editorText(cdp, '-operation.graphql');
      return text.includes('Authorization') ? text : undefined;
    });
    if (!/Headers/.test(firstScreen) || !/Bearer/.test(firstScreen)) throw new Error(`the first screen does not say how to add the key: ${firstScreen}`);
    // Schema and docs load without a key and without a manual re-fetch: the Docs show the root types.
    await click(cdp, '.graphiql-sidebar button[aria-label="Show Documentation Explorer"]');
    const docs = await waitFor('the Docs to list the root types', () => cdp.eval<string | null>(`(() => {
      const el = document.querySelector('.graphiql-doc-explorer');
      const text = el ? el.innerText : '';
      if (text.includes('Error fetching schema')) throw new Error('Docs: Error fetching schema');
      return text.includes('Root Types') && text.includes('Query') ? text : null;
    })()`));
    if (/Missing bearer token|Error fetching schema/.test(await cdp.eval<string>('document.body.innerText'))) {
      throw new Error('GraphiQL shows a schema error on open');
    }
    // The Authorization header, in GraphiQL's Headers tab.
    await click(cdp, '.graphiql-editor-tools button[data-name="headers"]');
    await typeInto(cdp, '-request-headers.json', JSON.stringify({ Authorization: `Bearer ${key}` }));
    // The query, then the run button.
    await typeInto(cdp, '-operation.graphql', QUERY);
    await click(cdp, '.graphiql-execute-button');
    const response = await waitFor('the result pane', async () => {
      const text = await editorText(cdp, '-response.json');
      if (!text.trim().startsWith('{')) return undefined;
      try {
        return JSON.parse(text) as { data?: any; errors?: unknown };
      } catch {
        return undefined; // still rendering
      }
    });
    if (response.errors || !response.data?.currentWorkspace) {
      throw new Error(`GraphiQL got an error: ${JSON.stringify(response)}${consoleErrors.length ? `; page errors: ${consoleErrors.join('; ')}` : ''}`);
    }
    if (workspaceKey && response.data.currentWorkspace.key !== workspaceKey) {
      throw new Error(`unexpected workspace in ${JSON.stringify(response)}`);
    }
    return { ok: true, url: `${baseUrl}/graphiql`, title, query: QUERY, data: response.data, welcome: true, docsLoaded: docs.includes('Root Types') };
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
  }
}
