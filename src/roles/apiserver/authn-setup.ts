// Builds the access gate from options: CA files, the host client (only when a review needs it), authenticator, authorizer.
import { ConfigError } from '../../lib/errors.js';
import { readFlagFile } from '../../lib/flag-file.js';
import type { Logger } from '../../lib/log.js';
import { Authenticator } from './authn.js';
import { TokenReviewer } from './authn-token.js';
import { parseCaBundle } from './authn-x509.js';
import { alwaysAllow, DelegatedAuthorizer, type Authorizer } from './authz.js';
import { AccessGate } from './authz-gate.js';
import { newHostClient, reviewPoster } from './host-client.js';
import type { ApiserverOptions } from './options.js';

export interface AccessSetup {
  gate: AccessGate;
  /** PEM of every CA whose client certificates the TLS listener should ask for (undefined = ask for none). */
  clientCaPem?: string;
  close(): Promise<void>;
}

export async function buildAccess(o: ApiserverOptions, clusters: () => Promise<Iterable<string>>, logger: Logger): Promise<AccessSetup> {
  const a = o.authentication;
  const clientCa = a.clientCaFile ? readCa(a.clientCaFile, '--client-ca-file') : undefined;
  const frontProxyCa = a.requestheaderClientCaFile ? readCa(a.requestheaderClientCaFile, '--requestheader-client-ca-file') : undefined;
  const delegated = o.authorization.mode === 'Delegated';
  const why = [a.tokenReview ? '--authentication-token-webhook' : '', delegated ? '--authorization-mode=Delegated' : ''].filter(Boolean).join(' and ');
  const client = why ? await newHostClient(o.kubeconfig, why) : undefined;
  const log = logger.child({ component: 'access' });
  const poster = client ? reviewPoster(client, log) : undefined;
  const authn = new Authenticator({
    ...(clientCa ? { clientCa: clientCa.certs } : {}),
    ...(frontProxyCa ? { frontProxyCa: frontProxyCa.certs } : {}),
    frontProxyAllowedNames: a.requestheaderAllowedNames,
    headers: {
      usernameHeaders: a.requestheaderUsernameHeaders,
      groupHeaders: a.requestheaderGroupHeaders,
      extraHeaderPrefixes: a.requestheaderExtraHeadersPrefix,
    },
    ...(a.tokenReview && poster ? { tokens: new TokenReviewer(poster, a.cacheTtlMs) } : {}),
  });
  const authz: Authorizer = delegated && poster ? new DelegatedAuthorizer(poster, o.authorization.cacheTtlMs) : alwaysAllow;
  if (o.authorization.perCluster && !delegated) log.warn('--authorization-per-cluster has no effect with --authorization-mode=AlwaysAllow');
  if (o.serving.securePort > 0 && !clientCa && !frontProxyCa && !a.tokenReview) {
    log.warn('no authentication is configured (--client-ca-file, --requestheader-client-ca-file, --authentication-token-webhook): the secure port will answer 401 to every request but health and version');
  }
  // Not `authorization`: the logger redacts fields of that name (they usually hold credentials).
  log.info({
    clientCertificates: clientCa !== undefined, frontProxy: frontProxyCa !== undefined, tokenReview: a.tokenReview,
    authorizationMode: o.authorization.mode, perCluster: o.authorization.perCluster,
  }, 'access control configured');
  const pems = [clientCa?.pem, frontProxyCa?.pem].filter((p): p is string => p !== undefined);
  return {
    gate: new AccessGate({ authn, authz, perCluster: o.authorization.perCluster, clusters }),
    ...(pems.length ? { clientCaPem: pems.join('\n') } : {}),
    close: async () => {
      await client?.close();
    },
  };
}

function readCa(path: string, flag: string): { pem: string; certs: ReturnType<typeof parseCaBundle> } {
  const pem = readFlagFile(path, flag);
  try {
    return { pem, certs: parseCaBundle(pem) };
  } catch (e: unknown) {
    throw new ConfigError(`${flag}: ${path} is not a PEM certificate bundle: ${e instanceof Error ? e.message : String(e)}`);
  }
}
