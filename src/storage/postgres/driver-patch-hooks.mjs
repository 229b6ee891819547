// driver-patch.mjs as a Node module hook, for code that runs from source rather than from the bundle or under vitest:
// the benchmarks and the chaos harness, whose own postgres.js clients (probes, state reads, backup restores) meet
// PostgreSQL stopping under them just as storage does. Registered by driver-patch-register.mjs (`tsx --import`).
import { fileURLToPath } from 'node:url';
import { POSTGRES_CONNECTION_MODULE, patchPostgresConnection } from './driver-patch.mjs';

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.startsWith('file:') || !POSTGRES_CONNECTION_MODULE.test(fileURLToPath(url)) || loaded.source == null) return loaded;
  const source = typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source).toString('utf8');
  return { ...loaded, source: patchPostgresConnection(source, fileURLToPath(url)) };
}
