// A fresh PostgreSQL database for one benchmark run: on CLUSTERPEDIA_BENCH_POSTGRES_URL's server when set, else on a
// throwaway server on a loopback port; dropped (and the server stopped) when the run ends, however it ends.
import postgres from 'postgres';
import { startPostgres, type PostgresServer } from '../test/support/postgres-server.js';

/** Runs `run` with the URL of a new database `name`, and an admin connection to the server. */
export async function withBenchDatabase<T>(name: string, run: (url: string, admin: postgres.Sql) => Promise<T>): Promise<T> {
  let server: PostgresServer | undefined;
  let base = process.env.CLUSTERPEDIA_BENCH_POSTGRES_URL;
  if (!base) {
    server = await startPostgres();
    base = server.url;
  }
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const u = new URL(base);
    u.pathname = `/${name}`;
    return await run(u.toString(), admin);
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
    await admin.end();
    server?.stop();
  }
}
