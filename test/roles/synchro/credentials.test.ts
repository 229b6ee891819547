// Credential rules and messages (reference §4.2); no secret in any message.
import { describe, expect, it } from 'vitest';
import type { PediaClusterSpec, SecretKeyRef } from '../../../src/kube/pediacluster.js';
import { resolveCredentials, type SecretReader } from '../../../src/kube/credentials.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const TOKEN = 'sEcReT-t0ken-value';
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: m, cluster: {server: 'https://10.0.0.1:6443', insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: ${TOKEN}}}]
contexts: [{name: c, context: {cluster: m, user: u}}]
current-context: c
`;

async function message(spec: PediaClusterSpec, secrets?: SecretReader): Promise<string> {
  try {
    await resolveCredentials(spec, secrets);
  } catch (e: unknown) {
    const msg = (e as Error).message;
    expect(msg).not.toContain(TOKEN);
    return msg;
  }
  throw new Error('expected a credential error');
}

function secretsOf(data: Record<string, Record<string, string>>): SecretReader {
  return async (ref: SecretKeyRef) => data[ref.name]?.[ref.key];
}

describe('inline credentials', () => {
  it('apiserver + token: bearer token, TLS verification off without caData', async () => {
    const c = await resolveCredentials({ apiserver: 'https://m.example:6443', tokenData: b64(`${TOKEN}\n`) }, undefined);
    expect(c.apiserver).toBe('https://m.example:6443');
    expect(c.kubeConfig.getCurrentUser()?.token).toBe(TOKEN);
    expect(c.kubeConfig.getCurrentCluster()?.skipTLSVerify).toBe(true);
    expect(c.fingerprint).not.toContain(TOKEN);
  });

  it('caData turns TLS verification on', async () => {
    const c = await resolveCredentials({ apiserver: 'https://m:6443', tokenData: b64(TOKEN), caData: b64('-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n') }, undefined);
    expect(c.kubeConfig.getCurrentCluster()?.skipTLSVerify).toBe(false);
    expect(c.kubeConfig.getCurrentCluster()?.caData).toBeTruthy();
  });

  it('apiserver + cert + key', async () => {
    const cert = '-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n';
    const c = await resolveCredentials({ apiserver: 'https://m:6443', certData: b64(cert), keyData: b64('-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n') }, undefined);
    expect(Buffer.from(c.kubeConfig.getCurrentUser()?.certData ?? '', 'base64').toString()).toBe(cert);
  });

  it('a byte field that is not base64, or not the PEM block it must hold, is a config error naming the field', async () => {
    // kube-apiserver refuses such an object; Node would decode "!!!notbase64" to bytes and TLS fail on every connection.
    const base = { apiserver: 'https://m:6443', tokenData: b64(TOKEN) };
    expect(await message({ ...base, caData: '!!!notbase64' })).toBe('spec.caData is not base64');
    expect(await message({ ...base, tokenData: `${b64(TOKEN)}*` })).toBe('spec.tokenData is not base64');
    expect(await message({ kubeconfig: 'a b c' })).toBe('spec.kubeconfig is not base64');
    expect(await message({ ...base, caData: b64('x') })).toBe('spec.caData holds no PEM certificate');
    const cert = b64('-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n');
    expect(await message({ apiserver: base.apiserver, certData: b64('CERT'), keyData: b64('KEY') })).toBe('spec.certData holds no PEM certificate');
    expect(await message({ apiserver: base.apiserver, certData: cert, keyData: b64('KEY') })).toBe('spec.keyData holds no PEM private key');
    // Line breaks, as base64 tools wrap at 76 columns, are taken; so is a value without its padding.
    const wrapped = b64(`${TOKEN}-${'x'.repeat(80)}`).replace(/(.{76})/g, '$1\n');
    expect((await resolveCredentials({ ...base, tokenData: wrapped }, undefined)).kubeConfig.getCurrentUser()?.token).toBe(`${TOKEN}-${'x'.repeat(80)}`);
    expect((await resolveCredentials({ ...base, tokenData: b64(`${TOKEN}x`).replace(/=+$/, '') }, undefined)).kubeConfig.getCurrentUser()?.token).toBe(`${TOKEN}x`);
  });

  it('kubeconfig wins over other fields', async () => {
    const c = await resolveCredentials({ kubeconfig: b64(KUBECONFIG), apiserver: 'https://ignored:1' }, undefined);
    expect(c.apiserver).toBe('https://10.0.0.1:6443');
  });

  it('no apiserver → "Cluster APIServer Endpoint is required"', async () => {
    expect(await message({ tokenData: b64(TOKEN) })).toBe('Cluster APIServer Endpoint is required');
  });

  it("no token and no complete cert pair → \"Cluster APIServer's Token or Cert is required\"", async () => {
    expect(await message({ apiserver: 'https://m:6443' })).toBe("Cluster APIServer's Token or Cert is required");
    expect(await message({ apiserver: 'https://m:6443', certData: b64('CERT') })).toBe("Cluster APIServer's Token or Cert is required");
  });

  it('a kubeconfig that does not parse is reported without echoing it', async () => {
    expect(await message({ kubeconfig: b64(`{{{ ${TOKEN}`) })).toBe('kubeconfig cannot be parsed');
  });

  it('a kubeconfig whose exec plugin no run could honour is a config error, found before any run', async () => {
    const withExec = (exec: string): string => b64(KUBECONFIG.replace(`{token: ${TOKEN}}`, `{exec: ${exec}}`));
    expect(await message({ kubeconfig: withExec('{apiVersion: client.authentication.k8s.io/v1, command: kubelogin, interactiveMode: Always}') }))
      .toBe('kubeconfig exec plugin kubelogin needs an interactive terminal (interactiveMode: Always), which a server process does not have; use a plugin or mode that logs in without one');
    expect(await message({ kubeconfig: withExec('{apiVersion: client.authentication.k8s.io/v1alpha1, command: aws, interactiveMode: Never}') }))
      .toBe('kubeconfig exec plugin apiVersion "client.authentication.k8s.io/v1alpha1" is not supported (client.authentication.k8s.io/v1, client.authentication.k8s.io/v1beta1)');
    const ok = await resolveCredentials({ kubeconfig: withExec('{apiVersion: client.authentication.k8s.io/v1beta1, command: aws, args: [eks, get-token]}') }, undefined);
    expect(ok.kubeConfig.getCurrentUser()?.exec).toMatchObject({ command: 'aws' });
  });

  it('a bad URL is reported; URLs with userinfo are refused', async () => {
    expect(await message({ apiserver: 'not a url', tokenData: b64(TOKEN) })).toMatch(/is not a URL/);
    expect(await message({ apiserver: `https://user:${TOKEN}@m:6443`, tokenData: b64(TOKEN) })).toBe('apiserver URL must not carry credentials');
  });

  it('the fingerprint changes with the token', async () => {
    const a = await resolveCredentials({ apiserver: 'https://m:6443', tokenData: b64('a') }, undefined);
    const b = await resolveCredentials({ apiserver: 'https://m:6443', tokenData: b64('b') }, undefined);
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });
});

describe('authenticationFrom (Secret references)', () => {
  const secrets = secretsOf({ creds: { token: TOKEN, ca: 'CA', kubeconfig: KUBECONFIG, empty: '' } });

  it('used only when no inline credential is complete', async () => {
    const c = await resolveCredentials({ apiserver: 'https://m:6443', authenticationFrom: { token: { name: 'creds', key: 'token' } } }, secrets);
    expect(c.kubeConfig.getCurrentUser()?.token).toBe(TOKEN);
    const inline = await resolveCredentials({ apiserver: 'https://m:6443', tokenData: b64('inline'), authenticationFrom: { token: { name: 'creds', key: 'token' } } }, secrets);
    expect(inline.kubeConfig.getCurrentUser()?.token).toBe('inline');
  });

  it('the kubeconfig Secret wins', async () => {
    const c = await resolveCredentials({ authenticationFrom: { kubeconfig: { name: 'creds', key: 'kubeconfig' }, token: { name: 'creds', key: 'token' } } }, secrets);
    expect(c.apiserver).toBe('https://10.0.0.1:6443');
  });

  it('missing or empty key → "secret <name>\'s <key> is empty"', async () => {
    expect(await message({ apiserver: 'https://m:6443', authenticationFrom: { token: { name: 'creds', key: 'nope' } } }, secrets))
      .toBe("Cluster Authentication Error: secret creds's nope is empty");
    expect(await message({ apiserver: 'https://m:6443', authenticationFrom: { token: { name: 'creds', key: 'empty' } } }, secrets))
      .toBe("Cluster Authentication Error: secret creds's empty is empty");
    expect(await message({ apiserver: 'https://m:6443', authenticationFrom: { token: { name: 'missing', key: 'token' } } }, secrets))
      .toBe("Cluster Authentication Error: secret missing's token is empty");
  });

  it('no token and no cert → "token or cert is required"; no apiserver → endpoint required', async () => {
    expect(await message({ apiserver: 'https://m:6443', authenticationFrom: { ca: { name: 'creds', key: 'ca' } } }, secrets)).toBe('Cluster Authentication Error: token or cert is required');
    expect(await message({ authenticationFrom: { token: { name: 'creds', key: 'token' } } }, secrets)).toBe('Cluster Authentication Error: Cluster APIServer Endpoint is required');
  });

  it('without a host cluster (file mode) Secrets cannot be read', async () => {
    expect(await message({ apiserver: 'https://m:6443', authenticationFrom: { token: { name: 'creds', key: 'token' } } })).toMatch(/^Cluster Authentication Error: authenticationFrom needs a host cluster/);
  });
});
