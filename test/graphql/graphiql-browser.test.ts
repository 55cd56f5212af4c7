/**
 * GraphiQL opens in a real headless browser (Debian's chromium, /usr/bin/chromium) against `svc start`
 * and runs a query: scripts/graphiql-check.ts does it; CI installs chromium first (see .ci/run).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { createTestDatabase } from '../support/harness.ts';

const run = promisify(execFile);

it('GraphiQL at GET /graphiql opens on how to add the key, shows the Docs at once and runs a query with a Bearer key, in headless chromium against `svc start`', async () => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/graphiql-check.ts'], {
    env: { ...process.env, DATABASE_URL: await createTestDatabase() },
    timeout: 120_000,
  });
  const result = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(result).toMatchObject({
    ok: true,
    title: expect.stringMatching(/Ruru|GraphiQL/),
    data: { currentWorkspace: { key: expect.stringMatching(/^GQ/), name: 'GraphiQL check' }, viewerRole: 'OWNER' },
    welcome: true,
    docsLoaded: true,
  });
}, 180_000);
