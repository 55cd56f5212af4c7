/**
 * Outbound requests (webhooks, agent deliveries, later link scraping) must not let a tenant make the
 * service probe its own network. Every address a host name resolves to is checked, and the connection
 * goes to an address that passed the check (the check is the DNS lookup of the socket itself, so a
 * second resolution cannot swap in a private address). SVC_EGRESS_ALLOW_PRIVATE=1 turns this off.
 */
import dns from 'node:dns';
import net from 'node:net';

const V4_BLOCKS: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
}

function v4Reason(ip: string): string | undefined {
  const n = v4ToInt(ip);
  for (const [base, bits, reason] of V4_BLOCKS) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((n & mask) === (v4ToInt(base) & mask)) return reason;
  }
  return undefined;
}

/** 16 bytes of an IPv6 address (handles :: and a trailing dotted IPv4 part). */
function v6Bytes(ip: string): number[] {
  let text = ip.split('%')[0]!.toLowerCase();
  const tail: number[] = [];
  const dotted = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    text = `${dotted[1]}0:0`;
    tail.push(...dotted[2]!.split('.').map(Number));
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const groups = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = groups.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function v6Reason(ip: string): string | undefined {
  const b = v6Bytes(ip);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const embedded = (at: number) => b.slice(at, at + 4).join('.');
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4Reason(embedded(12)) ?? undefined; // ::ffff:a.b.c.d
  if (zeros(0, 12)) return zeros(12, 15) && b[15]! <= 1 ? (b[15] === 1 ? 'loopback' : 'unspecified') : 'IPv4-compatible';
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return v4Reason(embedded(12)); // NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return v4Reason(embedded(2)); // 6to4
  if ((b[0]! & 0xfe) === 0xfc) return 'unique local (private)';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'site-local';
  if (b[0] === 0xff) return 'multicast';
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return 'documentation';
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) return 'Teredo';
  if (b[0] === 0x01 && zeros(1, 8)) return 'discard-only';
  return undefined;
}

/** Why an address may not be reached (loopback, private, link-local, ...), or undefined when it may. */
export function blockedReason(ip: string): string | undefined {
  const family = net.isIP(ip);
  if (family === 4) return v4Reason(ip);
  if (family === 6) return v6Reason(ip);
  return 'not an IP address';
}

export class EgressDenied extends Error {
  readonly code = 'EGRESS_DENIED';
}

const denied = (host: string, ip: string, reason: string) =>
  new EgressDenied(`egress denied: ${host} resolves to ${ip} (${reason}); set SVC_EGRESS_ALLOW_PRIVATE=1 to allow`);

/** Throws EgressDenied when a literal IP host is not allowed. Host names are checked at lookup. */
export function checkLiteralHost(host: string, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const bare = host.replace(/^\[|\]$/g, '');
  if (!net.isIP(bare)) return;
  const reason = blockedReason(bare);
  if (reason) throw denied(host, bare, reason);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http.request: resolves every address, refuses the request if any is not allowed. */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (!allowPrivate) {
        for (const a of addresses) {
          const reason = blockedReason(a.address);
          if (reason) return callback(denied(hostname, a.address, reason) as NodeJS.ErrnoException, '');
        }
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
