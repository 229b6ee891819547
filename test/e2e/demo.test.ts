// End to end: README's first command — `binding --demo` from the bundle, with nothing else — works with kubectl.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { parseAllDocuments } from 'yaml';
import { BundleProcess } from '../support/bundle.js';
import { freePort } from '../support/postgres-server.js';
import { Kubectl, kubectlPath } from '../support/kubectl.js';

let dir: string;
let proc: BundleProcess;
let base: string;
const P = '/apis/clusterpedia.io/v1beta1/resources';

interface DemoCluster { name: string; url: string; token: string; ca: string }

function demoClusters(): DemoCluster[] {
  const docs = parseAllDocuments(readFileSync(join(dir, 'clusterpedia-demo', 'demo-clusters.yaml'), 'utf8')).map((d) => d.toJSON() as { metadata: { name: string }; spec: { apiserver: string; tokenData: string; caData: string } });
  const text = (b64: string): string => Buffer.from(b64, 'base64').toString();
  return docs.map((d) => ({ name: d.metadata.name, url: d.spec.apiserver, token: text(d.spec.tokenData), ca: text(d.spec.caData) }));
}

/** Pods straight from the demo's simulated members (over TLS, as real members), as cluster/namespace/name. */
async function memberPods(): Promise<string[]> {
  const keys: string[] = [];
  for (const c of demoClusters()) {
    const dispatcher = new Agent({ connect: { ca: c.ca } });
    const r = await fetch(`${c.url}/api/v1/pods`, { headers: { authorization: `Bearer ${c.token}` }, dispatcher }).finally(() => void dispatcher.close());
    const list = (await r.json()) as { items: { metadata: { namespace: string; name: string } }[] };
    for (const p of list.items) keys.push(`${c.name}/${p.metadata.namespace}/${p.metadata.name}`);
  }
  return keys.sort();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-demo-'));
  // The pid of a demo killed without its clean-up, whose process is gone: this one takes the directory over.
  mkdirSync(join(dir, 'clusterpedia-demo'));
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  writeFileSync(join(dir, 'clusterpedia-demo', 'demo.pid'), `${gone}\n`);
  const port = await freePort();
  // As in the README, but on a free port and without churn so the comparison below is exact.
  proc = BundleProcess.start(['binding', '--demo', '--demo-churn', '0', '--secure-port', '0', '--insecure-port', String(port)], { cwd: dir });
  await proc.insecurePort(60_000);
  base = `http://127.0.0.1:${port}`;
}, 90_000);

afterAll(async () => {
  await proc?.stop();
  expect(existsSync(join(dir, 'clusterpedia-demo', 'demo.pid')), 'the demo lets go of its directory when it stops').toBe(false);
  rmSync(dir, { recursive: true, force: true });
});

it('serves every pod of every simulated member, with the kubectl commands it printed', async ({ onTestFailed }) => {
  // A step that hangs fails the test by its timeout alone: say which one it was, and what the bundle last logged.
  let step = 'listing the members';
  onTestFailed(() => {
    console.error(`demo test failed while ${step}; the bundle's last lines:\n${proc.raw.slice(-30).join('\n')}`);
  });
  const k = new Kubectl(`${base}${P}`);
  try {
    const member = await memberPods();
    expect(member.length).toBeGreaterThan(100);
    step = 'comparing kubectl get pods -A with the members';
    let served: string[] = [];
    for (let i = 0; i < 120 && served.join() !== member.join(); i++) {
      const out = await k.run(['get', 'pods', '-A', '--no-headers']);
      served = out.stdout.trim().split('\n').filter(Boolean).map((l) => l.split(/\s+/)).map(([ns, c, n]) => `${c}/${ns}/${n}`).sort();
      if (served.join() !== member.join()) await new Promise((r) => setTimeout(r, 500));
    }
    expect(served).toEqual(member);
    // The hints name real commands: the per-cluster URL and pediaclusters work.
    const hints = proc.raw.join('\n');
    expect(hints).toContain(`--server=${base}${P} get pods -A`);
    const one = new Kubectl(`${base}${P}/clusters/demo-1`);
    // All pods served does not mean every list of every cluster is done: lists take turns (--list-concurrency).
    step = 'getting deployments through a cluster URL';
    let deployments = { stdout: '' };
    for (let i = 0; i < 120 && !/deployment\.apps\//.test(deployments.stdout); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      deployments = await one.run(['get', 'deployments', '-A', '-o', 'name']);
    }
    expect(deployments.stdout).toMatch(/deployment\.apps\//);
    one.dispose();
    // The demo forwards its members' logs and exec: the printed kubectl logs and exec commands work as printed.
    const logs = /kubectl --server=(\S+) logs -n (\S+) (\S+) --tail=5/.exec(hints);
    expect(logs).not.toBeNull();
    const [, logServer, ns, pod] = logs as RegExpExecArray;
    const byHint = new Kubectl(logServer ?? '');
    try {
      step = 'kubectl logs';
      expect((await byHint.ok(['logs', '-n', ns ?? '', pod ?? '', '--tail=5'])).trim().split('\n')).toHaveLength(5);
      // Named by its Deployment, so churn replacing the pod does not break it; kubectl picks a running pod.
      expect(pod).toMatch(/^deploy\//);
      expect(hints).toContain(`kubectl --server=${logServer} exec -n ${ns} ${pod} -- hostname`);
      step = 'kubectl exec';
      expect(await byHint.ok(['exec', '-n', ns ?? '', pod ?? '', '--', 'hostname'])).toMatch(new RegExp(`^${(pod ?? '').slice('deploy/'.length)}-\\S+\\n$`));
      // And the port-forward: a local port to the container's port, answered by the member's pod.
      const pf = new RegExp(`kubectl --server=${logServer} port-forward -n ${ns} ${pod} :(\\d+)`).exec(hints);
      expect(pf).not.toBeNull();
      step = 'kubectl port-forward';
      const forward = byHint.spawn(['port-forward', '-n', ns ?? '', pod ?? '', `:${pf?.[1] ?? ''}`]);
      try {
        await forward.waitFor(/Forwarding from 127\.0\.0\.1:\d+/);
        const local = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(forward.out())?.[1];
        expect(await (await fetch(`http://127.0.0.1:${local}/`, { signal: AbortSignal.timeout(15_000) })).text()).toMatch(new RegExp(`^${ns}/${(pod ?? '').slice('deploy/'.length)}-\\S+ port ${pf?.[1]}: GET /\n$`));
      } finally {
        forward.child.kill('SIGKILL');
      }
      // And kubectl top: the namespace's running pods, with the member's figures.
      expect(hints).toContain(`kubectl --server=${logServer} top pods -n ${ns}`);
      step = 'kubectl top pods -n';
      const top = (await byHint.ok(['top', 'pods', '-n', ns ?? ''])).trim().split('\n');
      expect(top[0]).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$/);
      expect(top.slice(1).some((l) => new RegExp(`^${(pod ?? '').slice('deploy/'.length)}-\\S+\\s+\\d+m\\s+\\d+Mi\\s*$`).test(l))).toBe(true);
      // Across the fleet: every member's running pods, busiest first.
      expect(hints).toContain(`--server=${base}${P} top pods -A --sort-by=cpu`);
      const fleet = new Kubectl(`${base}${P}`);
      step = 'kubectl top pods -A';
      const fleetTop = await fleet.run(['top', 'pods', '-A', '--sort-by=cpu', '--no-headers']).finally(() => fleet.dispose());
      expect(fleetTop.stderr).toBe('');
      const cpu = fleetTop.stdout.trim().split('\n').map((l) => Number(/\s(\d+)m\s/.exec(l)?.[1]));
      expect(cpu.length).toBeGreaterThan(top.length);
      expect(cpu.every((v, i) => Number.isFinite(v) && (i === 0 || v <= (cpu[i - 1] ?? 0)))).toBe(true);
      // And kubectl explain, from a member's schemas.
      expect(hints).toContain(`--server=${base}${P} explain deployments.spec.strategy`);
      const explain = new Kubectl(`${base}${P}`);
      step = 'kubectl explain';
      const strategy = await explain.run(['explain', 'deployments.spec.strategy']).finally(() => explain.dispose());
      expect(strategy).toMatchObject({ code: 0, stderr: '' });
      expect(strategy.stdout).toMatch(/^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n/);
      expect(strategy.stdout).toMatch(/FIELD: strategy <Object>/);
    } finally {
      byHint.dispose();
    }
    // Cluster status is written about once a second after it changes, so right after the sync it may not be there yet.
    step = 'kubectl get pediaclusters';
    const root = new Kubectl(base);
    let clusters = '';
    for (let i = 0; i < 60 && !/^demo-1\s+True\s+v1\.32/m.test(clusters); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      clusters = await root.ok(['get', 'pediaclusters']);
    }
    expect(clusters).toMatch(/^demo-1\s+True\s+v1\.32/m);
    // The bundle carries the PediaCluster CRD whose schema the root's OpenAPI publishes.
    expect(await root.ok(['explain', 'pediaclusters.spec.apiserver'])).toMatch(/URL of the member cluster's kube-apiserver/);
    // --sort-by reads each row's whole object (includeObject=Object); with metadata alone kubectl found no rows.
    const sorted = await root.ok(['get', 'pediaclusters', '--sort-by=.status.version']);
    expect(sorted.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]).sort()).toEqual(['demo-1', 'demo-2', 'demo-3']);
    root.dispose();
  } finally {
    k.dispose();
  }
});

it('show kubeconfig writes contexts for the fleet and each member that kubectl uses as they are, as the hints say', async () => {
  const { runBundle } = await import('../support/bundle.js');
  expect(proc.raw.join('\n')).toContain(`show kubeconfig --server=${base} > fleet.yaml`);
  const r = await runBundle(['show', 'kubeconfig', '--server', base, '--storage', `sqlite:${join(dir, 'clusterpedia.db')}`, '--log-level', 'warn']);
  expect(r.code).toBe(0);
  const file = join(dir, 'fleet.yaml');
  writeFileSync(file, r.stdout);
  const kubectl = (args: string[]): string => execFileSync(kubectlPath(), args, { env: { ...process.env, KUBECONFIG: file }, encoding: 'utf8' });
  expect(kubectl(['config', 'get-contexts', '-o', 'name']).trim().split('\n')).toEqual(['clusterpedia', 'demo-1', 'demo-2', 'demo-3']);
  const clustersOf = (out: string): string[] => [...new Set(out.trim().split('\n').map((l) => l.split(/\s+/)[1]!))].sort();
  // The current context searches the fleet; a member's context and --cluster read that member only.
  expect(clustersOf(kubectl(['get', 'pods', '-A', '--no-headers']))).toEqual(['demo-1', 'demo-2', 'demo-3']);
  expect(clustersOf(kubectl(['--context', 'demo-2', 'get', 'pods', '-A', '--no-headers']))).toEqual(['demo-2']);
  expect(clustersOf(kubectl(['--cluster', 'demo-3', 'get', 'pods', '-A', '--no-headers']))).toEqual(['demo-3']);
});

it('show clusters reports the demo fleet from the same storage', async () => {
  const { runBundle } = await import('../support/bundle.js');
  const r = await runBundle(['show', 'clusters', '-o', 'json', '--storage', `sqlite:${join(dir, 'clusterpedia.db')}`, '--log-level', 'warn']);
  expect(r.code).toBe(0);
  const reports = JSON.parse(r.stdout) as { name: string; objects: number; conditions: { type: string; status: string }[] }[];
  expect(reports.map((x) => x.name)).toEqual(['demo-1', 'demo-2', 'demo-3']);
  for (const x of reports) {
    expect(x.objects).toBeGreaterThan(50);
    expect(x.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
  }
});

it('a --demo-dir that cannot be made stops the demo with the flag and the reason (under /proc it once hung for good)', async () => {
  const { runBundle } = await import('../support/bundle.js');
  const r = await runBundle(['binding', '--demo', '--demo-dir', '/proc/cp-demo', '--secure-port', '0', '--insecure-port', '0', '--log-level', 'warn'], { cwd: dir });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("--demo-dir: cannot make /proc/cp-demo: ENOENT");
  expect(r.stderr).not.toMatch(/\n\s+at /);
});

it('a second demo in the same directory stops before it starts, naming --demo-dir, and leaves the first one\'s members alone', async () => {
  const { runBundle } = await import('../support/bundle.js');
  const pidFile = join(dir, 'clusterpedia-demo', 'demo.pid');
  expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(proc.child.pid));
  const before = readFileSync(join(dir, 'clusterpedia-demo', 'demo-clusters.yaml'), 'utf8');
  const second = await runBundle(['binding', '--demo', '--secure-port', '0', '--insecure-port', String(await freePort()), '--log-level', 'warn'], { cwd: dir });
  expect(second.code).toBe(2);
  expect(second.stderr).toMatch(new RegExp(`--demo-dir: .*clusterpedia-demo is in use by another clusterpedia binding --demo \\(pid ${proc.child.pid}\\)`));
  expect(second.stderr).not.toMatch(/\n\s+at /);
  // Before the lock, the second demo rewrote this file with members of its own and the first one's synchro followed.
  expect(readFileSync(join(dir, 'clusterpedia-demo', 'demo-clusters.yaml'), 'utf8')).toBe(before);
  expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(proc.child.pid));
  const r = await fetch(`${base}/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters`);
  const list = (await r.json()) as { items: { metadata: { name: string }; spec: { apiserver: string } }[] };
  expect(list.items.map((c) => [c.metadata.name, c.spec.apiserver])).toEqual(demoClusters().map((c) => [c.name, c.url]));
});

it('members.kubeconfig lets kubectl change a member as the hints say, and clusterpedia follows', async () => {
  const hints = proc.raw.join('\n');
  const scale = /kubectl --kubeconfig (\S+) --context (\S+) scale -n (\S+) deploy\/(\S+) --replicas=(\d+)/.exec(hints);
  expect(scale, hints).not.toBeNull();
  const [, kubeconfig, context, ns, name, wanted] = scale as RegExpExecArray;
  const n = Number(wanted);
  expect(hints).toContain(`kubectl --kubeconfig ${kubeconfig} --context ${context} rollout restart -n ${ns} deploy/${name}`);
  expect(statSync(join(dir, kubeconfig ?? '')).mode & 0o077).toBe(0);
  const member = (args: string[]): string => execFileSync(kubectlPath(), ['--kubeconfig', kubeconfig ?? '', '--context', context ?? '', ...args], { cwd: dir, env: { ...process.env, KUBECONFIG: '' }, encoding: 'utf8' });
  expect(member(['config', 'get-contexts', '-o', 'name']).trim().split('\n')).toEqual(['demo-1', 'demo-2', 'demo-3']);
  expect(member(['scale', '-n', ns ?? '', `deploy/${name}`, `--replicas=${n}`])).toContain(`deployment.apps/${name} scaled`);
  const k = new Kubectl(`${base}${P}/clusters/${context}`);
  try {
    // Through clusterpedia: the Deployment's pods, two more, each running once the member's kubelet has started them.
    const selector = Object.entries(JSON.parse(member(['get', '-n', ns ?? '', `deploy/${name}`, '-o', 'jsonpath={.spec.selector.matchLabels}'])) as Record<string, string>).map(([key, v]) => `${key}=${v}`).join(',');
    let out = '';
    for (let i = 0; i < 60; i++) {
      out = (await k.ok(['get', 'pods', '-n', ns ?? '', '-l', selector, '--no-headers'])).trim();
      if (out.split('\n').length === n && out.split('\n').every((l) => /\sRunning\s/.test(l))) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(out.split('\n')).toHaveLength(n);
    expect((await k.ok(['rollout', 'status', '-n', ns ?? '', `deploy/${name}`, '--timeout=30s'])).trim()).toBe(`deployment "${name}" successfully rolled out`);
  } finally {
    k.dispose();
  }
});
