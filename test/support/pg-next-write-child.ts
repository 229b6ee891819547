// A child process for test/storage/postgres-driver-patch.test.ts. `unpatched` loads postgres.js as installed;
// `patched` a copy of it with driver-patch.mjs applied. Scenarios:
// - next-write (porsager/postgres#1208): a reserved connection (as storage's transactions hold) whose backend is
//   terminated between two statements; the second statement's write then comes after the connection closed.
// - error-then-close (#1130): a statement sent between its connection's socket failing ('error') and closing ('close').
// - rows-after-error (#1119): a statement that fails after some of its rows came, then another on the same connection;
//   prints the second one's "length <n> holes <n>".
// Prints "rejected <code>", "answered" or "pending", and "survived" if it gets to the end; the parent reads the exit code.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type postgresType from 'postgres';
import { patchPostgresConnection } from '../../src/storage/postgres/driver-patch.mjs';


const [url, mode, scenario = 'next-write'] = process.argv.slice(2) as [string, 'patched' | 'unpatched', ('next-write' | 'error-then-close' | 'rows-after-error')?];
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
const target = new URL(url);
let socket: Socket | undefined;
// postgres.js's `socket` option (left out of its types): the test holds the connection's socket to fail it.
const own = { socket: () => (socket = Object.assign(connect(Number(target.port || 5432), target.hostname), { host: target.hostname, port: Number(target.port || 5432) })) };
const sql = scenario === 'next-write' ? postgres(url, { max: 2, onnotice: () => {} }) : postgres(url, { max: 1, onnotice: () => {}, ...own });
const admin = postgres(url, { max: 1, onnotice: () => {} });
const outcome = (p: Promise<unknown>, ms: number): Promise<string> => Promise.race([
  p.then(() => 'answered', (e: unknown) => `rejected ${(e as { code?: string }).code ?? String(e)}`),
  new Promise<string>((r) => setTimeout(() => r('pending'), ms)),
]);
if (scenario === 'next-write') {
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
} else if (scenario === 'rows-after-error') {
  // Three rows, then division by zero on the fourth.
  console.log(`first ${await outcome(sql`SELECT i, 1 / (4 - i) AS boom FROM generate_series(1, 10) i`, 3_000)}`);
  const rows = await sql`SELECT x FROM generate_series(1, 5) x`;
  console.log(`length ${rows.length} holes ${rows.length - Object.keys(rows).filter((k) => /^\d+$/.test(k)).length}`);
} else {
  await sql`SELECT 1`;
  const first = sql`SELECT pg_sleep(1)`;
  setTimeout(() => socket?.destroy(Object.assign(new Error('reset'), { code: 'ECONNRESET' })), 100);
  console.log(`first ${await outcome(first, 3_000)}`);
  console.log(await outcome(sql`SELECT 2`, 3_000)); // sent at once: between the socket's 'error' and its 'close'
}
await sql.end({ timeout: 1 });
await admin.end({ timeout: 1 });
if (dir) rmSync(dir, { recursive: true, force: true });
console.log('survived');
