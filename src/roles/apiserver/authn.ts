// Who is asking: front-proxy headers (verified proxy only), client certificates, bearer tokens; anonymous on the insecure port.
import type { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../../kube/status.js';
import { hasIdentityHeaders, normalizeNames, requestHeaderUser, type RequestHeaderNames } from './authn-requestheader.js';
import { bearerToken, type TokenReviewer } from './authn-token.js';
import { peerCertificate, verifiedBy, type PeerCertificate } from './authn-x509.js';

export const ANONYMOUS = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
  /** Which authenticator vouched for the user (logs, tests). */
  via: 'requestheader' | 'x509' | 'token' | 'anonymous';
  /** Set when the request acts as this user through impersonation: who asked (impersonate.ts). */
  impersonatedBy?: string;
}

export interface AuthenticatorConfig {
  /** --client-ca-file: certificates it signed authenticate as CN (user) and O (groups). */
  clientCa?: X509Certificate[];
  /** --requestheader-client-ca-file and --requestheader-allowed-names (empty = any CN that CA signed). */
  frontProxyCa?: X509Certificate[];
  frontProxyAllowedNames: string[];
  /** Header names as configured (--requestheader-*-headers); also used in the refusal message. */
  headers: RequestHeaderNames;
  /** Present with --authentication-token-webhook. */
  tokens?: TokenReviewer;
  now?: () => Date;
}

export interface AuthnContext {
  /** The HTTPS listener; the plain-HTTP one is --insecure-port on loopback. */
  secure: boolean;
  socket: Socket | TLSSocket;
}

/**
 * Authenticates requests in kube-apiserver's order (request header, x509, token) with two deliberate
 * differences: identity headers from anyone but a verified front proxy are refused with 401 instead of
 * being ignored (a client that sends them believes they count), and anonymous users exist only on the
 * insecure loopback port (the secure port answers 401 to requests without credentials).
 */
export class Authenticator {
  private readonly names: RequestHeaderNames;
  private readonly peers = new WeakMap<Socket, PeerCertificate | null>();
  private readonly refusal: string;

  constructor(private readonly c: AuthenticatorConfig) {
    this.names = normalizeNames(c.headers);
    const shown = [...c.headers.usernameHeaders, ...c.headers.groupHeaders, ...c.headers.extraHeaderPrefixes.map((p) => `${p}*`)];
    const who = c.frontProxyCa
      ? `a front proxy presenting a client certificate signed by --requestheader-client-ca-file${c.frontProxyAllowedNames.length ? ` with a common name in --requestheader-allowed-names` : ''}`
      : 'a front proxy, and none is configured (--requestheader-client-ca-file)';
    this.refusal = `the ${shown.join(', ')} headers are not accepted from this client: only ${who} may send them`;
  }

  /** The user, or a thrown 401 Status (503 when the host cannot review a token). */
  async authenticate(req: IncomingMessage, ctx: AuthnContext): Promise<UserInfo> {
    const peer = ctx.secure ? this.peer(ctx.socket as TLSSocket) : undefined;
    const now = this.c.now?.() ?? new Date();
    if (hasIdentityHeaders(req.headers, this.names)) {
      if (!peer || !this.isFrontProxy(peer, now)) throw unauthorized(this.refusal);
      const u = requestHeaderUser(req.headersDistinct, this.names);
      if (u) return authenticated({ ...u, via: 'requestheader' });
      // A verified proxy that named no user: fall through to the other authenticators, as kube does.
    }
    // The insecure port is loopback-only development access (like kube-apiserver's old one): no credentials needed.
    if (!ctx.secure) return { name: ANONYMOUS, groups: [UNAUTHENTICATED_GROUP], extra: {}, via: 'anonymous' };
    if (peer && this.c.clientCa && peer.commonName !== '' && verifiedBy(peer, this.c.clientCa, now)) {
      return authenticated({ name: peer.commonName, groups: peer.organizations, extra: {}, via: 'x509' });
    }
    const token = bearerToken(req.headers);
    if (token !== undefined && this.c.tokens) {
      const u = await this.c.tokens.review(token);
      if (u) return authenticated({ ...u, via: 'token' });
    }
    throw unauthorized('Unauthorized');
  }

  private isFrontProxy(peer: PeerCertificate, now: Date): boolean {
    if (!this.c.frontProxyCa || !verifiedBy(peer, this.c.frontProxyCa, now)) return false;
    return this.c.frontProxyAllowedNames.length === 0 || this.c.frontProxyAllowedNames.includes(peer.commonName);
  }

  /** The parsed client certificate, once per connection (keep-alive connections carry many requests). */
  private peer(socket: TLSSocket): PeerCertificate | undefined {
    let p = this.peers.get(socket);
    if (p === undefined) {
      p = typeof socket.getPeerX509Certificate === 'function' ? peerCertificate(socket) ?? null : null;
      this.peers.set(socket, p);
    }
    return p ?? undefined;
  }
}

/** Every authenticated user is in system:authenticated (kube's AuthenticatedGroupAdder). */
function authenticated(u: UserInfo): UserInfo {
  return u.groups.includes(AUTHENTICATED_GROUP) ? u : { ...u, groups: [...u.groups, AUTHENTICATED_GROUP] };
}
