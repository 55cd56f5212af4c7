/**
 * Webhook targets, and a repository mapping's apiUrl, are checked when they are registered (CLI, GraphQL), not only
 * at delivery: a URL carrying credentials (`http://user:secret@host/x`) is refused (they would sit in
 * delivery records), and so is a loopback, private or link-local target (literal address, `localhost`, or
 * a name resolving to one) unless SVC_EGRESS_ALLOW_PRIVATE=1. Delivery keeps its own check (egress.ts):
 * a name may re-resolve differently later, and a name that does not resolve yet is accepted here.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { invalidInput } from '../errors.ts';
import { blockedReason } from './egress.ts';

/** SVC_EGRESS_ALLOW_PRIVATE read as the configuration reads it (src/config.ts checks it is one of these). */
export const egressAllowPrivateFromEnv = (env = process.env): boolean =>
  ['1', 'true'].includes((env.SVC_EGRESS_ALLOW_PRIVATE ?? '').trim().toLowerCase());

const LOOKUP_TIMEOUT_MS = 3000;

/** Why this URL may not be registered, or undefined when it may. */
export async function webhookUrlProblem(raw: string, allowPrivate = egressAllowPrivateFromEnv()): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Shaped like one but not a URL (a port past 65535, a bad %-escape in the host): it could never be delivered to.
    return /^https?:\/\//i.test(raw) ? 'is not a valid URL' : undefined; // anything else: the SQL check names it
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined; // likewise
  if (url.username || url.password || /^[a-z]+:\/\/[^/?#]*@/i.test(raw)) return 'must not contain credentials (user:password@); use the signing secret instead';
  if (allowPrivate) return undefined;
  // A fully qualified name's trailing dot ("localhost.") names the same host.
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
  const refuse = (ip: string, reason: string) =>
    `refused: ${host} ${ip === host ? 'is' : `resolves to ${ip},`} ${/^[aeiou]/i.test(reason) ? 'an' : 'a'} ${reason} address (set SVC_EGRESS_ALLOW_PRIVATE=1 to allow)`;
  if (net.isIP(host)) {
    const reason = blockedReason(host);
    return reason ? refuse(host, reason) : undefined;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return refuse(host, 'loopback');
  let addresses: Array<{ address: string }>;
  try {
    addresses = await Promise.race([
      dns.lookup(host, { all: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS).unref()),
    ]);
  } catch {
    return undefined; // not resolvable now: delivery checks again when it is
  }
  for (const { address } of addresses) {
    const reason = blockedReason(address);
    if (reason) return refuse(address, reason);
  }
  return undefined;
}

/** Throws 400 invalid_input naming `field` when the URL may not be registered. null/undefined: nothing to check. */
export async function assertWebhookUrl(raw: unknown, field = 'url', allowPrivate = egressAllowPrivateFromEnv()): Promise<void> {
  if (typeof raw !== 'string') return;
  const problem = await webhookUrlProblem(raw, allowPrivate);
  if (problem) throw invalidInput({ [field]: problem }, `${field} ${problem}`);
}
