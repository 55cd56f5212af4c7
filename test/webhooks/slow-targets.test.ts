/** src/outbound/slow-targets.ts: a target that timed out cools off; one probe after it, one per tenant at a time; an answer clears it. */
import { expect, it } from 'vitest';
import { SlowTargets } from '../../src/outbound/slow-targets.ts';

it('cools a timed-out target off, lets one probe through after it, and forgets it on an answer; targets are per tenant', () => {
  const slow = new SlowTargets(1000);
  const a = SlowTargets.key('webhook:a', 'https://hooks.example.com/slow?x=1');
  const b = SlowTargets.key('webhook:b', 'https://hooks.example.com/fast');
  expect(a).toBe('webhook:a|https://hooks.example.com');
  expect(slow.mayTry(a, 'ws1', 0)).toBe(true);
  slow.settled(a, 'ws1', true, 0);
  expect(slow.mayTry(a, 'ws1', 500)).toBe(false);
  expect(slow.mayTry(b, 'ws2', 500)).toBe(true); // another tenant's target on the same host
  expect(slow.mayTry(a, 'ws1', 1000)).toBe(true); // the probe
  expect(slow.mayTry(a, 'ws1', 1001)).toBe(false); // while it is out
  slow.settled(a, 'ws1', true, 1500);
  expect(slow.mayTry(a, 'ws1', 2000)).toBe(false);
  expect(slow.mayTry(a, 'ws1', 2500)).toBe(true);
  slow.settled(a, 'ws1', false, 2600);
  expect(slow.mayTry(a, 'ws1', 2601)).toBe(true);
  expect(slow.mayTry(a, 'ws1', 2602)).toBe(true);
});

it('a tenant has one probe out at a time, however many of its targets cooled off; other tenants probe meanwhile', () => {
  const slow = new SlowTargets(1000);
  const hooks = [1, 2, 3].map((n) => SlowTargets.key(`webhook:${n}`, `https://hang${n}.example.com/`));
  const theirs = SlowTargets.key('webhook:9', 'https://hang9.example.com/');
  for (const h of hooks) slow.settled(h, 'ws1', true, 0);
  slow.settled(theirs, 'ws2', true, 0);
  expect(slow.mayTry(hooks[0]!, 'ws1', 1000)).toBe(true);
  expect(slow.mayTry(hooks[1]!, 'ws1', 1000)).toBe(false);
  expect(slow.mayTry(hooks[2]!, 'ws1', 1000)).toBe(false);
  expect(slow.mayTry(theirs, 'ws2', 1000)).toBe(true);
  slow.settled(hooks[0]!, 'ws1', true, 1100); // the probe timed out: the tenant's next probe may go
  expect(slow.mayTry(hooks[1]!, 'ws1', 1100)).toBe(true);
  expect(slow.mayTry(hooks[2]!, 'ws1', 1100)).toBe(false);
  // A target never seen before is tried at once: only what timed out waits.
  expect(slow.mayTry(SlowTargets.key('webhook:4', 'https://fresh.example.com/'), 'ws1', 1100)).toBe(true);
});
