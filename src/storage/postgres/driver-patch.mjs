// Fixes to postgres.js applied where it is loaded: by esbuild into the bundle (build.mjs), by vite under the tests
// (vitest.config.ts), by a module hook under tsx (driver-patch-register.mjs). Plain JavaScript, so that build.mjs can
// load it with no TypeScript step; types in the .d.mts.
//
// 1. postgres.js 3.4.x buffers a write smaller than 1 KiB and sends it from a setImmediate callback, nextWrite(). On a
// reserved connection — our write and read transactions (transaction.ts) — a statement can be written after the
// connection closed (PostgreSQL stopped, failed over or terminated the backend mid-transaction): closed() has set
// the socket to null, nextWrite() reads `socket.write` from null, and the TypeError, thrown from an immediate, ends the
// process (porsager/postgres#1154, #1208; fixes proposed in #1168, #1176, #1209, none released). Guarded, the write
// fails the way the closed connection's other queries do, CONNECTION_CLOSED, which storage retries.
//
// 2. A socket that fails with an error ('error', then 'close' a turn of the event loop later) rejects the queries it
// had at once; a query handed to the same connection between the two events (a caller retrying at once) waited in
// its queue, and closed() — told the close came with an error — rejected nothing more: that query never settled
// (the stale `query` of porsager/postgres#1130 leaves the connection looking busy, so the pool queues behind it).
// Patched, closed() fails what is left with CONNECTION_CLOSED whatever the close.
//
// 3. The count of rows received is kept per connection and zeroed only by CommandComplete. A statement that fails
// after some of its rows came (an ErrorResponse mid-stream, or the socket closing under it: PostgreSQL stopped) never
// gets one, so the connection's next statement — the first one after a reconnect, too — stores its rows from that
// count on: its result has holes at the front, and code reading it meets `undefined` rows (chaos seed 19018: the
// apiserver's catalog failed with a 500, `Cannot read properties of undefined (reading 'cluster')`, just after
// PostgreSQL came back; porsager/postgres#1119, #1181; fix proposed in #1120, not released). Patched, the count starts
// again with each new result, at ReadyForQuery.
import { readFile } from 'node:fs/promises';

/** Each fix: the source it replaces and what with; a marker comment tells a patched module. */
const PATCHES = [
  {
    issue: 'porsager/postgres#1208',
    from: '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n',
    to: `  function nextWrite(fn) {
    if (!socket) { // clusterpedia: porsager/postgres#1208
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options, socket))
      return false
    }
    const x = socket.write(chunk, fn)
`,
  },
  {
    issue: 'porsager/postgres#1130',
    from: "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
    // The leading semicolon: the module has none, and a line starting with "(" would call the line before it.
    to: "    ;(query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket)) // clusterpedia: porsager/postgres#1130\n",
  },
  {
    issue: 'porsager/postgres#1119',
    from: '    query = results = errorResponse = null\n    result = new Result()\n',
    to: '    query = results = errorResponse = null\n    result = new Result()\n    rows = 0 // clusterpedia: porsager/postgres#1119\n',
  },
];
const marker = (p) => `clusterpedia: ${p.issue}`;

/** postgres.js's ESM connection module, the one file patched. */
export const POSTGRES_CONNECTION_MODULE = /[\\/]postgres[\\/]src[\\/]connection\.js$/;

/**
 * The module's source with every fix applied. Throws when the code a fix replaces is not as expected: a postgres.js
 * upgrade must be checked (fixed upstream? then that fix goes) rather than shipped without it.
 */
export function patchPostgresConnection(source, path) {
  let out = source;
  for (const p of PATCHES) {
    if (out.includes(marker(p))) continue;
    if (!out.includes(p.from)) {
      throw new Error(`${path}: postgres.js's code is not the one src/storage/postgres/driver-patch.mjs fixes for ${p.issue}; if it is fixed in this version, remove the patch`);
    }
    out = out.replace(p.from, p.to);
  }
  return out;
}

/** The esbuild plugin that applies it. */
export function postgresDriverPatch() {
  return {
    name: 'postgres-driver-patch',
    setup(build) {
      build.onLoad({ filter: POSTGRES_CONNECTION_MODULE }, async (args) => ({ contents: patchPostgresConnection(await readFile(args.path, 'utf8'), args.path), loader: 'js' }));
    },
  };
}
