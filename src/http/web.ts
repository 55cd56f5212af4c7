/**
 * The web board (issue 15) at GET /: index.html from src/web/, the Preact client bundled by esbuild into
 * dist/web/ (src/web/build.ts: built by `npm ci` and again here when missing or stale, never committed).
 * The page signs in with a key kept in sessionStorage, reads and writes through /graphql and follows the
 * SSE stream with fetch (which, unlike EventSource, can send the Bearer key: no key ever goes into a URL).
 *
 * Each file is read once, at its first request, with its content hash (the ETag) and its gzip and brotli forms: a browser
 * revalidates (`cache-control: no-cache`, the names are not hashed) and gets a 304 while the build is the same,
 * and the bundle travels compressed (about 135 KB of script was sent in full on every load).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ensureWebBuild, WEB_OUT, WEB_SRC } from '../web/build.ts';

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: path.join(WEB_SRC, 'index.html'), type: 'text/html; charset=utf-8' },
  '/web/app.js': { file: path.join(WEB_OUT, 'app.js'), type: 'text/javascript; charset=utf-8' },
  '/web/app.css': { file: path.join(WEB_OUT, 'app.css'), type: 'text/css; charset=utf-8' },
};
/** Only this origin's scripts, styles, and calls; no framing. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

type Encoding = 'br' | 'gzip' | 'identity';
interface Served { bodies: Record<Encoding, Buffer>; etags: Record<Encoding, string> }

/** A file's bodies, each with its own strong ETag (one per encoding: they are different bytes). */
export function prepareStatic(body: Buffer): Served {
  const hash = crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22);
  const bodies: Record<Encoding, Buffer> = {
    identity: body,
    gzip: zlib.gzipSync(body, { level: zlib.constants.Z_BEST_COMPRESSION }),
    // Quality 9, not 11: 36 ms instead of 265 ms for app.js, for 43 KB instead of about 40.
    br: zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  };
  return { bodies, etags: { identity: `"${hash}"`, gzip: `"${hash}-gz"`, br: `"${hash}-br"` } };
}

/** The encoding to send: brotli, then gzip, when Accept-Encoding allows it (q=0 refuses), else none. */
export function chooseEncoding(accept: string | undefined): Encoding {
  const q = new Map<string, number>();
  for (const part of (accept ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const weight = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    q.set(name, weight === undefined ? 1 : Number(weight));
  }
  const allowed = (name: string) => (q.get(name) ?? q.get('*') ?? 0) > 0;
  return allowed('br') ? 'br' : allowed('gzip') ? 'gzip' : 'identity';
}

/** Whether If-None-Match names this file in any of its encodings (a weak W/ tag matches too, RFC 9110 13.1.2). */
function unchanged(req: FastifyRequest, etags: Served['etags']): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  const given = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return Object.values(etags).some((tag) => given.includes(tag));
}

const cache = new Map<string, Served>();
/** A built file read and prepared once per process (its bytes do not change while the process runs). */
function preparedOnce(file: string): Served {
  let served = cache.get(file);
  if (!served) cache.set(file, (served = prepareStatic(fs.readFileSync(file))));
  return served;
}

export function registerWeb(app: FastifyInstance): void {
  ensureWebBuild();
  for (const [route, { file, type }] of Object.entries(FILES)) {
    // Prepared at the first request (an app that never serves the page, as most tests, pays nothing), once per process.
    let prepared: Served | undefined;
    app.get(route, async (req, reply) => {
      const served = (prepared ??= preparedOnce(file));
      const encoding = chooseEncoding(req.headers['accept-encoding']);
      reply.headers({
        'content-type': type,
        // Revalidated on every load (the names are not hashed): a 304 costs a round trip, not the bundle.
        'cache-control': 'no-cache',
        vary: 'accept-encoding',
        etag: served.etags[encoding],
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      });
      if (unchanged(req, served.etags)) return reply.code(304).send();
      if (encoding !== 'identity') reply.header('content-encoding', encoding);
      return reply.send(served.bodies[encoding]);
    });
  }
}
