/**
 * Outbound GETs on behalf of tenants (link titles, the repository host API), always through the egress
 * guard of src/webhooks/egress.ts: literal addresses are checked before connecting, host names at the
 * socket's own DNS lookup, on every hop of a redirect chain. Bounded in time and in bytes read.
 */
import http from 'node:http';
import https from 'node:https';
import { decodeHTML } from 'entities';
import { oneLine } from '../tools/text-guard.ts';
import { checkLiteralHost, guardedLookup } from '../webhooks/egress.ts';

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body was cut at maxBytes. */
  truncated: boolean;
  url: string;
}

export interface GuardedRequestOptions {
  allowPrivate: boolean;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Deadline for the whole request (all redirect hops). */
  timeoutMs: number;
  maxBytes: number;
  /** Redirects followed (each hop re-checked by the guard); 0 = none. */
  maxRedirects?: number;
  signal?: AbortSignal;
}

/** The request's deadline passed (a target that times out cools off: src/outbound/slow-targets.ts). */
export class OutboundTimeout extends Error {}

export async function guardedRequest(rawUrl: string, opts: GuardedRequestOptions): Promise<GuardedResponse> {
  const deadline = Date.now() + opts.timeoutMs;
  let url = new URL(rawUrl);
  for (let hop = 0; ; hop++) {
    const res = await oneRequest(url, opts, deadline);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location && hop < (opts.maxRedirects ?? 0)) {
      url = new URL(location, url);
      continue;
    }
    return res;
  }
}

function oneRequest(url: URL, opts: GuardedRequestOptions, deadline: number): Promise<GuardedResponse> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new Error(`unsupported protocol ${url.protocol}`));
  try {
    checkLiteralHost(url.hostname, opts.allowPrivate);
  } catch (err) {
    return Promise.reject(err);
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new OutboundTimeout('timed out'));
    const req = client.request(url, {
      method: opts.method ?? 'GET',
      headers: opts.headers,
      lookup: guardedLookup(opts.allowPrivate) as never,
      agent: false,
      signal: opts.signal,
    });
    const timer = setTimeout(() => req.destroy(new OutboundTimeout(`timed out after ${opts.timeoutMs} ms`)), remaining);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const done = () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated, url: url.toString() });
      };
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = opts.maxBytes - size;
        if (chunk.length >= room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          truncated = true;
          done();
          res.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => {
        if (!truncated) done();
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        if (!truncated) reject(err);
      });
    });
    req.end(opts.body);
  });
}

/** A fetch() for clients such as Octokit that sends every request through guardedRequest (no redirects). */
export function guardedFetch(opts: { allowPrivate: boolean; timeoutMs: number; maxBytes: number }): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const res = await guardedRequest(url, { ...opts, method: init?.method ?? 'GET', headers, body, signal: init?.signal ?? undefined });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
    }
    const nullBody = res.status === 204 || res.status === 304 || (init?.method ?? 'GET') === 'HEAD';
    const response = new Response(nullBody ? null : new Uint8Array(res.body), { status: res.status, headers: out });
    Object.defineProperty(response, 'url', { value: res.url });
    return response;
  }) as typeof fetch;
}

/** Windows-1252's 0x80–0x9F (WHATWG): Node 20's TextDecoder reads that label as Latin-1 there, and an en dash or a curly quote came out as a control character. */
const CP1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f'
  + '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * A page's bytes as text, in its charset, in HTML's order: a byte-order mark, else the Content-Type header's charset,
 * else a <meta charset> or <meta http-equiv> in the first 1024 bytes (where HTML's prescan looks; one naming UTF-16
 * means UTF-8 there), else UTF-8. A label TextDecoder does not know is UTF-8.
 */
export function decodePage(body: Buffer, contentType: string | undefined): string {
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 'utf-8'
    : body[0] === 0xfe && body[1] === 0xff ? 'utf-16be' : body[0] === 0xff && body[1] === 0xfe ? 'utf-16le' : undefined;
  // Latin-1 keeps every byte as one character, so the ASCII of a <meta> reads the same in any ASCII-based charset.
  const head = body.subarray(0, 1024).toString('latin1');
  const meta = head.match(/<meta\s[^>]*charset\s*=\s*["']?([^"';\s/>]+)/i)?.[1];
  const label = bom ?? contentType?.match(/;\s*charset\s*=\s*["']?([^"';\s]+)/i)?.[1] ?? (meta && /^utf-16/i.test(meta) ? 'utf-8' : meta);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  if (decoder.encoding !== 'windows-1252') return decoder.decode(body);
  return body.toString('latin1').replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/** The <title> of an HTML page: 5 s, redirects followed, 64 KB read (spec 8); null when there is none. */
export async function fetchPageTitle(url: string, opts: { allowPrivate: boolean; timeoutMs?: number; maxBytes?: number }): Promise<string | null> {
  const res = await guardedRequest(url, {
    allowPrivate: opts.allowPrivate,
    timeoutMs: opts.timeoutMs ?? 5000,
    maxBytes: opts.maxBytes ?? 64 * 1024,
    maxRedirects: 5,
    headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1', 'user-agent': 'svc-link-preview/1' },
  });
  if (res.status < 200 || res.status >= 300) return null;
  const m = decodePage(res.body, res.headers['content-type']).match(/<title[^>]*>([\s\S]*?)<\/title>/i);
  if (!m) return null;
  // Every named and numeric reference HTML knows (&rsquo;, &mdash;, &eacute;, …), as a browser shows the title.
  const title = decodeHTML(m[1]!);
  // A link title is a name (attachments.attachLink's linkTitle: one line, no direction overrides).
  return oneLine(title) || null;
}
