import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: files in parallel, but not so many that PostgreSQL and kubectl starve.
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
