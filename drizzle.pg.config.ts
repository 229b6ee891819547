// drizzle-kit config for the PostgreSQL schema: `npx drizzle-kit generate --config drizzle.pg.config.ts --name <what>`.
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/storage/postgres/schema.ts',
  out: './src/storage/postgres/migrations',
});
