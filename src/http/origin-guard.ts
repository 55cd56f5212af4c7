/**
 * DNS-rebinding and cross-site protection (MCP Streamable HTTP transport: servers MUST validate Origin).
 *
 *  - A request carrying a browser `Origin` is refused unless that origin is the service's own
 *    (SVC_PUBLIC_URL), listed in SVC_CORS_ORIGINS, or, while the service listens on loopback, a
 *    loopback origin (http://localhost:3000, http://127.0.0.1:3000, http://[::1]:3000, any port); on a
 *    public listener, an Origin naming the very Host the request was sent to (a same-origin page).
 *  - While listening on loopback, a `Host` header that is not a loopback name, nor the host of SVC_PUBLIC_URL (a
 *    reverse proxy on the same machine that keeps the Host header), is refused: a page on evil.example.com that
 *    re-resolves its name to 127.0.0.1 still sends `Host: evil.example.com`.
 *
 * Refusals are 403 `{error: 'forbidden_origin' | 'forbidden_host'}` (a JSON-RPC envelope on the MCP
 * endpoint, see app.ts). Requests without Origin (curl, SDKs, servers) are not affected by the Origin rule.
 * CORS: origins in SVC_CORS_ORIGINS may call /graphql and the API under /api/ (MCP, REST, events) from a browser
 * (preflight answered here); they and SVC_PUBLIC_URL's origin may also PUT and GET the embedded blob store's signed
 * /blobs/ links (attachments.initUpload / getDownloadUrl) with fetch: no credentials, the signed URL is the capability.
 * With the list empty (the default) and no SVC_PUBLIC_URL no CORS headers are sent at all.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';

export interface OriginPolicy {
  /** SVC_PUBLIC_URL: its origin is always allowed. */
  publicUrl?: string;
  /** SVC_CORS_ORIGINS: further allowed browser origins (exact `scheme://host[:port]`). */
  corsOrigins?: string[];
  /** The service listens on a loopback address only: enforce loopback Host names. */
  loopback?: boolean;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether a listen address (HOST) is loopback-only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The host name of a Host header (`name:port`, `[v6]:port`), lower-cased, port dropped. */
function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/** The origin (`scheme://host[:port]`) of an http(s) URL; undefined for anything else. */
export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** What a browser may do cross-origin on a path. */
interface CorsRule {
  methods: string;
  /** Request headers a preflight may ask for. */
  headers: string;
  /** Response headers a page may read beyond the CORS-safelisted ones. */
  expose: string;
  /** Whether SVC_PUBLIC_URL's origin gets the headers too (else only SVC_CORS_ORIGINS). */
  ownOrigin: boolean;
}

/** GraphQL takes POST; the MCP endpoint (POST, its GET stream and DELETE of a session), the REST aliases and the
 *  event stream live under /api/. What a browser client must read there: the MCP session, why a key was refused,
 *  when to retry. */
const API_HEADERS = {
  // Idempotency-Key in, Idempotent-Replayed out: a browser app retries a REST write safely too (README, "Retrying a
  // write safely"); the preflight refused the header, and scripts could not read the replay mark.
  headers: 'authorization, content-type, accept, last-event-id, mcp-session-id, mcp-protocol-version, idempotency-key',
  expose: 'mcp-session-id, www-authenticate, retry-after, idempotent-replayed',
  ownOrigin: false,
};
const GRAPHQL_CORS: CorsRule = { methods: 'POST, OPTIONS', ...API_HEADERS };
const API_CORS: CorsRule = { methods: 'GET, POST, DELETE, OPTIONS', ...API_HEADERS };

/** The embedded blob store's signed links (src/blobs/routes.ts): a browser app uploads with fetch(uploadUrl, {method:
 *  'PUT', headers: {'content-type': …}}) and downloads with fetch(url). No Authorization and no credentials: the
 *  signature in the URL is the capability, so no access-control-allow-credentials either. SVC_PUBLIC_URL's origin is
 *  answered too (the links are made on SVC_PUBLIC_URL: for its own pages a same-origin call, where the headers do no
 *  harm, and a preflight a browser would not send). Other origins stay refused (403 forbidden_origin). */
const BLOB_CORS: CorsRule = {
  methods: 'GET, PUT, OPTIONS',
  headers: 'content-type',
  expose: 'content-disposition, content-length, etag',
  ownOrigin: true,
};

/** The CORS rule of a path, or undefined: other paths (the board, /health, …) need no CORS. */
function corsRule(path: string): CorsRule | undefined {
  if (path === '/graphql') return GRAPHQL_CORS;
  if (path.startsWith('/api/')) return API_CORS;
  if (path.startsWith('/blobs/')) return BLOB_CORS;
  return undefined;
}

export function registerOriginGuard(app: FastifyInstance, policy: OriginPolicy): void {
  const allowed = new Set<string>();
  const own = policy.publicUrl ? originOf(policy.publicUrl) : undefined;
  if (own) allowed.add(own);
  const cors = new Set(policy.corsOrigins ?? []);
  for (const o of cors) allowed.add(o);
  const loopback = policy.loopback ?? false;
  // Host names a loopback listener answers: its own, and SVC_PUBLIC_URL's (the operator's name for it).
  const hostNames = new Set(LOOPBACK_NAMES);
  if (own) hostNames.add(new URL(own).hostname.toLowerCase());

  const originAllowed = (origin: string, host: string | undefined): boolean => {
    if (allowed.has(origin)) return true;
    const parsed = originOf(origin);
    if (!parsed) return false;
    const u = new URL(parsed);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
    if (loopback) return LOOPBACK_NAMES.has(u.hostname.toLowerCase());
    // A public listener reached under another name than SVC_PUBLIC_URL: a same-origin page (Origin names
    // the Host it was sent to) is the service's own. DNS rebinding is a loopback concern (checked above).
    return host !== undefined && u.host === host.toLowerCase();
  };

  app.addHook('onRequest', async (req, reply) => {
    if (loopback) {
      const host = req.headers.host;
      if (!host || !hostNames.has(hostName(host))) {
        throw new ApiError(403, {
          error: 'forbidden_host',
          message: `Host ${JSON.stringify(host ?? '')} refused: this service listens on loopback and answers only localhost, 127.0.0.1, [::1] ` +
            'or the host of SVC_PUBLIC_URL (DNS-rebinding protection)',
        });
      }
    }
    const origin = req.headers.origin;
    if (origin === undefined) return;
    if (!originAllowed(origin, req.headers.host)) {
      throw new ApiError(403, {
        error: 'forbidden_origin',
        message: `Origin ${JSON.stringify(origin)} is not allowed; add it to SVC_CORS_ORIGINS to call this service from that page`,
      });
    }
    // CORS for the API (GraphQL, MCP and its REST aliases, the event stream), only for the configured list; for
    // the signed blob links also for SVC_PUBLIC_URL's origin.
    const rule = corsRule(req.url.split('?')[0]!);
    if (rule && (cors.has(origin) || (rule.ownOrigin && origin === own))) {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      reply.header('access-control-expose-headers', rule.expose);
      if (req.method === 'OPTIONS') {
        return reply
          .code(204)
          .header('access-control-allow-methods', rule.methods)
          .header('access-control-allow-headers', rule.headers)
          .header('access-control-max-age', '600')
          .send();
      }
    }
  });
}
