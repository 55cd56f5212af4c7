import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    setupFiles: ['./test/support/setup-file.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000, // the global teardown stops the embedded cluster (pg_ctl stop), slow on a loaded machine
    pool: 'forks',
  },
});
