/**
 * The web board (issue 15) at GET /: index.html from src/web/, the Preact client bundled by esbuild into
 * dist/web/ (src/web/build.ts: built by `npm ci` and again here when missing or stale, never committed).
 * The page signs in with a key kept in sessionStorage, reads and writes through /graphql and follows the
 * SSE stream with fetch (which, unlike EventSource, can send the Bearer key: no key ever goes into a URL).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ensureWebBuild, WEB_OUT, WEB_SRC } from '../web/build.ts';

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: path.join(WEB_SRC, 'index.html'), type: 'text/html; charset=utf-8' },
  '/web/app.js': { file: path.join(WEB_OUT, 'app.js'), type: 'text/javascript; charset=utf-8' },
  '/web/app.css': { file: path.join(WEB_OUT, 'app.css'), type: 'text/css; charset=utf-8' },
};
/** Only this origin's scripts, styles, and calls; no framing. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function registerWeb(app: FastifyInstance): void {
  ensureWebBuild();
  for (const [route, { file, type }] of Object.entries(FILES)) {
    const body = fs.readFileSync(file);
    app.get(route, async (_req, reply) =>
      reply.headers({
        'content-type': type,
        'cache-control': 'no-cache',
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      }).send(body));
  }
}
