// Credential resolution of a PediaCluster (reference §4.2), into a client-node KubeConfig. Never echoes a secret.
import { createHash } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from './client.js';
import { KubeApiError } from './client-errors.js';
import { checkExecConfig, type ExecConfig } from './exec-credential.js';
import { kubeConfigFromString } from './kubeconfig.js';
import type { PediaClusterSpec, SecretKeyRef } from './pediacluster.js';

/** Reads one key of a Secret in the clusterpedia namespace; undefined when the Secret or key is missing. */
export type SecretReader = (ref: SecretKeyRef) => Promise<string | undefined>;

/** Reads one key of a Secret in `namespace` of the host cluster, base64-decoded; undefined when it is missing. */
export async function readHostSecret(host: KubeClient, namespace: string, ref: SecretKeyRef, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const secret = await host.json<{ data?: Record<string, string> }>(
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(ref.name)}`, signal ? { signal } : {});
    const v = secret.data?.[ref.key];
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
  } catch (e: unknown) {
    if (e instanceof KubeApiError && e.status === 404) return undefined;
    throw e;
  }
}

/** A usable connection to a member cluster. */
export interface ClusterConnection {
  kubeConfig: KubeConfig;
  /** Effective endpoint, for status.apiserver. */
  apiserver: string;
  /** Digest of everything that shapes the connection: a change means the synchro must be rebuilt. */
  fingerprint: string;
}

/** A configuration that cannot work; its message is safe to show (condition Validated=False/InvalidConfig). */
export class CredentialError extends Error {
  readonly code = 'CredentialError';
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}

const AUTH_PREFIX = 'Cluster Authentication Error: ';

/**
 * Resolves credentials in Clusterpedia's order: Secret references when no inline credential is complete, else the
 * inline kubeconfig, else apiserver + caData + (tokenData | certData + keyData). `secrets` is undefined when
 * clusters come from a file (no host cluster to read Secrets from).
 */
export async function resolveCredentials(spec: PediaClusterSpec, secrets: SecretReader | undefined): Promise<ClusterConnection> {
  const inlineComplete = !!spec.kubeconfig || !!spec.tokenData || (!!spec.certData && !!spec.keyData);
  if (!inlineComplete && spec.authenticationFrom) {
    if (!secrets) throw new CredentialError(`${AUTH_PREFIX}authenticationFrom needs a host cluster to read Secrets from (--kubeconfig or in-cluster)`);
    return fromSecrets(spec, secrets);
  }
  if (spec.kubeconfig) return fromKubeconfig(decode(spec.kubeconfig, 'kubeconfig'), '');
  if (!spec.apiserver) throw new CredentialError('Cluster APIServer Endpoint is required');
  if (!spec.tokenData && !(spec.certData && spec.keyData)) throw new CredentialError("Cluster APIServer's Token or Cert is required");
  return fromParts({
    apiserver: spec.apiserver,
    ca: spec.caData ? pem(decode(spec.caData, 'caData'), 'caData', CERTIFICATE) : undefined,
    token: spec.tokenData ? decode(spec.tokenData, 'tokenData').trim() : undefined,
    cert: spec.certData ? pem(decode(spec.certData, 'certData'), 'certData', CERTIFICATE) : undefined,
    key: spec.keyData ? pem(decode(spec.keyData, 'keyData'), 'keyData', PRIVATE_KEY) : undefined,
  }, '');
}

/** The PEM blocks a byte field must hold, and what to call them. */
interface PemBlock { begins: RegExp; name: string }
const CERTIFICATE: PemBlock = { begins: /-----BEGIN CERTIFICATE-----/, name: 'certificate' };
const PRIVATE_KEY: PemBlock = { begins: /-----BEGIN [A-Z ]*PRIVATE KEY-----/, name: 'private key' };

/** The decoded field, when it holds the PEM block it must: otherwise TLS would fail later, on every connection. */
function pem(text: string, field: string, block: PemBlock): string {
  if (!block.begins.test(text)) throw new CredentialError(`spec.${field} holds no PEM ${block.name}`);
  return text;
}

async function fromSecrets(spec: PediaClusterSpec, secrets: SecretReader): Promise<ClusterConnection> {
  const from = spec.authenticationFrom!;
  const read = async (ref: SecretKeyRef | undefined): Promise<string | undefined> => {
    if (!ref) return undefined;
    if (!ref.name || !ref.key) throw new CredentialError(`${AUTH_PREFIX}secret reference needs both name and key`);
    const v = await secrets(ref);
    if (v === undefined || v === '') throw new CredentialError(`${AUTH_PREFIX}secret ${ref.name}'s ${ref.key} is empty`);
    return v;
  };
  if (from.kubeconfig) return fromKubeconfig((await read(from.kubeconfig))!, AUTH_PREFIX);
  if (!spec.apiserver) throw new CredentialError(`${AUTH_PREFIX}Cluster APIServer Endpoint is required`);
  if (!from.token && !(from.cert && from.key)) throw new CredentialError(`${AUTH_PREFIX}token or cert is required`);
  return fromParts({
    apiserver: spec.apiserver,
    ca: await read(from.ca),
    token: (await read(from.token))?.trim(),
    cert: await read(from.cert),
    key: await read(from.key),
  }, AUTH_PREFIX);
}

function fromKubeconfig(text: string, prefix: string): ClusterConnection {
  let kc: KubeConfig;
  try {
    kc = kubeConfigFromString(text);
  } catch {
    // The parser's message may quote the document, and the document holds credentials: say only what failed.
    throw new CredentialError(`${prefix}kubeconfig cannot be parsed`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster || !cluster.server) throw new CredentialError(`${prefix}kubeconfig has no current cluster with a server`);
  checkUrl(cluster.server, prefix);
  // An exec stanza no run could honour (no command, an unknown apiVersion, an interactive login) is a config error.
  const exec = kc.getCurrentUser()?.exec as ExecConfig | null | undefined;
  if (exec) {
    try {
      checkExecConfig(exec);
    } catch (e: unknown) {
      throw new CredentialError(`${prefix}${(e as Error).message}`);
    }
  }
  return { kubeConfig: kc, apiserver: cluster.server, fingerprint: digest(['kubeconfig', text]) };
}

interface Parts {
  apiserver: string;
  ca?: string;
  token?: string;
  cert?: string;
  key?: string;
}

function fromParts(p: Parts, prefix: string): ClusterConnection {
  checkUrl(p.apiserver, prefix);
  const kc = new KubeConfig();
  const b64 = (s: string | undefined): string | undefined => (s === undefined ? undefined : Buffer.from(s).toString('base64'));
  kc.loadFromOptions({
    // No CA → TLS verification off, as Clusterpedia does (reference §4.2).
    clusters: [{ name: 'member', server: p.apiserver, caData: b64(p.ca), skipTLSVerify: p.ca === undefined }],
    users: [{ name: 'member', token: p.token, certData: p.token ? undefined : b64(p.cert), keyData: p.token ? undefined : b64(p.key) }],
    contexts: [{ name: 'member', cluster: 'member', user: 'member' }],
    currentContext: 'member',
  });
  return { kubeConfig: kc, apiserver: p.apiserver, fingerprint: digest(['parts', p.apiserver, p.ca ?? '', p.token ?? '', p.cert ?? '', p.key ?? '']) };
}

function checkUrl(server: string, prefix: string): void {
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    throw new CredentialError(`${prefix}apiserver ${JSON.stringify(server)} is not a URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new CredentialError(`${prefix}apiserver scheme ${u.protocol} is not http or https`);
  // Userinfo in the URL would be a credential shown in status.apiserver.
  if (u.username || u.password) throw new CredentialError(`${prefix}apiserver URL must not carry credentials`);
}

/**
 * A base64 field's text. Node decodes whatever it is given, skipping what is not base64; kube-apiserver refuses such
 * an object (Go's decoder takes line breaks only), so a field that is not base64 is a config error, never a guess.
 */
function decode(b64: string, field: string): string {
  const compact = b64.replace(/[\r\n]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new CredentialError(`spec.${field} is not base64`);
  return Buffer.from(compact, 'base64').toString('utf8');
}

function digest(parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex');
}
