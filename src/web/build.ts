/**
 * Builds the web board (src/web/*.tsx, Preact) into dist/web/ with esbuild: one minified ES module
 * (app.js) and its stylesheet (app.css). Nothing built is committed: `npm ci` runs this (the `prepare`
 * script), and the server runs it again at start when the output is missing or older than a source file
 * (ensureWebBuild), so a fresh clone, `npm ci` and `svc start` serve the current client.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

export const WEB_SRC = path.dirname(fileURLToPath(import.meta.url));
export const WEB_OUT = path.resolve(WEB_SRC, '../../dist/web');
const OUTPUTS = ['app.js', 'app.css'];

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file));
    else newest = Math.max(newest, fs.statSync(file).mtimeMs);
  }
  return newest;
}

/** True when an output is missing or older than a source file (or the bundled libraries' lockfile). */
export function webBuildStale(): boolean {
  const lock = path.resolve(WEB_SRC, '../../package-lock.json');
  const newest = Math.max(newestSource(WEB_SRC), fs.existsSync(lock) ? fs.statSync(lock).mtimeMs : 0);
  return OUTPUTS.some((f) => {
    const out = path.join(WEB_OUT, f);
    return !fs.existsSync(out) || fs.statSync(out).mtimeMs < newest;
  });
}

/** Bundles the client; each file is written beside its place and renamed in (parallel builds never serve half a file). */
export function buildWeb(): { bytes: Record<string, number> } {
  const result = buildSync({
    entryPoints: { app: path.join(WEB_SRC, 'client/main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    outdir: WEB_OUT,
    write: false,
    logLevel: 'silent',
  });
  fs.mkdirSync(WEB_OUT, { recursive: true });
  const bytes: Record<string, number> = {};
  for (const file of result.outputFiles) {
    const tmp = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, file.contents);
    fs.renameSync(tmp, file.path);
    bytes[path.basename(file.path)] = file.contents.length;
  }
  return { bytes };
}

/** Builds when stale; what the server calls before serving. */
export function ensureWebBuild(): void {
  if (webBuildStale()) buildWeb();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { bytes } = buildWeb();
  process.stdout.write(`web board built into ${path.relative(process.cwd(), WEB_OUT) || WEB_OUT}: ${Object.entries(bytes).map(([f, n]) => `${f} ${(n / 1024).toFixed(1)} KiB`).join(', ')}\n`);
}
