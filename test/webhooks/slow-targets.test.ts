/** src/outbound/slow-targets.ts: a target that timed out cools off; one probe after it, one per tenant at a time; an answer clears it. src/outbound/tenant-share.ts: a workspace's share of the worker's slots. */
import pg from 'pg';
import { expect, it } from 'vitest';
import { SlowTargets } from '../../src/outbound/slow-targets.ts';
import { TenantShare } from '../../src/outbound/tenant-share.ts';
import { createTestDatabase } from '../support/harness.ts';

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

it('a workspace runs at most its share of outbound jobs at once: past it, its jobs are not fetched, and one fetched anyway is put back', async () => {
  const share = TenantShare.of(8);
  expect(share.perTenant).toBe(4);
  expect(TenantShare.of(1).perTenant).toBe(1);
  const job = (ws?: string) => ({ flags: ws ? { [`svc_outbound:${ws}`]: true } : null });
  expect(TenantShare.tenantOf(job('ws1'))).toBe('ws1');
  expect(TenantShare.tenantOf(job())).toBeUndefined();
  const ran: string[] = [];
  const hold: Array<() => void> = [];
  const run = (name: string) => () => new Promise<void>((resolve) => { ran.push(name); hold.push(resolve); });
  const putBack = (name: string) => async () => { ran.push(`put back ${name}`); };
  const running = [1, 2, 3, 4].map((n) => share.within(job('ws1'), run(`ws1-${n}`), putBack(`ws1-${n}`)));
  expect(share.forbiddenFlags()).toEqual(['svc_outbound:ws1']);
  await share.within(job('ws1'), run('ws1-5'), putBack('ws1-5'));
  const other = share.within(job('ws2'), run('ws2-1'), putBack('ws2-1'));
  const unflagged = share.within(job(), run('old-1'), putBack('old-1'));
  expect(ran).toEqual(['ws1-1', 'ws1-2', 'ws1-3', 'ws1-4', 'put back ws1-5', 'ws2-1', 'old-1']);
  hold.shift()!();
  await running[0];
  expect(share.forbiddenFlags()).toEqual([]);
  for (const release of hold) release();
  await Promise.all([...running, other, unflagged]);
  expect(share.take('ws1')).toBe(true);
});

it('an endpoint runs at most half its workspace\'s share: its jobs wait (flag forbidden), the workspace\'s other endpoints go on', async () => {
  const share = TenantShare.of(8);
  expect(share.perTarget).toBe(2);
  const job = (target: string) => ({ flags: { 'svc_outbound:ws1': true, [`svc_target:${target}`]: true } });
  expect(TenantShare.targetOf(job('webhook:a'))).toBe('webhook:a');
  const ran: string[] = [];
  const hold: Array<() => void> = [];
  const run = (name: string) => () => new Promise<void>((resolve) => { ran.push(name); hold.push(resolve); });
  const putBack = (name: string) => async () => { ran.push(`put back ${name}`); };
  const slow = [1, 2].map((n) => share.within(job('webhook:slow'), run(`slow-${n}`), putBack(`slow-${n}`)));
  expect(share.forbiddenFlags()).toEqual(['svc_target:webhook:slow']);
  await share.within(job('webhook:slow'), run('slow-3'), putBack('slow-3'));
  const fast = share.within(job('webhook:fast'), run('fast-1'), putBack('fast-1'));
  expect(ran).toEqual(['slow-1', 'slow-2', 'put back slow-3', 'fast-1']);
  for (const release of hold) release();
  await Promise.all([...slow, fast]);
  expect(share.forbiddenFlags()).toEqual([]);
});

it('a cool-off is kept in the database for every worker process: another sees it, an answer anywhere clears it', async () => {
  const pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 2 });
  try {
    const ws: string = (await pool.query(`select app_private.create_workspace('Cool', 'COOL', 'cool@example.test') as r`)).rows[0].r.workspace.id;
    // Three processes' memories over one database.
    const [a, b, c] = [SlowTargets.shared(pool), SlowTargets.shared(pool), SlowTargets.shared(pool)];
    const hook = SlowTargets.key('webhook:h', 'https://hang.example.com/');
    expect(await a.mayTryShared(hook, ws)).toBe(true);
    await a.settledShared(hook, ws, true);
    expect(await b.mayTryShared(hook, ws)).toBe(false);
    expect(await b.mayTryShared(SlowTargets.key('webhook:other', 'https://hang.example.com/'), ws)).toBe(true);
    // An answer (here a's probe, let through once the cool-off is over) clears it for a process that never saw it.
    await pool.query(`update app_private.outbound_cool_offs set until = now() - interval '1 second'`);
    a.settled(hook, ws, true, Date.now() - 31_000);
    expect(await a.mayTryShared(hook, ws)).toBe(true);
    await a.settledShared(hook, ws, false);
    expect((await pool.query('select count(*)::int as n from app_private.outbound_cool_offs')).rows[0].n).toBe(0);
    expect(await c.mayTryShared(hook, ws)).toBe(true);
  } finally {
    await pool.end();
  }
});
