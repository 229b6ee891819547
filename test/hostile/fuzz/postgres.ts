// A throwaway PostgreSQL server with one empty database, for fuzzing and overload runs outside vitest.
import postgres from 'postgres';
import { startPostgres } from '../../support/postgres-server.js';

export async function throwawayPostgresDatabase(name = 'hostile'): Promise<{ url: string; stop: () => void }> {
  const server = await startPostgres();
  const admin = postgres(server.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(server.url);
  u.pathname = `/${name}`;
  return { url: u.toString(), stop: () => server.stop() };
}
