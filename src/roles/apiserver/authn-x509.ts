// Client-certificate verification against ONE CA bundle, and the CN/O of the verified certificate.
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

/** OIDs of the extended key usages that allow a certificate to authenticate a TLS client. */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';
/** Longest chain walked from the leaf to a CA of the bundle (leaf, intermediates). */
const MAX_DEPTH = 5;

/** The peer's certificate chain as sent, leaf first, and the subject names of the leaf. */
export interface PeerCertificate {
  chain: X509Certificate[];
  commonName: string;
  organizations: string[];
}

/** Parses a PEM bundle (a CA file) into certificates; throws when it holds none. */
export function parseCaBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const out = blocks.map((b) => new X509Certificate(b));
  if (out.length === 0) throw new Error('no PEM certificate found');
  return out;
}

/**
 * The client certificate of a TLS connection, or undefined when none was sent. Node's own verification
 * (`socket.authorized`) is not used: the server trusts the union of the client CA and the front-proxy CA,
 * and what a certificate may do depends on which of the two signed it, so each bundle is checked separately.
 */
export function peerCertificate(socket: TLSSocket): PeerCertificate | undefined {
  const leaf = socket.getPeerX509Certificate();
  if (!leaf) return undefined;
  const chain: X509Certificate[] = [leaf];
  // Intermediates the client sent: untrusted, each link is verified below before it is used.
  let cur = socket.getPeerCertificate(true);
  const seen = new Set<string>([cur.fingerprint256]);
  while (chain.length < MAX_DEPTH && cur.issuerCertificate && !seen.has(cur.issuerCertificate.fingerprint256)) {
    cur = cur.issuerCertificate;
    seen.add(cur.fingerprint256);
    chain.push(new X509Certificate(cur.raw));
  }
  const subject = socket.getPeerCertificate(false).subject as Record<string, string | string[] | undefined> | undefined;
  return { chain, commonName: first(subject?.CN) ?? '', organizations: all(subject?.O) };
}

/**
 * True when the leaf chains to a CA of `bundle`: every link issued and signed by the next, every certificate
 * within its validity dates, intermediates marked as CAs, and a leaf whose extended key usage (when present)
 * allows client authentication — what Go's x509.Verify with ExtKeyUsageClientAuth checks for kube-apiserver.
 */
export function verifiedBy(peer: PeerCertificate, bundle: readonly X509Certificate[], now: Date = new Date()): boolean {
  const [leaf] = peer.chain;
  if (!leaf || !validAt(leaf, now)) return false;
  const eku = leaf.keyUsage;
  if (eku && eku.length > 0 && !eku.includes(CLIENT_AUTH) && !eku.includes(ANY_EKU)) return false;
  let child = leaf;
  for (let i = 1; i <= peer.chain.length; i++) {
    const anchor = bundle.find((ca) => ca.ca && validAt(ca, now) && signed(child, ca));
    if (anchor) return true;
    const next = peer.chain[i];
    if (!next || !next.ca || !validAt(next, now) || !signed(child, next)) return false;
    child = next;
  }
  return false;
}

function signed(child: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return child.checkIssued(issuer) && child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function validAt(c: X509Certificate, now: Date): boolean {
  const t = now.getTime();
  return Date.parse(c.validFrom) <= t && t <= Date.parse(c.validTo);
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function all(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? [...v] : [v];
}
