// Renders manifests/binding and manifests/split with the real `kubectl kustomize` and checks the objects against
// each other and against the built CLI's real flags (`<command> --help`), so the manifests cannot drift.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliCommand, flagsIn, type CliCommand } from './cli-flags.js';
import { can, bindingsOf } from './rbac.js';
import {
  IMAGE, MANIFESTS, NAMESPACE, Rendered, allContainers, durationMs, flagValue, render, resolvePort,
  type Container, type Deployment, type Obj, type Role, type Service,
} from './render.js';

const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'APIService']);
const API_COMMANDS = new Set(['binding', 'apiserver']);
const SYNCHRO_COMMANDS = new Set(['binding', 'synchro']);
const SA_CA = '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt';

const commands = new Map<string, Promise<CliCommand>>();
/** `clusterpedia <name> --help`, parsed once per run. */
function command(name: string): Promise<CliCommand> {
  let c = commands.get(name);
  if (!c) commands.set(name, (c = cliCommand(name)));
  return c;
}

/** A container that runs the clusterpedia CLI (the image's ENTRYPOINT, args[0] = subcommand). */
interface CliContainer {
  deployment: Deployment;
  container: Container;
  subcommand: string;
  init: boolean;
}

function cliContainers(r: Rendered): CliContainer[] {
  return r.deployments().flatMap((deployment) => {
    const pod = deployment.spec.template.spec;
    const init = new Set(pod.initContainers ?? []);
    return allContainers(pod)
      .filter((c) => c.command === undefined)
      .map((container) => ({ deployment, container, subcommand: container.args?.[0] ?? '', init: init.has(container) }));
  });
}

/** The value of a flag as the process sees it: from args, else from its env var (literal), else the CLI default. */
async function effective(c: CliContainer, flag: string): Promise<string | undefined> {
  const cmd = await command(c.subcommand);
  const opt = cmd.options.get(flag);
  const fromArgs = flagValue(c.container.args ?? [], flag);
  if (fromArgs !== undefined) return fromArgs;
  const env = c.container.env?.find((e) => e.name === opt?.env);
  return env?.value ?? opt?.default;
}

function mountOf(pod: Deployment['spec']['template']['spec'], c: Container, path: string): { volume: string; mountPath: string } | undefined {
  const m = (c.volumeMounts ?? []).find((v) => path === v.mountPath || path.startsWith(`${v.mountPath}/`));
  return m && pod.volumes?.some((v) => v.name === m.name) ? { volume: m.name, mountPath: m.mountPath } : undefined;
}

function volumeOf(d: Deployment, name: string): NonNullable<Deployment['spec']['template']['spec']['volumes']>[number] {
  const v = d.spec.template.spec.volumes?.find((x) => x.name === name);
  if (!v) throw new Error(`${d.metadata.name}: no volume ${name}`);
  return v;
}

/** The Deployment (and its main container) serving the API: what the APIService's Service selects. */
function apiPods(r: Rendered): { svc: Service; deployment: Deployment; cli: CliContainer } {
  const svc = r.get<Service>('Service', 'clusterpedia-apiserver', NAMESPACE);
  const selected = r.selectedBy(svc);
  expect(selected.map((d) => d.metadata.name)).toHaveLength(1);
  const deployment = selected[0]!;
  const cli = cliContainers(r).find((c) => c.deployment === deployment && !c.init && API_COMMANDS.has(c.subcommand));
  if (!cli) throw new Error(`${deployment.metadata.name} runs no API command`);
  return { svc, deployment, cli };
}

/** The ServiceAccount of the Pods running the synchro role. */
function synchroAccount(r: Rendered): string {
  const c = cliContainers(r).find((x) => !x.init && SYNCHRO_COMMANDS.has(x.subcommand));
  if (!c) throw new Error('no synchro container');
  return c.deployment.spec.template.spec.serviceAccountName ?? 'default';
}

const variants: Record<'binding' | 'split', Rendered> = {} as Record<'binding' | 'split', Rendered>;

beforeAll(() => {
  variants.binding = new Rendered(render('binding'));
  variants.split = new Rendered(render('split'));
});

describe.each(['binding', 'split'] as const)('manifests/%s', (variant) => {
  const r = (): Rendered => variants[variant];

  it('puts namespaced objects in clusterpedia-system (only the auth-reader RoleBinding in kube-system), each once', () => {
    const seen = new Set<string>();
    for (const o of r().objects) {
      const key = `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      if (CLUSTER_SCOPED.has(o.kind)) expect(o.metadata.namespace, key).toBeUndefined();
      else if (o.kind === 'RoleBinding' && (o as Obj & { roleRef: { name: string } }).roleRef.name === 'extension-apiserver-authentication-reader') {
        expect(o.metadata.namespace, key).toBe('kube-system');
      } else expect(o.metadata.namespace, key).toBe(NAMESPACE);
    }
    expect(seen.has(`Namespace//${NAMESPACE}`)).toBe(true);
    expect(r().objects.filter((o) => o.kind === 'PediaCluster' || o.kind === 'ClusterSyncResources')).toEqual([]);
  });

  it('runs every container on the image set once through kustomize images', () => {
    const containers = r().deployments().flatMap((d) => allContainers(d.spec.template.spec));
    expect(containers.length).toBeGreaterThan(0);
    for (const c of containers) expect(c.image, c.name).toBe(IMAGE);
  });

  it('uses only real flags and CLUSTERPEDIA_* variables of each subcommand (from its --help)', async () => {
    const clis = cliContainers(r());
    expect(clis.length).toBeGreaterThan(0);
    // Every problem of every container at once, so one missing command does not hide the next drift.
    const problems: string[] = [];
    for (const c of clis) {
      const where = `${c.deployment.metadata.name}/${c.container.name}`;
      let cmd: CliCommand;
      try {
        cmd = await command(c.subcommand);
      } catch (e: unknown) {
        problems.push(`${where}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
        continue;
      }
      const rest = c.container.args?.slice(1) ?? [];
      // Only the --flag=value form: a value in its own argument could be misread as a positional argument.
      for (const a of rest) if (!/^--[a-z]/.test(a)) problems.push(`${where}: argument ${a} is not a --flag`);
      for (const f of flagsIn(rest)) if (!cmd.options.has(f)) problems.push(`${where}: ${f} is not a flag of \`clusterpedia ${c.subcommand}\``);
      for (const e of c.container.env ?? []) {
        if (e.name.startsWith('CLUSTERPEDIA_') && !cmd.envNames.has(e.name)) problems.push(`${where}: ${e.name} is not read by \`clusterpedia ${c.subcommand}\``);
      }
    }
    expect(problems).toEqual([]);
  });

  it('serves the API on --secure-port: container port, probes, Service and APIService agree', async () => {
    const { svc, deployment, cli } = apiPods(r());
    const securePort = Number(await effective(cli, '--secure-port'));
    expect(securePort).toBeGreaterThan(0);
    const c = cli.container;
    expect(c.ports?.find((p) => p.name === 'https')?.containerPort).toBe(securePort);
    const probes = { startupProbe: c.startupProbe, livenessProbe: c.livenessProbe, readinessProbe: c.readinessProbe };
    expect(probes.livenessProbe?.httpGet?.path).toBe('/livez');
    expect(probes.readinessProbe?.httpGet?.path).toBe('/readyz');
    for (const [kind, p] of Object.entries(probes)) {
      if (!p) continue;
      expect(['/livez', '/readyz', '/healthz'], `${kind} path`).toContain(p.httpGet?.path);
      expect(p.httpGet?.scheme, `${kind} scheme`).toBe('HTTPS');
      expect(resolvePort(c, p.httpGet!.port), `${kind} port`).toBe(securePort);
    }
    expect(svc.spec.ports).toHaveLength(1);
    const port = svc.spec.ports[0]!;
    expect(port.port).toBe(443);
    expect(resolvePort(c, port.targetPort)).toBe(securePort);
    const apisvc = r().get<Obj & { spec: Record<string, unknown> }>('APIService', 'v1beta1.clusterpedia.io');
    expect(apisvc.spec).toEqual({
      group: 'clusterpedia.io', version: 'v1beta1', groupPriorityMinimum: 1000, versionPriority: 100, insecureSkipTLSVerify: true,
      service: { namespace: svc.metadata.namespace, name: svc.metadata.name, port: port.port },
    });
    expect(deployment.metadata.namespace).toBe(NAMESPACE);
  });

  it('gives the API pod a writable --cert-dir, the front-proxy CA, and time to drain', async () => {
    const { deployment, cli } = apiPods(r());
    const pod = deployment.spec.template.spec;
    const certDir = await effective(cli, '--cert-dir');
    const certMount = mountOf(pod, cli.container, certDir ?? '');
    expect(certMount, `--cert-dir ${certDir} is not on a volume`).toBeDefined();
    expect(volumeOf(deployment, certMount!.volume).emptyDir).toBeDefined();

    // The init container writes the front-proxy CA where --requestheader-client-ca-file reads it.
    const caFile = flagValue(cli.container.args ?? [], '--requestheader-client-ca-file') ?? '';
    const init = pod.initContainers?.find((x) => x.name === 'front-proxy-ca');
    expect(init?.command?.slice(0, 2)).toEqual(['node', '/etc/clusterpedia/scripts/fetch-front-proxy-ca.mjs']);
    expect(init!.command!.at(-1)).toBe(caFile);
    const written = mountOf(pod, init!, caFile);
    const read = mountOf(pod, cli.container, caFile);
    expect(written?.volume).toBeDefined();
    expect(read?.volume).toBe(written!.volume);
    expect(volumeOf(deployment, written!.volume).emptyDir).toBeDefined();
    expect(init!.env).toContainEqual({ name: 'NODE_EXTRA_CA_CERTS', value: SA_CA });
    // The script is the one in manifests/base, through the generated ConfigMap.
    const scriptMount = mountOf(pod, init!, init!.command![1]!);
    const cmName = r().generatedName('ConfigMap', 'clusterpedia-scripts');
    expect(volumeOf(deployment, scriptMount!.volume).configMap?.name).toBe(cmName);
    const cm = r().get<Obj & { data: Record<string, string> }>('ConfigMap', cmName, NAMESPACE);
    expect(cm.data['fetch-front-proxy-ca.mjs']).toBe(readFileSync(join(MANIFESTS, 'base', 'fetch-front-proxy-ca.mjs'), 'utf8'));
    expect(flagValue(cli.container.args ?? [], '--authorization-mode')).toBe('Delegated');
    expect(flagValue(cli.container.args ?? [], '--authentication-token-webhook')).toBe('');

    const grace = durationMs((await effective(cli, '--shutdown-grace-period')) ?? '');
    expect(grace).toBeGreaterThan(0);
    expect((pod.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(grace);
  });

  it('locks every pod down: non-root, read-only root filesystem, no privilege, requests and memory limits', () => {
    for (const d of r().deployments()) {
      const pod = d.spec.template.spec;
      expect(pod.securityContext?.runAsNonRoot, d.metadata.name).toBe(true);
      expect(pod.securityContext?.runAsUser, d.metadata.name).toBeGreaterThan(0);
      expect(pod.securityContext?.seccompProfile?.type, d.metadata.name).toBe('RuntimeDefault');
      for (const c of allContainers(pod)) {
        const where = `${d.metadata.name}/${c.name}`;
        expect(c.securityContext?.readOnlyRootFilesystem, where).toBe(true);
        expect(c.securityContext?.allowPrivilegeEscalation, where).toBe(false);
        expect(c.securityContext?.capabilities?.drop, where).toEqual(['ALL']);
        expect(c.securityContext?.capabilities?.add, where).toBeUndefined();
        expect(c.resources?.requests?.cpu, where).toBeDefined();
        expect(c.resources?.requests?.memory, where).toBeDefined();
        expect(c.resources?.limits?.memory, where).toBeDefined();
        for (const m of c.volumeMounts ?? []) expect(pod.volumes?.map((v) => v.name), `${where} mounts ${m.name}`).toContain(m.name);
      }
    }
  });

  it('RBAC: no wildcards, Secrets only through a Role in clusterpedia-system, every role and account exists', () => {
    const roles = [...r().ofKind<Role>('Role'), ...r().ofKind<Role>('ClusterRole')];
    expect(roles.length).toBeGreaterThan(0);
    for (const role of roles) {
      for (const rule of role.rules) {
        const where = `${role.kind} ${role.metadata.name}`;
        for (const v of [...rule.verbs, ...(rule.resources ?? []), ...(rule.apiGroups ?? []), ...(rule.resourceNames ?? [])]) expect(v, where).not.toContain('*');
        expect(rule.nonResourceURLs, where).toBeUndefined();
        if (role.kind === 'ClusterRole') expect(rule.resources ?? [], where).not.toContain('secrets');
        if ((rule.resources ?? []).includes('secrets')) {
          expect(role.metadata.namespace, where).toBe(NAMESPACE);
          expect(rule.verbs, where).toEqual(['get']);
        }
      }
    }
    const accounts = new Set(r().ofKind('ServiceAccount').map((o) => o.metadata.name));
    for (const d of r().deployments()) expect(accounts, d.metadata.name).toContain(d.spec.template.spec.serviceAccountName);
    for (const b of [...r().ofKind<Obj & { roleRef: { kind: string; name: string } }>('RoleBinding'), ...r().ofKind<Obj & { roleRef: { kind: string; name: string } }>('ClusterRoleBinding')]) {
      if (b.roleRef.name === 'extension-apiserver-authentication-reader') continue; // created by Kubernetes in kube-system
      const found = roles.some((x) => x.kind === b.roleRef.kind && x.metadata.name === b.roleRef.name && (x.kind === 'ClusterRole' || x.metadata.namespace === b.metadata.namespace));
      expect(found, `${b.kind} ${b.metadata.name} → ${b.roleRef.kind} ${b.roleRef.name}`).toBe(true);
    }
  });

  it('RBAC: the synchro may do what it does and read Secrets only in its namespace', () => {
    const sa = synchroAccount(r());
    const g = 'cluster.clusterpedia.io';
    for (const verb of ['get', 'list', 'watch', 'update', 'patch']) expect(can(r(), sa, { verb, group: g, resource: 'pediaclusters' }), verb).toBe(true);
    for (const verb of ['update', 'patch']) expect(can(r(), sa, { verb, group: g, resource: 'pediaclusters/status' }), verb).toBe(true);
    expect(can(r(), sa, { verb: 'update', group: g, resource: 'pediaclusters/finalizers' })).toBe(true);
    for (const verb of ['get', 'list', 'watch']) expect(can(r(), sa, { verb, group: g, resource: 'clustersyncresources' }), verb).toBe(true);
    for (const verb of ['create', 'delete']) expect(can(r(), sa, { verb, group: g, resource: 'pediaclusters' }), verb).toBe(false);
    expect(can(r(), sa, { verb: 'update', group: g, resource: 'clustersyncresources' })).toBe(false);
    expect(can(r(), sa, { verb: 'get', group: '', resource: 'secrets', namespace: NAMESPACE, name: 'member-credentials' })).toBe(true);
    expect(can(r(), sa, { verb: 'get', group: '', resource: 'secrets', namespace: 'default', name: 'member-credentials' })).toBe(false);
    expect(can(r(), sa, { verb: 'get', group: '', resource: 'secrets' })).toBe(false);
    expect(can(r(), sa, { verb: 'list', group: '', resource: 'secrets', namespace: NAMESPACE })).toBe(false);
  });

  it('RBAC: the API pod may review tokens and access, and read the front-proxy CA in kube-system', () => {
    const sa = apiPods(r()).deployment.spec.template.spec.serviceAccountName ?? 'default';
    expect(can(r(), sa, { verb: 'create', group: 'authentication.k8s.io', resource: 'tokenreviews' })).toBe(true);
    expect(can(r(), sa, { verb: 'create', group: 'authorization.k8s.io', resource: 'subjectaccessreviews' })).toBe(true);
    const reader = bindingsOf(r(), sa).filter((b) => b.roleRef.name === 'extension-apiserver-authentication-reader');
    expect(reader.map((b) => [b.kind, b.metadata.namespace, b.roleRef.kind])).toEqual([['RoleBinding', 'kube-system', 'Role']]);
  });
});

describe('manifests/binding', () => {
  it('runs one binding Pod (replicas 1, Recreate) with SQLite on a PersistentVolumeClaim', async () => {
    const r = variants.binding;
    const [d, ...others] = r.deployments();
    expect(others).toEqual([]);
    expect(d!.spec.replicas).toBe(1);
    expect(d!.spec.strategy?.type).toBe('Recreate');
    const cli = cliContainers(r).find((c) => !c.init)!;
    expect(cli.subcommand).toBe('binding');
    const storage = (await effective(cli, '--storage')) ?? '';
    expect(storage).toMatch(/^sqlite:\//);
    const dbPath = storage.slice('sqlite:'.length);
    const mount = mountOf(d!.spec.template.spec, cli.container, dbPath);
    expect(mount, `${dbPath} is not on a volume`).toBeDefined();
    const claim = volumeOf(d!, mount!.volume).persistentVolumeClaim?.claimName;
    const pvc = r.get<Obj & { spec: { accessModes: string[] } }>('PersistentVolumeClaim', claim ?? '', NAMESPACE);
    expect(pvc.spec.accessModes).toEqual(['ReadWriteOnce']);
  });

  it('migrates the same database in an init container, where no probe can kill a long upgrade, before the server starts', async () => {
    const r = variants.binding;
    const [d] = r.deployments();
    const pod = d!.spec.template.spec;
    const [migrate, ...more] = cliContainers(r).filter((c) => c.subcommand === 'migrate');
    expect(more).toEqual([]);
    expect(migrate?.init).toBe(true);
    expect(migrate!.container.startupProbe ?? migrate!.container.livenessProbe).toBeUndefined();
    const server = cliContainers(r).find((c) => !c.init)!;
    const storage = (await effective(migrate!, '--storage')) ?? '';
    expect(storage).toBe(await effective(server, '--storage'));
    // The same file on the same volume.
    const dbPath = storage.slice('sqlite:'.length);
    expect(mountOf(pod, migrate!.container, dbPath)?.volume).toBe(mountOf(pod, server.container, dbPath)?.volume);
  });
});

describe('manifests/split', () => {
  const r = (): Rendered => variants.split;

  it('runs a separate apiserver (scaled out, with a PodDisruptionBudget) and synchro, each with its own ServiceAccount', () => {
    const api = r().get<Deployment>('Deployment', 'clusterpedia-apiserver', NAMESPACE);
    const synchro = r().get<Deployment>('Deployment', 'clusterpedia-synchro', NAMESPACE);
    expect(api.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(api.spec.template.spec.containers.map((c) => c.args?.[0])).toEqual(['apiserver']);
    expect(synchro.spec.template.spec.containers.map((c) => c.args?.[0])).toEqual(['synchro']);
    expect(api.spec.template.spec.serviceAccountName).not.toBe(synchro.spec.template.spec.serviceAccountName);
    const pdbs = r().ofKind<Obj & { spec: { selector: { matchLabels: Record<string, string> }; maxUnavailable?: number; minAvailable?: number } }>('PodDisruptionBudget');
    expect(pdbs).toHaveLength(1);
    const sel = pdbs[0]!.spec.selector.matchLabels;
    const covered = r().deployments().filter((d) => Object.entries(sel).every(([k, v]) => d.spec.template.metadata.labels[k] === v));
    expect(covered.map((d) => d.metadata.name)).toEqual(['clusterpedia-apiserver']);
    expect(pdbs[0]!.spec.maxUnavailable ?? pdbs[0]!.spec.minAvailable).toBeDefined();
  });

  it('reads the PostgreSQL URL from a Secret in every container that opens storage, never from a literal', () => {
    const secrets = r().ofKind<Obj & { stringData?: Record<string, string>; data?: Record<string, string> }>('Secret');
    const users = cliContainers(r()).filter((c) => ['apiserver', 'synchro', 'migrate'].includes(c.subcommand));
    expect(users.map((c) => c.subcommand).sort()).toEqual(['apiserver', 'migrate', 'synchro']);
    for (const c of users) {
      const where = `${c.deployment.metadata.name}/${c.container.name}`;
      expect(flagValue(c.container.args ?? [], '--storage'), where).toBeUndefined();
      const env = c.container.env?.find((e) => e.name === 'CLUSTERPEDIA_STORAGE');
      const ref = env?.valueFrom?.secretKeyRef;
      expect(ref, `${where}: CLUSTERPEDIA_STORAGE from a Secret`).toBeDefined();
      const secret = secrets.find((s) => s.metadata.name === ref!.name && s.metadata.namespace === NAMESPACE);
      expect({ ...secret?.data, ...secret?.stringData }[ref!.key], `${where}: Secret ${ref!.name} key ${ref!.key}`).toMatch(/^postgres(ql)?:\/\//);
    }
    for (const d of r().deployments()) {
      for (const c of allContainers(d.spec.template.spec)) {
        const literals = [...(c.args ?? []), ...(c.command ?? []), ...(c.env ?? []).map((e) => e.value ?? '')];
        for (const l of literals) expect(l, `${d.metadata.name}/${c.name}`).not.toMatch(/postgres(ql)?:\/\/|password/i);
      }
    }
  });

  it('migrates the schema once, in the synchro\'s init container, before the writer starts', () => {
    const clis = cliContainers(r());
    const migrate = clis.filter((c) => c.subcommand === 'migrate');
    expect(migrate.map((c) => [c.deployment.metadata.name, c.init])).toEqual([['clusterpedia-synchro', true]]);
    for (const c of clis.filter((x) => x.subcommand === 'apiserver' || x.subcommand === 'synchro')) {
      expect(flagValue(c.container.args ?? [], '--migrate'), c.container.name).toBe('false');
    }
  });

  it('runs one active synchro writer, probed over plain HTTP on --metrics-port', async () => {
    const synchro = r().get<Deployment>('Deployment', 'clusterpedia-synchro', NAMESPACE);
    const cli = cliContainers(r()).find((c) => c.deployment === synchro && !c.init)!;
    const cmd = await command('synchro');
    const leaderFlag = [...cmd.options.keys()].find((f) => /^--leader-elect(ion)?$/.test(f));
    if (leaderFlag) {
      // With leader election, a second replica is a warm standby and rolling updates are safe.
      expect(flagValue(cli.container.args ?? [], leaderFlag), `synchro should use ${leaderFlag}`).toMatch(/^(|true)$/);
      expect(synchro.spec.replicas).toBeGreaterThanOrEqual(2);
    } else {
      // Without it, two Pods would be two writers: exactly one, and never two during an update.
      expect(synchro.spec.replicas).toBe(1);
      expect(synchro.spec.strategy?.type).toBe('Recreate');
    }
    expect(can(r(), synchro.spec.template.spec.serviceAccountName ?? '', { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: NAMESPACE })).toBe(true);
    for (const verb of ['get', 'update']) {
      expect(can(r(), synchro.spec.template.spec.serviceAccountName ?? '', { verb, group: 'coordination.k8s.io', resource: 'leases', namespace: NAMESPACE, name: 'clusterpedia-synchro' }), verb).toBe(true);
    }
    const metricsPort = Number(await effective(cli, '--metrics-port'));
    expect(metricsPort).toBeGreaterThan(0);
    const c = cli.container;
    expect(c.ports?.map((p) => p.containerPort)).toEqual([metricsPort]);
    expect(c.livenessProbe?.httpGet?.path).toBe('/livez');
    expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
    for (const p of [c.livenessProbe, c.readinessProbe]) {
      expect(p?.httpGet?.scheme).toBe('HTTP');
      expect(resolvePort(c, p!.httpGet!.port)).toBe(metricsPort);
    }
    expect(c.env?.find((e) => e.name === 'CLUSTERPEDIA_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
  });
});

describe('manifests/', () => {
  it('names the image (registry and tag) in exactly one YAML file', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.ya?ml$/.test(f) && readFileSync(p, 'utf8').includes('ghcr.io/clusterpedia-ts/clusterpedia')) files.push(relative(MANIFESTS, p));
      }
    };
    walk(MANIFESTS);
    expect(files).toEqual(['components/image/kustomization.yaml']);
  });
});
