// A throwaway CA, server certificate (127.0.0.1, localhost) and admin client certificate, made with the openssl CLI.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM material of a simulated cluster's TLS. Node 20's crypto cannot issue X.509 certificates, hence openssl. */
export interface SimCertificates {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  /** A client certificate for CN=sim-admin, O=system:masters, signed by the same CA. */
  clientCert: string;
  clientKey: string;
}

/** Generates fresh certificates (EC P-256: fast) valid for ten years; about 100 ms. */
export async function generateCertificates(): Promise<SimCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'sim-tls-'));
  const f = (name: string): string => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    await writeFile(f('server.ext'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n');
    await writeFile(f('client.ext'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');
    await run('openssl', ['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '3650', '-subj', '/CN=clusterpedia-sim-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
    for (const who of ['server', 'client'] as const) {
      const subj = who === 'server' ? '/CN=kube-apiserver' : '/O=system:masters/CN=sim-admin';
      await run('openssl', ['req', '-new', ...ec, '-keyout', f(`${who}.key`), '-out', f(`${who}.csr`), '-subj', subj]);
      await run('openssl', ['x509', '-req', '-in', f(`${who}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${who}.crt`), '-days', '3650', '-extfile', f(`${who}.ext`)]);
    }
    const read = (name: string): Promise<string> => readFile(f(name), 'utf8');
    return {
      caCert: await read('ca.crt'), caKey: await read('ca.key'),
      serverCert: await read('server.crt'), serverKey: await read('server.key'),
      clientCert: await read('client.crt'), clientKey: await read('client.key'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
