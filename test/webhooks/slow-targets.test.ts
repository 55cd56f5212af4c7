/** src/outbound/slow-targets.ts: a target that timed out cools off; one probe after it; an answer clears it. */
import { expect, it } from 'vitest';
import { SlowTargets } from '../../src/outbound/slow-targets.ts';

it('cools a timed-out target off, lets one probe through after it, and forgets it on an answer; targets are per tenant', () => {
  const slow = new SlowTargets(1000);
  const a = SlowTargets.key('webhook:a', 'https://hooks.example.com/slow?x=1');
  const b = SlowTargets.key('webhook:b', 'https://hooks.example.com/fast');
  expect(a).toBe('webhook:a|https://hooks.example.com');
  expect(slow.mayTry(a, 0)).toBe(true);
  slow.settled(a, true, 0);
  expect(slow.mayTry(a, 500)).toBe(false);
  expect(slow.mayTry(b, 500)).toBe(true); // another tenant's target on the same host
  expect(slow.mayTry(a, 1000)).toBe(true); // the probe
  expect(slow.mayTry(a, 1001)).toBe(false); // while it is out
  slow.settled(a, true, 1500);
  expect(slow.mayTry(a, 2000)).toBe(false);
  expect(slow.mayTry(a, 2500)).toBe(true);
  slow.settled(a, false, 2600);
  expect(slow.mayTry(a, 2601)).toBe(true);
  expect(slow.mayTry(a, 2602)).toBe(true);
});
