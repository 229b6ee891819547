import { defineConfig } from 'vitest/config';
import { isPostgresTypeFetchFailure } from './src/storage/postgres/type-fetch-guard.js';

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
    // postgres.js drops the promise of its array-type query when a connection fails while starting (a test stopping
    // its PostgreSQL server): the bundle's entry guards against it (type-fetch-guard.ts, tested in
    // test/storage/postgres-type-fetch.test.ts); here it would be reported against whichever test ran then.
    onUnhandledError: (error) => !isPostgresTypeFetchFailure(error),
  },
});
