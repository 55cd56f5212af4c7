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
 * (preflight answered here);
 * with the list empty (the default) no CORS headers are sent at all.
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

/** The methods a listed origin may use on a path: GraphQL takes POST; the MCP endpoint (POST, its GET stream and
 *  DELETE of a session), the REST aliases and the event stream live under /api/. Other paths (the board, blobs at
 *  signed URLs) need no CORS. */
function corsMethods(path: string): string | undefined {
  if (path === '/graphql') return 'POST, OPTIONS';
  if (path.startsWith('/api/')) return 'GET, POST, DELETE, OPTIONS';
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
    // CORS for the API (GraphQL, MCP and its REST aliases, the event stream), only for the configured list.
    const methods = cors.has(origin) ? corsMethods(req.url.split('?')[0]!) : undefined;
    if (methods) {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      // What a browser client must read: the MCP session, why a key was refused, when to retry.
      reply.header('access-control-expose-headers', 'mcp-session-id, www-authenticate, retry-after');
      if (req.method === 'OPTIONS') {
        return reply
          .code(204)
          .header('access-control-allow-methods', methods)
          .header('access-control-allow-headers', 'authorization, content-type, accept, last-event-id, mcp-session-id, mcp-protocol-version')
          .header('access-control-max-age', '600')
          .send();
      }
    }
  });
}
