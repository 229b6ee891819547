// Init container of the API pods: copies the aggregation layer's front-proxy CA out of
// kube-system/extension-apiserver-authentication into a file for --requestheader-client-ca-file.
//
// Why: kube-apiserver forwards requests for clusterpedia.io with the user in X-Remote-User/X-Remote-Group
// headers, authenticated by a client certificate signed by this CA. The CA lives in a ConfigMap in kube-system,
// which a Pod in clusterpedia-system cannot mount; the standard RoleBinding to
// `extension-apiserver-authentication-reader` lets the ServiceAccount read it through the API instead.
// Plain Node (no dependencies): it runs in the clusterpedia image itself, so no extra image is pulled.
// TLS to the API server is verified with the ServiceAccount CA, passed in NODE_EXTRA_CA_CERTS by the manifest.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const out = process.argv[2];
const saDir = process.env.SERVICE_ACCOUNT_DIR ?? '/var/run/secrets/kubernetes.io/serviceaccount';
const host = process.env.KUBERNETES_SERVICE_HOST;
const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';

function fail(message) {
  process.stderr.write(`fetch-front-proxy-ca: ${message}\n`);
  process.exit(1);
}

if (!out) fail('usage: fetch-front-proxy-ca.mjs <output file>');
if (!host) fail('KUBERNETES_SERVICE_HOST is not set: not running in a cluster');

const base = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
const url = `${base}/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication`;
let token;
try {
  token = readFileSync(`${saDir}/token`, 'utf8').trim();
} catch (e) {
  fail(`cannot read the service account token in ${saDir}: ${e.message}`);
}

let res;
try {
  res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
} catch (e) {
  fail(`GET ${url}: ${e.cause?.message ?? e.message}`);
}
if (!res.ok) fail(`GET ${url}: HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
const ca = (await res.json()).data?.['requestheader-client-ca-file'];
// Without this key kube-apiserver has no front-proxy configured and cannot serve aggregated APIs at all.
if (!ca) fail('kube-system/extension-apiserver-authentication has no requestheader-client-ca-file: the aggregation layer is not configured');

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, ca, { mode: 0o644 });
process.stdout.write(`fetch-front-proxy-ca: wrote ${out}\n`);
