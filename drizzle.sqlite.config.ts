// drizzle-kit config for the SQLite schema: `npx drizzle-kit generate --config drizzle.sqlite.config.ts --name <what>`.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/storage/sqlite/schema.ts',
  out: './src/storage/sqlite/migrations',
});
