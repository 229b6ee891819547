// Per-test-file PostgreSQL databases: each file gets a fresh database on the shared throwaway server.
import { inject } from 'vitest';
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';

/** Creates a fresh database on the test server and returns its URL plus a drop function. */
export async function freshPostgresDatabase(prefix = 'cp'): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = inject('postgresUrl');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
