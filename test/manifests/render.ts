// Renders manifests/<variant> with the real `kubectl kustomize` and gives the objects narrow structural types.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../support/bundle.js';

export const MANIFESTS = join(ROOT, 'manifests');
export const NAMESPACE = 'clusterpedia-system';
export const IMAGE = 'ghcr.io/clusterpedia-ts/clusterpedia:0.1.0';

export interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
}

export interface Obj {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  [key: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string };
    fieldRef?: { fieldPath: string };
  };
}

export interface Probe {
  httpGet?: { path: string; port: number | string; scheme?: string };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsNonRoot?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface Volume {
  name: string;
  emptyDir?: Record<string, unknown>;
  persistentVolumeClaim?: { claimName: string };
  configMap?: { name: string };
  secret?: { secretName: string };
}

export interface PodSpec {
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  initContainers?: Container[];
  containers: Container[];
  volumes?: Volume[];
}

export interface Deployment extends Obj {
  kind: 'Deployment';
  spec: {
    replicas?: number;
    strategy?: { type: string };
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

export interface Service extends Obj {
  kind: 'Service';
  spec: { selector: Record<string, string>; ports: { name?: string; port: number; targetPort: number | string }[] };
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface Role extends Obj {
  kind: 'Role' | 'ClusterRole';
  rules: PolicyRule[];
}

export interface RoleBinding extends Obj {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  roleRef: { kind: string; name: string };
  subjects: { kind: string; name: string; namespace?: string }[];
}

/** Parses a multi-document YAML string into objects (empty documents dropped). */
export function parseObjects(text: string): Obj[] {
  const out: Obj[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
    const v: unknown = doc.toJS();
    if (v === null || v === undefined) continue;
    const o = v as Partial<Obj>;
    if (typeof o.kind !== 'string' || typeof o.apiVersion !== 'string' || typeof o.metadata?.name !== 'string') {
      throw new Error(`not a Kubernetes object: ${JSON.stringify(v).slice(0, 200)}`);
    }
    out.push(o as Obj);
  }
  return out;
}

/** `kubectl kustomize manifests/<dir>`, parsed. */
export function render(dir: string): Obj[] {
  return parseObjects(execFileSync('kubectl', ['kustomize', join(MANIFESTS, dir)], { encoding: 'utf8', timeout: 30_000 }));
}

export function readObjects(relPath: string): Obj[] {
  return parseObjects(readFileSync(join(MANIFESTS, relPath), 'utf8'));
}

/** The rendered set of one variant, with typed look-ups. */
export class Rendered {
  constructor(readonly objects: Obj[]) {}

  ofKind<T extends Obj>(kind: T['kind']): T[] {
    return this.objects.filter((o): o is T => o.kind === kind);
  }

  get<T extends Obj>(kind: T['kind'], name: string, namespace?: string): T {
    const found = this.ofKind<T>(kind).filter((o) => o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace));
    if (found.length !== 1) throw new Error(`expected one ${kind} ${namespace ?? ''}/${name}, found ${found.length}`);
    return found[0]!;
  }

  /** Name of a generated object (kustomize adds a content hash to generated ConfigMaps). */
  generatedName(kind: string, prefix: string): string {
    const names = this.objects.filter((o) => o.kind === kind && o.metadata.name.startsWith(`${prefix}-`)).map((o) => o.metadata.name);
    if (names.length !== 1) throw new Error(`expected one generated ${kind} ${prefix}-<hash>, found ${names.join(', ') || 'none'}`);
    return names[0]!;
  }

  deployments(): Deployment[] {
    return this.ofKind<Deployment>('Deployment');
  }

  /** Deployments whose Pods the Service selects. */
  selectedBy(svc: Service): Deployment[] {
    return this.deployments().filter((d) => Object.entries(svc.spec.selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v));
  }
}

export function allContainers(pod: PodSpec): Container[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}

/** Value of `--flag=value` or `--flag value` in args; undefined when absent. */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
    if (a === flag) {
      const next = args[i + 1];
      return next !== undefined && !next.startsWith('--') ? next : '';
    }
  }
  return undefined;
}

/** The container port a probe or Service targetPort refers to (by number or by port name). */
export function resolvePort(c: Container, port: number | string): number | undefined {
  if (typeof port === 'number') return c.ports?.some((p) => p.containerPort === port) ? port : undefined;
  return c.ports?.find((p) => p.name === port)?.containerPort;
}

/** Go-style duration ("20s", "1m30s", "500ms") in milliseconds. */
export function durationMs(s: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let end = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * (unit[m[2]!] ?? Number.NaN);
    end = re.lastIndex;
  }
  if (s === '' || end !== s.length) throw new Error(`not a duration: ${s}`);
  return total;
}
