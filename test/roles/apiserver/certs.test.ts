// The serving certificate: given files are checked before the listener sees them; a generated one is kept in --cert-dir.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSelfSigned, loadServingCert, type ServingCert } from '../../../src/roles/apiserver/certs.js';
import { silentLogger } from '../../../src/lib/log.js';

let dir: string;
let a: ServingCert;
let b: ServingCert;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-certs-'));
  [a, b] = await Promise.all([generateSelfSigned(['a'], []), generateSelfSigned(['b'], [])]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadServingCert', () => {
  it('serves the given pair as it is', async () => {
    const got = await loadServingCert({ tlsCertFile: file('a.crt', a.cert), tlsPrivateKeyFile: file('a.key', a.key), certDir: dir }, silentLogger());
    expect(got).toEqual(a);
  });

  it('names the flag and the file of a certificate or key that is not one, or of a key that is another certificate\'s', async () => {
    const load = (cert: string, key: string): Promise<ServingCert> => loadServingCert({ tlsCertFile: cert, tlsPrivateKeyFile: key, certDir: dir }, silentLogger());
    const text = file('hostname', 'clusterpedia-0\n');
    await expect(load(text, file('a2.key', a.key))).rejects.toThrow(new RegExp(`^--tls-cert-file: ${text} is not a PEM certificate$`));
    await expect(load(file('a2.crt', a.cert), text)).rejects.toThrow(new RegExp(`^--tls-private-key-file: ${text} is not a PEM private key`));
    // Both in one file, as some tools write them: each is found in it.
    const both = file('a.pem', `${a.cert}\n${a.key}`);
    await expect(load(both, both)).resolves.toBeDefined();
    const bKey = file('b.key', b.key);
    await expect(load(join(dir, 'a2.crt'), bKey)).rejects.toThrow(new RegExp(`^--tls-private-key-file: ${bKey} is not the private key of ${join(dir, 'a2.crt')}$`));
    await expect(load(join(dir, 'a2.crt'), bKey)).rejects.toMatchObject({ code: 'ConfigError' });
  });

  it('generates a self-signed pair into --cert-dir once, then reads it back; a damaged one names --cert-dir', async () => {
    const certDir = join(dir, 'generated');
    const first = await loadServingCert({ certDir }, silentLogger());
    expect(readFileSync(join(certDir, 'apiserver.crt'), 'utf8')).toBe(first.cert);
    expect(await loadServingCert({ certDir }, silentLogger())).toEqual(first);
    writeFileSync(join(certDir, 'apiserver.key'), b.key);
    await expect(loadServingCert({ certDir }, silentLogger())).rejects.toThrow(new RegExp(`^--cert-dir: ${join(certDir, 'apiserver.key')} is not the private key of ${join(certDir, 'apiserver.crt')}$`));
    writeFileSync(join(certDir, 'apiserver.crt'), 'truncated');
    await expect(loadServingCert({ certDir }, silentLogger())).rejects.toThrow(new RegExp(`^--cert-dir: ${join(certDir, 'apiserver.crt')} is not a PEM certificate$`));
  });

  it('serves a generated pair from memory where --cert-dir cannot be made (here /proc, which once hung the process)', async () => {
    const got = await loadServingCert({ certDir: '/proc/cp-not-here/certificates' }, silentLogger());
    expect(() => new X509Certificate(got.cert)).not.toThrow();
  });
});
