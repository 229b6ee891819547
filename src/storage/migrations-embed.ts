// Renders a drizzle-kit migrations folder as a TypeScript module, so the single-file bundle carries its migrations.
// test/storage/embedded-migrations.test.ts keeps src/storage/<dialect>/embedded-migrations.ts equal to this output
// (`npx vitest run test/storage/embedded-migrations.test.ts -u` rewrites it after `drizzle-kit generate`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmbeddedMigration } from './schema-version.js';

interface Journal {
  entries: { tag: string; when: number; breakpoints: boolean }[];
}

/** The migrations of `folder` in journal order, read exactly as drizzle's readMigrationFiles() reads them. */
export function readMigrationsFolder(folder: string): EmbeddedMigration[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;
  return journal.entries.map((e) => ({ tag: e.tag, when: e.when, breakpoints: e.breakpoints, sql: readFileSync(join(folder, `${e.tag}.sql`), 'utf8') }));
}

/** The module text for `folder` (named relative to the repository in its header). */
export function renderEmbeddedMigrations(folder: string, displayFolder: string): string {
  const ms = readMigrationsFolder(folder);
  const body = ms
    .map((m) => `  {\n    tag: ${JSON.stringify(m.tag)},\n    when: ${m.when},\n    breakpoints: ${m.breakpoints},\n    sql: ${JSON.stringify(m.sql)},\n  },\n`)
    .join('');
  return [
    `// GENERATED from ${displayFolder} by test/storage/embedded-migrations.test.ts (vitest -u); do not edit by hand.`,
    `import type { EmbeddedMigration } from '../schema-version.js';`,
    ``,
    `export const migrations: readonly EmbeddedMigration[] = [`,
    `${body}];`,
    ``,
  ].join('\n');
}
