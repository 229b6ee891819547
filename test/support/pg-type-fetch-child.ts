// A child process for test/storage/postgres-type-fetch.test.ts: a postgres.js client whose connections cannot read
// the catalog's array types (its role may not read pg_type), with or without the bundle's guard.
// Prints "warning <code>" for each process warning and "survived" if it gets to the end; the parent reads the exit code.
import postgres from 'postgres';
import { guardPostgresTypeFetch } from '../../src/storage/postgres/type-fetch-guard.js';

const [url, mode] = process.argv.slice(2) as [string, 'guarded' | 'unguarded' | 'unrelated'];
if (mode !== 'unguarded') guardPostgresTypeFetch();
process.on('warning', (w) => console.log(`warning ${(w as Error & { code?: string }).code ?? w.name}`));
if (mode === 'unrelated') void Promise.reject(new Error('an unrelated rejection nobody handles'));
const u = new URL(url);
const sql = postgres({
  host: u.hostname, port: Number(u.port), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password),
  database: u.pathname.slice(1) || 'postgres', max: 1, onnotice: () => {},
});
for (let i = 0; i < 3; i++) {
  try {
    await sql`select 1 as x`;
  } catch {
    // The query behind the failed type fetch fails or succeeds on its own: not what is watched here.
  }
}
await new Promise((r) => setTimeout(r, 300));
await sql.end({ timeout: 1 });
console.log('survived');
