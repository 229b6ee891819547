// Bundles the whole CLI into one ESM file, dist/clusterpedia.mjs (better-sqlite3 stays external: it is a native addon).
// The SQLite writer thread's code is bundled first, on its own, and carried inside it as a string.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresDriverPatch } from './src/storage/postgres/driver-patch.mjs';

/** The SQLite writer thread's code (src/storage/sqlite/writer-worker.ts) as one CommonJS script. */
export async function bundleSqliteWriter() {
  const r = await build({
    entryPoints: [fileURLToPath(new URL('./src/storage/sqlite/writer-worker.ts', import.meta.url))],
    bundle: true,
    write: false,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    legalComments: 'none',
    logLevel: 'warning',
    external: ['better-sqlite3'],
  });
  return r.outputFiles[0].text;
}

async function main() {
  const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
  const r = await build({
    entryPoints: ['src/main.ts'],
    outfile: 'dist/clusterpedia.mjs',
    write: false,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: 'linked',
    // Without it esbuild keeps the dependencies' comments, some of them not Latin-1 (“”, —): V8 then holds the whole
    // source, which it keeps for lazy compilation, as a two-byte string, 13.8 MB of every process's heap. Whitespace
    // and comments gone, it is 4.8 MB, one byte a character. Names are kept, so stack traces still read; the linked
    // source map (node --enable-source-maps) maps them back to the sources.
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
    external: ['better-sqlite3'],
    plugins: [postgresDriverPatch()],
    // node-fetch's URL parser (under @kubernetes/client-node) requires Node's built-in punycode, deprecated since Node
    // 21 with a warning on every start; the npm package is the same code without the warning.
    alias: { punycode: 'punycode/punycode.js' },
    define: {
      __CLUSTERPEDIA_VERSION__: JSON.stringify(pkg.version),
      __SQLITE_WRITER_WORKER__: JSON.stringify(await bundleSqliteWriter()),
      // The PediaCluster CRD, whose schema the apiserver publishes at /openapi (src/roles/apiserver/openapi.ts).
      __CLUSTERPEDIA_PEDIACLUSTER_CRD__: JSON.stringify(readFileSync(new URL('./manifests/base/crds/cluster.clusterpedia.io_pediaclusters.yaml', import.meta.url), 'utf8')),
    },
    // CJS dependencies bundled into ESM still call require(); give them one.
    banner: {
      js: "import { createRequire as __cpCreateRequire } from 'node:module'; const require = __cpCreateRequire(import.meta.url);",
    },
  });
  // Each file is written beside its place and renamed over it: a process started meanwhile (a test rebuilding the
  // bundle while another restarts it) loads the old bundle or the new one, never a file cut short — which node runs
  // as an empty module and leaves with exit code 0.
  for (const f of r.outputFiles) {
    mkdirSync(dirname(f.path), { recursive: true });
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.contents);
    renameSync(tmp, f.path);
  }
}

// Run as a script (node build.mjs), not when imported for bundleSqliteWriter; import.meta.url has symlinks resolved.
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) await main();
