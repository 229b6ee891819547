// A fix to postgres.js applied where it is loaded: by esbuild into the bundle (build.mjs), by vite under the tests
// (vitest.config.ts). Plain JavaScript, so that build.mjs can load it with no TypeScript step; types in the .d.mts.
//
// postgres.js 3.4.x buffers a write smaller than 1 KiB and sends it from a setImmediate callback, nextWrite(). On a
// reserved connection — our write and read transactions (transaction.ts) — a statement can be written after the
// connection closed (PostgreSQL stopped, failed over or terminated the backend mid-transaction): closed() has set
// the socket to null, nextWrite() reads `socket.write` from null, and the TypeError, thrown from an immediate, ends the
// process (porsager/postgres#1154, #1208; fixes proposed in #1168, #1176, #1209, none released). Guarded, the write
// fails the way the closed connection's other queries do, CONNECTION_CLOSED, which storage retries.
import { readFile } from 'node:fs/promises';

const UNGUARDED = '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n';
const MARKER = 'clusterpedia: porsager/postgres#1208';
const GUARDED = `  function nextWrite(fn) {
    if (!socket) { // ${MARKER}
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options, socket))
      return false
    }
    const x = socket.write(chunk, fn)
`;

/** postgres.js's ESM connection module, the one file patched. */
export const POSTGRES_CONNECTION_MODULE = /[\\/]postgres[\\/]src[\\/]connection\.js$/;

/** True when `source` carries the guard (the bundle, say). */
export function hasPostgresNextWriteGuard(source) {
  return source.includes(MARKER);
}

/**
 * The module's source with nextWrite() guarded. Throws when the function is not as expected: a postgres.js upgrade
 * must be checked (fixed upstream? then this patch goes) rather than shipped unguarded.
 */
export function patchPostgresConnection(source, path) {
  if (hasPostgresNextWriteGuard(source)) return source;
  if (!source.includes(UNGUARDED)) {
    throw new Error(`${path}: postgres.js's nextWrite() is not the one src/storage/postgres/driver-patch.mjs guards; if porsager/postgres#1208 is fixed in this version, remove the patch`);
  }
  return source.replace(UNGUARDED, GUARDED);
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
