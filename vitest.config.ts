import { defineConfig } from 'vitest/config';
import { isPostgresTypeFetchFailure } from './src/storage/postgres/type-fetch-guard.js';
import { POSTGRES_CONNECTION_MODULE, patchPostgresConnection } from './src/storage/postgres/driver-patch.mjs';

export default defineConfig({
  // The tests run postgres.js as the bundle does: with nextWrite() guarded (driver-patch.mjs). Inlined, so vite
  // transforms it instead of leaving it to Node.
  plugins: [{ name: 'postgres-driver-patch', enforce: 'pre', transform: (code, id) => (POSTGRES_CONNECTION_MODULE.test(id) ? patchPostgresConnection(code, id) : undefined) }],
  test: {
    server: { deps: { inline: ['postgres'] } },
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
