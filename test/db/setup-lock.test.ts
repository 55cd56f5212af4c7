/** The setup lock of an embedded data directory: one process at a time, and no lock left by a dead one blocks. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withSetupLock } from '../../src/db/embedded.ts';

const tmpDir = () => fs.mkdtemp(path.join(os.tmpdir(), 'svc-lock-'));

describe('setup.lock', () => {
  it('an empty lock (a process killed between creating it and writing its pid) is taken over once it is a few seconds old', async () => {
    const dir = await tmpDir();
    const lock = path.join(dir, 'setup.lock');
    await fs.writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(lock, old, old);
    const started = Date.now();
    expect(await withSetupLock(dir, async () => 'ran')).toBe('ran');
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(fs.stat(lock)).rejects.toThrow();
  });

  it('a lock naming a dead pid is taken over; one naming a live process is waited for, and the wait is said', async () => {
    const dir = await tmpDir();
    const lock = path.join(dir, 'setup.lock');
    await fs.writeFile(lock, '2147483646'); // no such process
    expect(await withSetupLock(dir, async () => 'ran')).toBe('ran');

    await fs.writeFile(lock, String(process.ppid)); // alive: the test runner's parent
    const said: string[] = [];
    let done = false;
    const waiting = withSetupLock(dir, async () => { done = true; }, (line) => said.push(line));
    await new Promise((r) => setTimeout(r, 400));
    expect(done).toBe(false);
    expect(said).toEqual([expect.stringMatching(/^waiting for another svc process \(pid \d+\) that is setting up /)]);
    await fs.rm(lock);
    await waiting;
    expect(done).toBe(true);
  });
});
