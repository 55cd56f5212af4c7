/** One workspace never holds every connection of the request pool (src/db/as-caller.ts). */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPools, type Pools } from '../../src/db/database.ts';
import { queryAsCaller } from '../../src/db/as-caller.ts';
import { createWorkspace, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let pools: Pools;
let a: Workspace;
let b: Workspace;

beforeAll(async () => {
  t = await startTestApp();
  a = await createWorkspace(t);
  b = await createWorkspace(t);
  pools = createPools(t.ownerUrl, { apiMax: 3, ownerMax: 1 });
});
afterAll(async () => {
  await pools.api.end();
  await pools.owner.end();
  await t.close();
});

it('a workspace with more slow calls than the pool has connections leaves one free: another workspace\'s call runs at once', async () => {
  const callerA = await t.keys.authenticate(`Bearer ${a.token}`);
  const callerB = await t.keys.authenticate(`Bearer ${b.token}`);
  const finished: string[] = [];
  const slow = [1, 2, 3, 4, 5].map((n) => queryAsCaller(pools.api, callerA, 'share_slow', 'pg_sleep(0.3)', []).then(() => { finished.push(`a${n}`); }));
  await new Promise((r) => setTimeout(r, 100));
  // Two of A's five are running (the pool's 3 less one); the other three wait in A's own queue, not the pool's.
  expect(pools.api.waitingCount).toBe(0);
  await queryAsCaller(pools.api, callerB, 'share_fast', '1', []).then(() => { finished.push('b'); });
  await Promise.all(slow);
  expect(finished.indexOf('b')).toBe(0);
  expect(finished.sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b']);
});
