/** The egress guard: which addresses an outbound request may reach. */
import { describe, expect, it } from 'vitest';
import { blockedReason, checkLiteralHost, guardedLookup } from '../../src/webhooks/egress.ts';

describe('blockedReason', () => {
  it('refuses loopback, private, link-local and other special IPv4 ranges', () => {
    for (const ip of ['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254',
      '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255', '198.18.0.1']) {
      expect(blockedReason(ip), ip).toBeDefined();
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '100.128.0.1', '93.184.216.34']) {
      expect(blockedReason(ip), ip).toBeUndefined();
    }
  });

  it('refuses the IPv6 equivalents, including IPv4 addresses wrapped in IPv6', () => {
    for (const ip of ['::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
      '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', '2001:db8::1', 'fe80::1%eth0']) {
      expect(blockedReason(ip), ip).toBeDefined();
    }
    for (const ip of ['2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
      expect(blockedReason(ip), ip).toBeUndefined();
    }
  });

  it('checks literal hosts (URL brackets included) unless private egress is allowed', () => {
    expect(() => checkLiteralHost('127.0.0.1', false)).toThrow(/loopback/);
    expect(() => checkLiteralHost('[::1]', false)).toThrow(/loopback/);
    expect(() => checkLiteralHost('127.0.0.1', true)).not.toThrow();
    expect(() => checkLiteralHost('example.com', false)).not.toThrow(); // names are checked at lookup
  });

  it('checks every address a name resolves to', async () => {
    const lookup = (allow: boolean, all: boolean) => new Promise<{ err: Error | null; address: unknown }>((resolve) =>
      guardedLookup(allow)('localhost', { all }, (err, address) => resolve({ err, address })));
    const denied = await lookup(false, true);
    expect(denied.err?.message).toMatch(/egress denied: localhost resolves to .* \(loopback\)/);
    const allowed = await lookup(true, false);
    expect(allowed.err).toBeNull();
    expect(typeof allowed.address).toBe('string');
  });
});
