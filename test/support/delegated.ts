// An apiserver on HTTPS with delegated authentication and authorization to a simulated host cluster: bearer tokens
// reviewed by the host (TokenReview), every decision a SubjectAccessReview the test answers, per-cluster if asked.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/lib/log.js';
import { kubeconfigFor, startSimulatedCluster, type SimCluster, type SubjectAccessReviewSpec } from '../../src/sim/index.js';
import { openStorage } from '../../src/storage/open.js';
import type { Storage, UpsertObject } from '../../src/storage/types.js';
import type { ApiserverOptions } from '../../src/roles/apiserver/options.js';
import { startTestApiserver, type TestApiserver } from './apiserver.js';
import { freeLoopbackPort, makeTestPki, tlsGet, usePki, type TestPki, type TlsResponse } from './certs.js';
import { healthyStatus } from './fixtures.js';

type Decision = { allowed: boolean; reason?: string };

export interface DelegatedOptions {
  /** token → the user the host says it is. */
  tokens: Record<string, { username: string; groups?: string[] }>;
  /** The host's answer to each SubjectAccessReview (every one is also recorded in `sars`). */
  decide: (spec: SubjectAccessReviewSpec) => Decision;
  /** Member clusters given a healthy status, and the objects stored. */
  clusters: string[];
  objects: UpsertObject[];
  perCluster: boolean;
  cacheTtlMs: number;
  /** More apiserver options; `host` is the simulated host cluster, `dir` a scratch directory. */
  configure?: (opts: ApiserverOptions, host: SimCluster, dir: string) => void;
}

export interface Delegated {
  pki: TestPki;
  host: SimCluster;
  storage: Storage;
  api: TestApiserver;
  /** https://127.0.0.1:<port> */
  secure: string;
  /** The SubjectAccessReviews the host was asked, oldest first; tests empty it between cases. */
  sars: SubjectAccessReviewSpec[];
  /** A GET with a bearer token (and more headers) over HTTPS, trusting the serving CA. */
  get(path: string, token: string, headers?: Record<string, string | string[]>): Promise<TlsResponse>;
  stop(): Promise<void>;
}

export async function startDelegated(o: DelegatedOptions): Promise<Delegated> {
  const pki = await makeTestPki();
  const host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
  host.reviews.setTokenTable(o.tokens);
  const sars: SubjectAccessReviewSpec[] = [];
  host.reviews.subjectAccessReview = (spec) => {
    sars.push(spec);
    return o.decide(spec);
  };
  const kubeconfig = join(pki.dir, 'host.kubeconfig');
  writeFileSync(kubeconfig, kubeconfigFor(host));
  const storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  for (const c of o.clusters) await storage.putClusterStatus(c, healthyStatus(c));
  await storage.write({ upserts: o.objects, deletes: [] });
  const port = await freeLoopbackPort();
  const secure = `https://127.0.0.1:${port}`;
  const api = await startTestApiserver(storage, (opts) => {
    usePki(opts, pki, port);
    opts.kubeconfig = kubeconfig;
    opts.authentication.tokenReview = true;
    opts.authorization.mode = 'Delegated';
    opts.authorization.perCluster = o.perCluster;
    opts.authorization.cacheTtlMs = o.cacheTtlMs;
    o.configure?.(opts, host, pki.dir);
  });
  return {
    pki, host, storage, api, secure, sars,
    get: (path, token, headers = {}) => tlsGet(`${secure}${path}`, { ca: pki.servingCa.cert, headers: { authorization: `Bearer ${token}`, ...headers } }),
    async stop() {
      await api.stop();
      await storage.close();
      await host.stop();
      rmSync(pki.dir, { recursive: true, force: true });
    },
  };
}

/**
 * The usual policy: clusterpedia.io `resources` and `collectionresources` for everyone, member cluster `c` (resource
 * `clusters` named `c`) for the users `readable` lists; anything else denied with `reason`.
 */
export function readerPolicy(readable: Record<string, string[]>, spec: SubjectAccessReviewSpec): Decision {
  const ra = spec.resourceAttributes;
  if (ra?.group !== 'clusterpedia.io') return { allowed: false, reason: 'no RBAC policy matched' };
  if (ra.resource === 'clusters') return (readable[spec.user ?? ''] ?? []).includes(ra.name ?? '') ? { allowed: true } : { allowed: false, reason: 'cluster not granted' };
  return { allowed: ['resources', 'collectionresources'].includes(ra.resource ?? '') };
}
