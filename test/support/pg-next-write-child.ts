// A child process for test/storage/postgres-driver-patch.test.ts: a reserved postgres.js connection (as storage's
// transactions hold) whose backend is terminated between two statements; the second statement's write then comes
// after the connection closed. `unpatched` loads postgres.js as installed; `patched` a copy of it with
// driver-patch.mjs applied. Prints "rejected <code>" and "survived" if it gets to the end; the parent reads the exit code.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type postgresType from 'postgres';
import { patchPostgresConnection } from '../../src/storage/postgres/driver-patch.mjs';

const [url, mode] = process.argv.slice(2) as [string, 'patched' | 'unpatched'];
// Its package does not export package.json: found from the CommonJS entry, <package>/cjs/src/index.js.
const installed = dirname(dirname(dirname(createRequire(import.meta.url).resolve('postgres'))));
let dir: string | undefined;
let entry = join(installed, 'src', 'index.js');
if (mode === 'patched') {
  dir = mkdtempSync(join(tmpdir(), 'cp-pg-patched-'));
  cpSync(join(installed, 'src'), join(dir, 'src'), { recursive: true });
  // The copy's own package.json says its .js files are ES modules, as the installed one does.
  cpSync(join(installed, 'package.json'), join(dir, 'package.json'));
  const connection = join(dir, 'src', 'connection.js');
  writeFileSync(connection, patchPostgresConnection(readFileSync(connection, 'utf8'), connection));
  entry = join(dir, 'src', 'index.js');
}
const postgres = (await import(pathToFileURL(entry).href)).default as typeof postgresType;
const sql = postgres(url, { max: 2, onnotice: () => {} });
const admin = postgres(url, { max: 1, onnotice: () => {} });
try {
  const reserved = await sql.reserve();
  const [row] = await reserved`SELECT pg_backend_pid() AS pid`;
  await admin`SELECT pg_terminate_backend(${(row as { pid: number }).pid})`;
  await new Promise((r) => setTimeout(r, 100));
  await reserved`SELECT 1`;
  console.log('answered');
} catch (e: unknown) {
  console.log(`rejected ${(e as { code?: string }).code ?? String(e)}`);
}
await sql.end({ timeout: 1 });
await admin.end({ timeout: 1 });
if (dir) rmSync(dir, { recursive: true, force: true });
console.log('survived');
