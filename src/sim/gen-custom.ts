// Instances of the member clusters' CRDs (CronTabs, Certificates, ClusterIssuers), as a CRD-backed apiserver serves them.
import { iso, managed } from './gen-meta.js';
import { genUid } from './gen-pods.js';
import { rngFor } from './prng.js';
import type { NamespaceInfo, Topology, Workload } from './topology.js';
import type { SimObject } from './types.js';

/** CronTabs per application namespace. */
export const CRONTABS_PER_NAMESPACE = 2;

/** CronTab k of the namespace with index nsIndex. */
export function buildCronTab(t: Topology, nsIndex: number, k: number): SimObject {
  const ns = t.namespaces[nsIndex] as NamespaceInfo;
  const name = `crontab-${k}`;
  const rng = rngFor('crontab', t.opts.seed, t.opts.cluster, ns.name, k);
  const created = ns.createdMs + rng.int(3_600_000);
  const spec = { cronSpec: `*/${rng.range(1, 30)} * * * *`, image: 'my-awesome-cron-image', replicas: rng.range(1, 5) };
  return {
    apiVersion: 'stable.example.com/v1', kind: 'CronTab',
    metadata: { name, namespace: ns.name, uid: genUid(t, 'crontabs.stable.example.com', `${ns.name}/${name}`), generation: 1, creationTimestamp: iso(created), labels: { app: 'crontab', tier: 'batch' }, managedFields: [managed('kubectl-client-side-apply', 'stable.example.com/v1', created, { spec })] },
    spec,
    status: { lastRun: iso(t.opts.epochMs - rng.range(1, 30) * 60_000) },
  };
}

/** The Certificate behind the TLS of workload w's ingress. */
export function buildCertificate(t: Topology, w: Workload): SimObject {
  const created = w.createdMs + 60_000;
  const ready = rngFor('cert', t.opts.seed, t.opts.cluster, w.index).chance(0.9);
  const spec = { secretName: `${w.name}-tls`, dnsNames: [`${w.name}.${w.namespace}.example.com`], issuerRef: { group: 'cert-manager.io', kind: 'ClusterIssuer', name: 'letsencrypt-prod' }, usages: ['digital signature', 'key encipherment'] };
  return {
    apiVersion: 'cert-manager.io/v1', kind: 'Certificate',
    metadata: {
      name: w.name, namespace: w.namespace, uid: genUid(t, 'certificates.cert-manager.io', `${w.namespace}/${w.name}`), generation: 1, creationTimestamp: iso(created), labels: { app: w.app },
      ownerReferences: [{ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: w.name, uid: genUid(t, 'ingresses.networking.k8s.io', `${w.namespace}/${w.name}`), controller: true, blockOwnerDeletion: true }],
      managedFields: [managed('cert-manager-ingress-shim', 'cert-manager.io/v1', created, { spec })],
    },
    spec,
    status: {
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: iso(created + 90_000), observedGeneration: 1, reason: ready ? 'Ready' : 'DoesNotExist', message: ready ? 'Certificate is up to date and has not expired' : 'Issuing certificate as Secret does not exist' }],
      ...(ready ? { notAfter: iso(t.opts.epochMs + 60 * 86_400_000), notBefore: iso(t.opts.epochMs - 30 * 86_400_000), renewalTime: iso(t.opts.epochMs + 30 * 86_400_000), revision: 1 } : {}),
    },
  };
}

export const CLUSTER_ISSUERS = ['letsencrypt-prod', 'selfsigned'];

export function buildClusterIssuer(t: Topology, ref: number): SimObject {
  const name = CLUSTER_ISSUERS[ref] ?? 'selfsigned';
  const created = t.clusterCreatedMs + 86_400_000;
  const spec = name === 'selfsigned' ? { selfSigned: {} } : { acme: { server: 'https://acme-v02.api.letsencrypt.org/directory', email: 'ops@example.com', privateKeySecretRef: { name: 'letsencrypt-prod' }, solvers: [{ http01: { ingress: { ingressClassName: 'nginx' } } }] } };
  return {
    apiVersion: 'cert-manager.io/v1', kind: 'ClusterIssuer',
    metadata: { name, uid: genUid(t, 'clusterissuers.cert-manager.io', name), generation: 1, creationTimestamp: iso(created) },
    spec,
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(created + 5000), observedGeneration: 1, reason: 'ACMEAccountRegistered', message: 'The ACME account was registered with the ACME server' }] },
  };
}
