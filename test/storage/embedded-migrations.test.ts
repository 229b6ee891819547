// The migrations embedded in the bundle are exactly the committed drizzle-kit output. After
// `npx drizzle-kit generate --config drizzle.<dialect>.config.ts --name <what>`, rewrite them with
// `npx vitest run test/storage/embedded-migrations.test.ts -u`.
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { describe, expect, it } from 'vitest';
import { renderEmbeddedMigrations } from '../../src/storage/migrations-embed.js';
import { migrations as pgMigrations } from '../../src/storage/postgres/embedded-migrations.js';
import { drizzleMigrations } from '../../src/storage/schema-version.js';
import { migrations as sqliteMigrations } from '../../src/storage/sqlite/embedded-migrations.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('embedded migrations', () => {
  for (const [dialect, embedded] of [['sqlite', sqliteMigrations], ['postgres', pgMigrations]] as const) {
    it(`${dialect}: src/storage/${dialect}/embedded-migrations.ts is generated from src/storage/${dialect}/migrations`, async () => {
      const folder = `src/storage/${dialect}/migrations`;
      await expect(renderEmbeddedMigrations(`${root}${folder}`, folder)).toMatchFileSnapshot(`${root}src/storage/${dialect}/embedded-migrations.ts`);
    });

    it(`${dialect}: drizzle's migrator would read the same statements and hashes from the folder`, () => {
      expect(drizzleMigrations(embedded)).toEqual(readMigrationFiles({ migrationsFolder: `${root}src/storage/${dialect}/migrations` }));
    });
  }
});
