// Test PKI made on the fly (CAs, serving and client certificates; EC P-256 via `selfsigned`) and an HTTPS GET that uses it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { Agent, request } from 'undici';
import type { ApiserverOptions } from '../../src/roles/apiserver/options.js';

export interface Pem {
  cert: string;
  key: string;
}

const DAY_MS = 24 * 3600 * 1000;

/** A certificate authority that can sign client certificates. */
export async function makeCa(commonName: string): Promise<Pem> {
  const r = await selfsigned.generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - DAY_MS),
    notAfterDate: new Date(Date.now() + 30 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: r.cert, key: r.private };
}

/** An intermediate CA signed by `root` (chains: leaf → intermediate → root). */
export async function makeIntermediateCa(root: Pem, commonName: string): Promise<Pem> {
  const r = await selfsigned.generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - DAY_MS),
    notAfterDate: new Date(Date.now() + 30 * DAY_MS),
    ca: root,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { cert: r.cert, key: r.private };
}

export interface ClientCertOptions {
  /** Organisations: Kubernetes reads them as groups. */
  groups?: string[];
  /** Validity window; default yesterday to a month from now. */
  notBefore?: Date;
  notAfter?: Date;
}

/** A client certificate (CN = user, O = groups) signed by `ca`. */
export async function makeClientCert(ca: Pem, user: string, o: ClientCertOptions = {}): Promise<Pem> {
  const attrs = [{ name: 'commonName', value: user }, ...(o.groups ?? []).map((g) => ({ name: 'organizationName', value: g }))];
  const r = await selfsigned.generate(attrs, {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: o.notBefore ?? new Date(Date.now() - DAY_MS),
    notAfterDate: o.notAfter ?? new Date(Date.now() + 30 * DAY_MS),
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return { cert: r.cert, key: r.private };
}

/** A serving certificate for 127.0.0.1 and localhost signed by `ca` (so clients can verify the server). */
export async function makeServingCert(ca: Pem): Promise<Pem> {
  const r = await selfsigned.generate([{ name: 'commonName', value: 'clusterpedia-apiserver' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - DAY_MS),
    notAfterDate: new Date(Date.now() + 30 * DAY_MS),
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { cert: r.cert, key: r.private };
}

/** Everything a secure apiserver test needs, written to `dir` as the apiserver's flags expect files. */
export interface TestPki {
  dir: string;
  /** Signs the serving certificate: what clients pass as their CA. */
  servingCa: Pem;
  /** --client-ca-file */
  clientCa: Pem;
  /** --requestheader-client-ca-file (the aggregation layer's front-proxy CA) */
  frontProxyCa: Pem;
  files: { servingCa: string; tlsCert: string; tlsKey: string; clientCa: string; frontProxyCa: string };
}

/** Three CAs and a serving certificate for 127.0.0.1, written to a fresh temp dir (remove it with rmSync(dir)). */
export async function makeTestPki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-pki-'));
  const [servingCa, clientCa, frontProxyCa] = await Promise.all([makeCa('serving-ca'), makeCa('client-ca'), makeCa('front-proxy-ca')]);
  const serving = await makeServingCert(servingCa);
  const files = {
    servingCa: join(dir, 'serving-ca.crt'), tlsCert: join(dir, 'tls.crt'), tlsKey: join(dir, 'tls.key'),
    clientCa: join(dir, 'client-ca.crt'), frontProxyCa: join(dir, 'front-proxy-ca.crt'),
  };
  writeFileSync(files.servingCa, servingCa.cert);
  writeFileSync(files.tlsCert, serving.cert);
  writeFileSync(files.tlsKey, serving.key, { mode: 0o600 });
  writeFileSync(files.clientCa, clientCa.cert);
  writeFileSync(files.frontProxyCa, frontProxyCa.cert);
  return { dir, servingCa, clientCa, frontProxyCa, files };
}

/** A loopback port that was free a moment ago (the secure listener takes a fixed port; 0 turns it off). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface TlsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: Record<string, unknown> | undefined;
}

/** A GET (or another method) over HTTPS verifying the server against `ca`, optionally presenting a client certificate. */
export async function tlsGet(url: string, o: { ca: string; client?: Pem; headers?: Record<string, string | string[]>; method?: 'GET' | 'POST' | 'DELETE' }): Promise<TlsResponse> {
  const agent = new Agent({ connect: { ca: o.ca, ...(o.client ? { cert: o.client.cert, key: o.client.key } : {}) } });
  try {
    const r = await request(url, { method: o.method ?? 'GET', dispatcher: agent, headers: { accept: 'application/json', ...o.headers } });
    const text = await r.body.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    return { status: r.statusCode, headers: r.headers, text, json };
  } finally {
    await agent.close();
  }
}

/** Sets an apiserver's options to serve HTTPS on `port` with the PKI's serving certificate and trust its two client CAs. */
export function usePki(o: ApiserverOptions, pki: TestPki, port: number, frontProxyNames: string[] = ['front-proxy-client']): void {
  o.serving.bindAddress = '127.0.0.1';
  o.serving.securePort = port;
  o.serving.tlsCertFile = pki.files.tlsCert;
  o.serving.tlsPrivateKeyFile = pki.files.tlsKey;
  o.authentication.clientCaFile = pki.files.clientCa;
  o.authentication.requestheaderClientCaFile = pki.files.frontProxyCa;
  o.authentication.requestheaderAllowedNames = frontProxyNames;
}
