/**
 * The web board (issue 15) at GET /: static files from src/web/ (one ES module, no build step, so `npm ci`
 * already produces what is served). The page signs in with a key kept in sessionStorage, reads through
 * /graphql, writes through the REST aliases and follows the SSE stream with fetch (which, unlike
 * EventSource, can send the Bearer key: no key ever goes into a URL).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web');
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/web/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/web/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};
/** Only this origin's scripts, styles, and calls; no framing. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function registerWeb(app: FastifyInstance): void {
  for (const [route, { file, type }] of Object.entries(FILES)) {
    const body = fs.readFileSync(path.join(DIR, file));
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
