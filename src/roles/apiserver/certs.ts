// The serving certificate: the given files, or a self-signed one generated once into --cert-dir (as kube-apiserver does).
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { makeDirectory } from '../../lib/dirs.js';
import { ConfigError } from '../../lib/errors.js';
import { readFlagFile } from '../../lib/flag-file.js';
import type { Logger } from '../../lib/log.js';

export interface ServingCert {
  cert: string;
  key: string;
}

export async function loadServingCert(o: { tlsCertFile?: string; tlsPrivateKeyFile?: string; certDir: string }, logger: Logger): Promise<ServingCert> {
  if (o.tlsCertFile || o.tlsPrivateKeyFile) {
    if (!o.tlsCertFile || !o.tlsPrivateKeyFile) throw new ConfigError('--tls-cert-file and --tls-private-key-file must be given together');
    return checkedPair({ flag: '--tls-cert-file', path: o.tlsCertFile }, { flag: '--tls-private-key-file', path: o.tlsPrivateKeyFile });
  }
  const certPath = join(o.certDir, 'apiserver.crt');
  const keyPath = join(o.certDir, 'apiserver.key');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return checkedPair({ flag: '--cert-dir', path: certPath }, { flag: '--cert-dir', path: keyPath });
  }
  const generated = await generateSelfSigned(['localhost', 'clusterpedia-apiserver'], ['127.0.0.1', '::1']);
  try {
    makeDirectory(o.certDir, 0o700);
    writeFileSync(certPath, generated.cert, { mode: 0o644 });
    writeFileSync(keyPath, generated.key, { mode: 0o600 });
    logger.info({ certDir: o.certDir }, 'generated a self-signed serving certificate');
  } catch (e: unknown) {
    // A read-only filesystem still gets a working (ephemeral) certificate.
    logger.warn({ certDir: o.certDir, err: String(e) }, 'could not save the generated serving certificate; using it in memory');
  }
  return generated;
}

/** A self-signed certificate for the given DNS names and IPs (ECDSA P-256, one year). */
export async function generateSelfSigned(dnsNames: string[], ips: string[]): Promise<ServingCert> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: dnsNames[0] ?? 'localhost' }], {
    keyType: 'ec',
    notAfterDate: new Date(Date.now() + 365 * 24 * 3600 * 1000),
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...dnsNames.map((value) => ({ type: 2 as const, value })), ...ips.map((ip) => ({ type: 7 as const, ip }))] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * The pair read from its files, once the certificate and the key are known to be what they claim and to belong
 * together: otherwise the HTTPS listener would fail on OpenSSL's words (`PEM routines::no start line`), naming neither
 * flag nor file.
 */
function checkedPair(certFile: FlagFile, keyFile: FlagFile): ServingCert {
  const pair = { cert: readFlagFile(certFile.path, certFile.flag), key: readFlagFile(keyFile.path, keyFile.flag) };
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.cert);
  } catch {
    throw new ConfigError(`${certFile.flag}: ${certFile.path} is not a PEM certificate`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pair.key);
  } catch {
    throw new ConfigError(`${keyFile.flag}: ${keyFile.path} is not a PEM private key (or it is encrypted)`);
  }
  if (!cert.checkPrivateKey(key)) throw new ConfigError(`${keyFile.flag}: ${keyFile.path} is not the private key of ${certFile.path}`);
  return pair;
}

/** A file and the flag that named it. */
interface FlagFile {
  flag: string;
  path: string;
}
