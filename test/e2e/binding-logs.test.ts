// End to end: `binding --allowed-proxy-subresources log,exec,attach,portforward,proxy` forwards kubectl logs, exec,
// attach, port-forward and the pod, service and node proxies through a cluster's path to the simulated member, with the synchro's connection (TLS + token): a followed
// log streams back, an exec session (WebSocket, or SPDY from kubectl 1.27) and a port-forward (SPDY, tunnelled in
// WebSocket by kubectl 1.31+) are joined byte for byte until either side ends; and get, list and watch asked with
// Clusterpedia's forward label or header are answered by the member, as is anything sent to its proxy path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSingleContainerRunning, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { Kubectl, kubectlPath, oldestKubectl } from '../support/kubectl.js';
import type { BundleProcess } from '../support/bundle.js';
import { startBinding, startFleet, waitConverged, type Fleet } from './helpers.js';

let f: Fleet;
let proc: BundleProcess;
let base: string;
let member: SimCluster;
let target: SimObject;
const P = '/apis/clusterpedia.io/v1beta1/resources';

beforeAll(async () => {
  f = await startFleet({ clusters: 2, pods: 12, seed: 31 });
  ({ proc, base } = await startBinding(f, `sqlite:${join(f.dir, 'cp.db')}`, ['--allowed-proxy-subresources', 'log,exec,attach,portforward,proxy', '--allow-pediacluster-config-for-proxy-request', '--allow-forward-unsync-resource-request', '--enable-proxy-path-for-forward-request']));
  await waitConverged(base, f.fleet);
  member = f.fleet.clusters[1] as SimCluster;
  // A pod whose log the member serves without a container name: running, one container.
  target = member.store.list('pods').find(isSingleContainerRunning) as SimObject;
}, 120_000);

afterAll(async () => {
  await proc?.stop();
  await f?.dispose();
});

const container = (p: SimObject): string => ((p.spec as { containers: { name: string }[] }).containers[0] as { name: string }).name;

for (const [label, binary] of [['dispatcher', kubectlPath()], ['kubectl 1.27', oldestKubectl()]] as const) {
  describe(`kubectl logs (${label}) through the bundle`, () => {
    it("reads a pod's log from its member, with the synchro's connection", async () => {
      const k = new Kubectl(`${base}${P}/clusters/${member.name}`, binary);
      try {
        const ns = target.metadata.namespace ?? '';
        const name = target.metadata.name ?? '';
        const before = member.requestLog.entries((r) => r.path.endsWith(`/pods/${name}/log`)).length;
        const out = await k.ok(['logs', '-n', ns, name, '--tail=2']);
        expect(out).toBe(`${ns}/${name}/${container(target)} line 9\n${ns}/${name}/${container(target)} line 10\n`);
        const sent = member.requestLog.entries((r) => r.path.endsWith(`/pods/${name}/log`));
        expect(sent.length).toBe(before + 1);
        expect(sent.at(-1)?.userAgent).toMatch(/^clusterpedia-synchro/);
        // The Audit-ID the kube-apiserver in front sets goes on to the member, so audit logs can be joined.
        await fetch(`${base}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}/log?tailLines=1`, { headers: { 'audit-id': `audit-${label}` } });
        expect(member.requestLog.entries((r) => r.path.endsWith(`/pods/${name}/log`)).at(-1)?.auditId).toBe(`audit-${label}`);
        // The member's own answer comes back: a container it does not have.
        const bad = await k.run(['logs', '-n', ns, name, '-c', 'nope']);
        expect(bad.code).not.toBe(0);
        expect(bad.stderr).toMatch(new RegExp(`container nope is not valid for pod ${name}`));
      } finally {
        k.dispose();
      }
    });
  });
}

describe('forwarded logs', () => {
  it('kubectl logs -f streams lines as the member writes them', async () => {
    const k = new Kubectl(`${base}${P}/clusters/${member.name}`, kubectlPath());
    const ns = target.metadata.namespace ?? '';
    const name = target.metadata.name ?? '';
    const w = k.spawn(['logs', '-f', '-n', ns, name, '--tail=1']);
    try {
      await w.waitFor(new RegExp(`line 14\\n`), 30_000);
      expect(w.out().split('\n').slice(0, 3)).toEqual([10, 11, 12].map((i) => `${ns}/${name}/${container(target)} line ${i}`));
    } finally {
      w.child.kill('SIGKILL');
      k.dispose();
    }
  });

  it('kubectl exec runs in the member: output, stdin, exit codes; the session ends when kubectl goes', async () => {
    const k = new Kubectl(`${base}${P}/clusters/${member.name}`, kubectlPath());
    const ns = target.metadata.namespace ?? '';
    const name = target.metadata.name ?? '';
    try {
      expect(await k.run(['exec', '-n', ns, name, '--', 'echo', 'through', 'clusterpedia'])).toMatchObject({ code: 0, stdout: 'through clusterpedia\n' });
      expect(await k.run(['exec', '-n', ns, name, '--', 'exit', '5'])).toMatchObject({ code: 5 });
      const sent = member.requestLog.entries((r) => r.path.endsWith(`/pods/${name}/exec`));
      expect(sent.at(-1)?.userAgent).toMatch(/^clusterpedia-synchro/);
      expect(sent.at(-1)?.query).toMatch(/^command=exit&command=5&container=/);
      // stdin: kubectl exec -i -- cat, fed from a pipe; then one left open and killed.
      const cat = k.spawn(['exec', '-i', '-n', ns, name, '--', 'cat']);
      cat.child.stdin?.write('first line\n');
      await cat.waitFor(/first line\n/);
      const sessions = async (): Promise<number> => {
        const m = /clusterpedia_apiserver_requests_total\{verb="get",resource="pods\/exec",code="101"\} (\d+)/.exec(await (await fetch(`${base}/metrics`)).text());
        return Number(m?.[1] ?? 0);
      };
      const ended = await sessions();
      cat.child.kill('SIGKILL');
      await expect.poll(sessions, { timeout: 10_000 }).toBe(ended + 1);
    } finally {
      k.dispose();
    }
  });

  for (const [label, binary] of [['dispatcher', kubectlPath()], ['kubectl 1.27', oldestKubectl()]] as const) {
    it(`kubectl cp (${label}) copies a file into a member's container and back, through clusterpedia`, async () => {
      const k = new Kubectl(`${base}${P}/clusters/${member.name}`, binary);
      const where = `${target.metadata.namespace ?? ''}/${target.metadata.name ?? ''}`;
      const dir = mkdtempSync(join(tmpdir(), 'cp-binding-'));
      try {
        // Binary content: tar's bytes go through the exec relay both ways untouched.
        const content = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7 + label.length) % 256));
        writeFileSync(join(dir, 'up.bin'), content);
        expect((await k.run(['cp', join(dir, 'up.bin'), `${where}:/tmp/up.bin`])).code).toBe(0);
        const back = await k.run(['cp', `${where}:/tmp/up.bin`, join(dir, 'down.bin')]);
        expect(back.code).toBe(0);
        expect(readFileSync(join(dir, 'down.bin')).equals(content)).toBe(true);
        expect((await k.run(['cp', `${where}:/etc/hostname`, join(dir, 'hostname')])).code).toBe(0);
        expect(readFileSync(join(dir, 'hostname'), 'utf8')).toBe(`${target.metadata.name ?? ''}\n`);
      } finally {
        k.dispose();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('kubectl 1.27 execs over SPDY: every stream protocol it offers reaches the member as its own header', async () => {
    const k = new Kubectl(`${base}${P}/clusters/${member.name}`, oldestKubectl());
    const ns = target.metadata.namespace ?? '';
    const name = target.metadata.name ?? '';
    try {
      expect(await k.run(['exec', '-n', ns, name, '--', 'echo', 'over', 'spdy'])).toMatchObject({ code: 0, stdout: 'over spdy\n' });
      const cat = k.spawn(['exec', '-i', '-n', ns, name, '--', 'cat']);
      cat.child.stdin?.end('piped in\n');
      const code = await new Promise<number | null>((resolve) => cat.child.on('close', resolve));
      expect({ code, out: cat.out() }).toEqual({ code: 0, out: 'piped in\n' });
      const exit = await k.run(['exec', '-n', ns, name, '--', 'exit', '4']);
      expect(exit).toMatchObject({ code: 4, stderr: expect.stringMatching(/command terminated with exit code 4/) });
      const missing = await k.run(['exec', '-n', ns, name, '--', 'nope']);
      expect(missing.code).toBe(127);
      expect(missing.stderr).toMatch(/exec: "nope": executable file not found/);
    } finally {
      k.dispose();
    }
  });

  it("kubectl attach joins the container's process until kubectl goes", async () => {
    const k = new Kubectl(`${base}${P}/clusters/${member.name}`, kubectlPath());
    const ns = target.metadata.namespace ?? '';
    const name = target.metadata.name ?? '';
    const a = k.spawn(['attach', '-n', ns, name]);
    try {
      await a.waitFor(/attached line 3\n/);
      expect(a.out()).toContain(`${ns}/${name}/${container(target)} attached line 1\n`);
    } finally {
      a.child.kill('SIGKILL');
      k.dispose();
    }
  });

  for (const [label, binary, transport] of [['dispatcher', kubectlPath(), 'SPDY in WebSocket'], ['kubectl 1.27', oldestKubectl(), 'SPDY']] as const) {
    it(`kubectl port-forward (${label}, ${transport}) reaches the pod's port in its member; a closed port is the kubelet's error`, async () => {
      const k = new Kubectl(`${base}${P}/clusters/${member.name}`, binary);
      const ns = target.metadata.namespace ?? '';
      const name = target.metadata.name ?? '';
      const port = ((target.spec as { containers: { ports?: { containerPort: number }[] }[] }).containers[0]?.ports?.[0]?.containerPort) as number;
      const before = member.requestLog.entries((r) => r.path.endsWith(`/pods/${name}/portforward`)).length;
      const pf = k.spawn(['port-forward', '-n', ns, `pod/${name}`, `:${port}`, ':1']);
      try {
        await pf.waitFor(new RegExp(`Forwarding from 127\\.0\\.0\\.1:\\d+ -> 1\n`));
        const local = (remote: number): number => Number(new RegExp(`Forwarding from 127\\.0\\.0\\.1:(\\d+) -> ${remote}\n`).exec(pf.out())?.[1]);
        for (const path of ['/first', '/second']) {
          const res = await fetch(`http://127.0.0.1:${local(port)}${path}`);
          expect(await res.text()).toBe(`${ns}/${name} port ${port}: GET ${path}\n`);
        }
        // One upgrade reached the member: kubectl 1.31+ did not need its SPDY fallback.
        const sent = member.requestLog.entries((r) => r.path.endsWith(`/pods/${name}/portforward`));
        expect(sent.length).toBe(before + 1);
        expect(sent.at(-1)?.userAgent).toMatch(/^clusterpedia-synchro/);
        // Nothing listens on port 1 in the pod: kubectl shows the member's message and gives up on the pod.
        await expect(fetch(`http://127.0.0.1:${local(1)}/`)).rejects.toThrow();
        await new Promise<void>((resolve) => (pf.child.exitCode !== null ? resolve() : pf.child.on('exit', () => resolve())));
        expect(pf.err()).toMatch(/an error occurred forwarding \d+ -> 1: error forwarding port 1 to pod .*connection refused/);
        expect(pf.err()).toMatch(/lost connection to pod/);
      } finally {
        pf.child.kill('SIGKILL');
        k.dispose();
      }
    });
  }

  it("proxies to a member's pods, services and nodes: any method, path, query and body; the member's refusals as it sent them", async () => {
    const ns = target.metadata.namespace ?? '';
    const name = target.metadata.name ?? '';
    const port = ((target.spec as { containers: { ports?: { containerPort: number }[] }[] }).containers[0]?.ports?.[0]?.containerPort) as number;
    const at = `${base}${P}/clusters/${member.name}/api/v1`;
    const pod = await fetch(`${at}/namespaces/${ns}/pods/${name}:${port}/proxy/status/?verbose=1&x=a%20b`, { headers: { 'audit-id': 'audit-proxy' } });
    expect(pod.status).toBe(200);
    expect(pod.headers.get('x-sim-proxied')).toBe('true');
    expect(await pod.text()).toBe(`${ns}/${name} port ${port}: GET /status/?verbose=1&x=a%20b\n`);
    const sent = member.requestLog.entries((r) => r.path.includes(`/pods/${name}:${port}/proxy/`));
    expect(sent.at(-1)?.userAgent).toMatch(/^clusterpedia-synchro/);
    expect(sent.at(-1)?.auditId).toBe('audit-proxy');
    // The destination's redirect to its own path stays inside the proxy path.
    const moved = await fetch(`${at}/namespaces/${ns}/pods/${name}:${port}/proxy/redirect`, { redirect: 'manual' });
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe(`${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}:${port}/proxy/target`);
    // A page's links: the member's proxy put its root paths into its proxy path; here that path is under the cluster's.
    // (fetch takes gzip, so the page comes gzipped from the member and is rewritten and gzipped again.)
    const html = await (await fetch(`${at}/namespaces/${ns}/pods/${name}:${port}/proxy/page`)).text();
    const here = `${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}:${port}/proxy`;
    expect(html).toContain(`<a href="${here}/target">`);
    expect(html).toContain(`<script src="${here}/static/app.js">`);
    expect(html).toContain(`<img src='${here}/logo.png' alt="/not-a-link">`);
    expect(html).toContain(`<form action=${here}/login>`);
    for (const kept of ['<a href="relative/x">', '<a href="https://example.com/x">', 'var api = "/api/raw"; // <a href="/in-script">', '<!-- <a href="/commented"> -->']) expect(html).toContain(kept);
    // Through the service that selects the pod, with a body; HEAD has headers only.
    const labels = target.metadata.labels ?? {};
    const svc = member.store.list('services', ns).find((s) => Object.entries((s.spec as { selector?: Record<string, string> }).selector ?? { none: 'x' }).every(([k, v]) => labels[k] === v));
    expect(svc).toBeDefined();
    const svcName = svc?.metadata.name ?? '';
    const posted = await fetch(`${at}/namespaces/${ns}/services/${svcName}:http/proxy/api/items`, { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toMatch(new RegExp(`^${ns}/${svcName}-\\S+ port ${port}: POST /api/items \\(5 bytes\\)\n$`));
    const head = await fetch(`${at}/namespaces/${ns}/services/${svcName}:http/proxy/`, { method: 'HEAD' });
    expect({ status: head.status, body: await head.text(), length: Number(head.headers.get('content-length')) > 0 }).toEqual({ status: 200, body: '', length: true });
    // A node's kubelet, and kubectl get --raw through the cluster's path.
    const node = member.store.list('nodes')[0]?.metadata.name ?? '';
    const k = new Kubectl(base, kubectlPath());
    try {
      expect(await k.ok(['get', '--raw', `${P}/clusters/${member.name}/api/v1/nodes/${node}/proxy/healthz`])).toBe('ok');
      expect(JSON.parse(await k.ok(['get', '--raw', `${P}/clusters/${member.name}/api/v1/nodes/${node}/proxy/configz`]))).toMatchObject({ kubeletconfig: { nodeName: node } });
    } finally {
      k.dispose();
    }
    const missing = await fetch(`${at}/nodes/${node}/proxy/nope`);
    expect({ status: missing.status, body: await missing.text() }).toEqual({ status: 404, body: '404 page not found\n' });
    // A port nothing listens on: kube-apiserver's 503 from the member, passed on.
    const closed = await fetch(`${at}/namespaces/${ns}/pods/${name}:1/proxy/`);
    expect(closed.status).toBe(503);
    expect(await closed.json()).toMatchObject({ kind: 'Status', message: expect.stringMatching(/^error trying to reach service: dial tcp .*:1: connect: connection refused$/) });
    // Methods kube-apiserver does not proxy are 405, as there.
    const propfind = await fetch(`${at}/namespaces/${ns}/pods/${name}/proxy/`, { method: 'PROPFIND' });
    expect(propfind.status).toBe(405);
    // Counted by the verb of the method.
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/clusterpedia_apiserver_requests_total\{verb="create",resource="services\/proxy",code="200"\} 1\n/);
  });

  it('kubectl proxy in front of a cluster\'s path reaches a service of the member', async () => {
    const ns = target.metadata.namespace ?? '';
    const labels = target.metadata.labels ?? {};
    const svc = member.store.list('services', ns).find((s) => Object.entries((s.spec as { selector?: Record<string, string> }).selector ?? { none: 'x' }).every(([k, v]) => labels[k] === v));
    const k = new Kubectl(`${base}${P}/clusters/${member.name}`, kubectlPath());
    const p = k.spawn(['proxy', '--port=0', '--append-server-path']);
    try {
      await p.waitFor(/Starting to serve on 127\.0\.0\.1:\d+/);
      const local = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(p.out())?.[1];
      const res = await fetch(`http://127.0.0.1:${local}/api/v1/namespaces/${ns}/services/${svc?.metadata.name ?? ''}:http/proxy/dashboard/`);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/ GET \/dashboard\/\n$/);
    } finally {
      p.child.kill('SIGKILL');
      k.dispose();
    }
  });

  it("kubectl proxy in front of clusterpedia serves a member's page whose links and redirects lead back through it", async () => {
    const ns = target.metadata.namespace ?? '';
    const labels = target.metadata.labels ?? {};
    const svc = member.store.list('services', ns).find((s) => Object.entries((s.spec as { selector?: Record<string, string> }).selector ?? { none: 'x' }).every(([k, v]) => labels[k] === v));
    const k = new Kubectl(base, kubectlPath());
    const p = k.spawn(['proxy', '--port=0']);
    try {
      await p.waitFor(/Starting to serve on 127\.0\.0\.1:\d+/);
      const local = `http://127.0.0.1:${/Starting to serve on 127\.0\.0\.1:(\d+)/.exec(p.out())?.[1] ?? ''}`;
      const page = await (await fetch(`${local}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/services/${svc?.metadata.name ?? ''}:http/proxy/page`)).text();
      // The browser's next requests: the page's script, and the redirect followed.
      const script = /<script src="([^"]+)">/.exec(page)?.[1] ?? '';
      expect(script).toMatch(new RegExp(`^${P}/clusters/${member.name}/api/v1/namespaces/${ns}/services/[^/]+/proxy/static/app\\.js$`));
      expect(await (await fetch(`${local}${script}`)).text()).toMatch(/: GET \/static\/app\.js\n$/);
      const followed = await fetch(`${local}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/services/${svc?.metadata.name ?? ''}:http/proxy/redirect`);
      expect({ status: followed.status, text: await followed.text() }).toEqual({ status: 200, text: expect.stringMatching(/: GET \/target\n$/) });
    } finally {
      p.child.kill('SIGKILL');
      k.dispose();
    }
  });

  it('answers a list, get or watch asked with the forward label or header from the member, live', async () => {
    const ns = target.metadata.namespace ?? '';
    const name = target.metadata.name ?? '';
    const app = target.metadata.labels?.app ?? '';
    const k = new Kubectl(`${base}${P}/clusters/${member.name}`, kubectlPath());
    try {
      const lists = (): ReturnType<typeof member.requestLog.entries> => member.requestLog.entries((r) => r.path === `/api/v1/namespaces/${ns}/pods` && !r.watch);
      const before = lists().length;
      // kubectl's Table comes from the member itself: no CLUSTER column.
      const out = await k.ok(['get', 'pods', '-n', ns, '-l', `app=${app},search.clusterpedia.io/forward`]);
      expect(out.split('\n')[0]).toMatch(/^NAME\s+READY\s+STATUS/);
      expect(out).toContain(`${name} `);
      const sent = lists();
      expect(sent.length).toBe(before + 1);
      expect(sent.at(-1)?.userAgent).toMatch(/^clusterpedia-synchro/);
      // The forward requirement is taken out of the selector; the rest goes as asked.
      expect(new URLSearchParams(sent.at(-1)?.query ?? '').get('labelSelector')).toBe(`app=${app}`);
      // A get by header: the member's object as it is now, resourceVersion included.
      const got = await fetch(`${base}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}`, { headers: { 'x-clusterpedia-forward': 'true' } });
      expect(((await got.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe(member.store.get('pods', ns, name)?.metadata.resourceVersion);
      // A resource that is not synced (leases), allowed by --allow-forward-unsync-resource-request; without forwarding it is not served.
      member.store.create({ group: 'coordination.k8s.io', resource: 'leases' }, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'leader', namespace: ns }, spec: { holderIdentity: 'me' } });
      const leases = `${base}${P}/clusters/${member.name}/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
      const live = await fetch(`${leases}?labelSelector=search.clusterpedia.io%2Fforward`);
      expect(((await live.json()) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name)).toEqual(['leader']);
      expect((await fetch(leases)).status).toBe(404);
      // A watch, by label: the member's stream, with its own events.
      const w = k.spawn(['get', 'pods', '-n', ns, '-w', '--output-watch-events', '-l', 'search.clusterpedia.io/forward']);
      try {
        await w.waitFor(new RegExp(`ADDED\\s+${name}\\s`));
        const pod = member.store.get('pods', ns, name) as SimObject;
        member.store.update('pods', { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, touched: 'yes' } } });
        await w.waitFor(new RegExp(`MODIFIED\\s+${name}\\s`));
      } finally {
        w.child.kill('SIGKILL');
      }
      // Not a way around --allowed-proxy-subresources: other subresources are not forwarded by the header.
      const ephemeral = await fetch(`${base}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}/ephemeralcontainers`, { headers: { 'x-clusterpedia-forward': 'true' } });
      expect(ephemeral.status).toBe(404);
      // Only through one cluster's path, as Clusterpedia says.
      const fleet = await fetch(`${base}${P}/api/v1/pods?labelSelector=search.clusterpedia.io%2Fforward`);
      expect(fleet.status).toBe(400);
      expect(await fleet.json()).toMatchObject({ message: 'please specify the cluster name when using proxy model.' });
    } finally {
      k.dispose();
    }
  });

  for (const [label, binary] of [['dispatcher', kubectlPath()], ['kubectl 1.27', oldestKubectl()]] as const) {
    it(`kubectl (${label}) pointed at a cluster's proxy path works as against the member: reads, writes, exec`, async () => {
      const k = new Kubectl(`${base}${P}/clusters/${member.name}/proxy`, binary);
      const ns = target.metadata.namespace ?? '';
      const name = target.metadata.name ?? '';
      const cm = `via-proxy-${label.replace(/\W/g, '')}`;
      try {
        // The member's own discovery and Table: leases, not synced, are there; no CLUSTER column.
        member.store.create({ group: 'coordination.k8s.io', resource: 'leases' }, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: cm, namespace: ns }, spec: {} });
        expect(await k.ok(['get', 'leases', '-n', ns, '-o', 'name'])).toContain(`lease.coordination.k8s.io/${cm}\n`);
        expect((await k.ok(['get', 'pods', '-n', ns])).split('\n')[0]).toMatch(/^NAME\s+READY/);
        // Writes reach the member: a patch, and a create as kubectl sends it (protobuf from 1.32 on), every byte of it.
        await k.ok(['label', 'lease', cm, '-n', ns, `via=${cm}`]);
        const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
        const dir = mkdtempSync(join(tmpdir(), 'cp-proxy-create-'));
        try {
          writeFileSync(join(dir, 'blob'), bytes);
          await k.ok(['create', 'secret', 'generic', cm, '-n', ns, `--from-file=blob=${join(dir, 'blob')}`, '--from-literal=k=v']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
        const made = member.store.get('secrets', ns, cm) as (SimObject & { data: Record<string, string>; type: string }) | undefined;
        expect([Buffer.from(made?.data.blob ?? '', 'base64').equals(bytes), made?.data.k, made?.type]).toEqual([true, 'dg==', 'Opaque']);
        const create = member.requestLog.entries((r) => r.path === `/api/v1/namespaces/${ns}/secrets` && r.method === 'POST').at(-1);
        expect(create?.contentType).toBe(binary === kubectlPath() ? 'application/vnd.kubernetes.protobuf' : 'application/json');
        await k.ok(['delete', 'secret', cm, '-n', ns]);
        expect(member.store.get({ group: 'coordination.k8s.io', resource: 'leases' }, ns, cm)?.metadata.labels).toEqual({ via: cm });
        await k.ok(['delete', 'lease', cm, '-n', ns]);
        expect(member.store.get({ group: 'coordination.k8s.io', resource: 'leases' }, ns, cm)).toBeUndefined();
        expect(await k.run(['exec', '-n', ns, name, '--', 'echo', 'raw', 'proxy'])).toMatchObject({ code: 0, stdout: 'raw proxy\n' });
        const sent = member.requestLog.entries((r) => r.path === `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${cm}` && r.method === 'PATCH');
        expect(sent.at(-1)?.userAgent).toMatch(/^clusterpedia-synchro/);
      } finally {
        k.dispose();
      }
    });
  }

  it("sends the caller's own member credentials when it gives them in X-Clusterpedia-Proxy-* headers, and only those", async () => {
    const ns = target.metadata.namespace ?? '';
    const name = target.metadata.name ?? '';
    const log = `${base}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}/log?tailLines=1`;
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const ca = b64(member.caData ?? '');
    // The member's token and CA: the log comes back.
    const ok = await fetch(log, { headers: { 'x-clusterpedia-proxy-token': member.token ?? '', 'x-clusterpedia-proxy-ca': ca } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/ line 10\n$/);
    // A token the member does not know: its 401, so it was the caller's credential that went, not clusterpedia's.
    const wrong = await fetch(log, { headers: { 'x-clusterpedia-proxy-token': 'not-a-member-token', 'x-clusterpedia-proxy-ca': ca } });
    expect(wrong.status).toBe(401);
    // The forward and the proxy path take them too.
    const fwd = await fetch(`${base}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}`, { headers: { 'x-clusterpedia-forward': 'true', 'x-clusterpedia-proxy-token': 'nope' } });
    expect(fwd.status).toBe(401);
    const raw = await fetch(`${base}${P}/clusters/${member.name}/proxy/api/v1/namespaces/${ns}/pods/${name}`, { headers: { 'x-clusterpedia-proxy-token': member.token ?? '' } });
    expect(raw.status).toBe(200);
    // Unusable ones are Clusterpedia's 400, without quoting them.
    const bad = await fetch(log, { headers: { 'x-clusterpedia-proxy-ca': ca } });
    expect(bad.status).toBe(400);
    const message = ((await bad.json()) as { message: string }).message;
    expect(message).toBe(`the X-Clusterpedia-Proxy-* credentials for cluster ${member.name} are not usable: Cluster APIServer's Token or Cert is required`);
  });

  it('kubectl auth can-i says where a log can be read', async () => {
    const one = new Kubectl(`${base}${P}/clusters/${member.name}`, kubectlPath());
    const all = new Kubectl(`${base}${P}`, kubectlPath());
    try {
      expect(await one.run(['auth', 'can-i', 'get', 'pods', '--subresource=log'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^yes/) });
      expect(await all.run(['auth', 'can-i', 'get', 'pods', '--subresource=log'])).toMatchObject({ code: 1,
        stdout: "no - pods/log is forwarded to the member with get, through one cluster's path (kubectl --cluster <name>)\n" });
      expect(await one.run(['auth', 'can-i', 'get', 'pods', '--subresource=ephemeralcontainers'])).toMatchObject({ code: 1,
        stdout: 'no - of subresources, only status and scale are served and pods/log, pods/exec, pods/attach, pods/portforward, pods/proxy, nodes/proxy, services/proxy forwarded, with get (not get ephemeralcontainers)\n' });
      expect(await one.run(['auth', 'can-i', 'patch', 'services', '--subresource=proxy'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^yes/) });
      expect(await all.run(['auth', 'can-i', 'get', 'nodes', '--subresource=proxy'])).toMatchObject({ code: 1,
        stdout: "no - nodes/proxy is forwarded to the member with get, create, update, patch, delete, through one cluster's path (kubectl --cluster <name>)\n" });
      expect(await one.run(['auth', 'can-i', 'create', 'pods', '--subresource=portforward'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^yes/) });
      expect(await one.run(['auth', 'can-i', 'create', 'pods', '--subresource=exec'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^yes/) });
    } finally {
      one.dispose();
      all.dispose();
    }
  });

  it('needs a cluster, and forwards only what was allowed', async () => {
    const ns = target.metadata.namespace ?? '';
    const name = target.metadata.name ?? '';
    const fleet = await fetch(`${base}${P}/api/v1/namespaces/${ns}/pods/${name}/log`);
    expect(fleet.status).toBe(400);
    expect(await fleet.json()).toMatchObject({ kind: 'Status', message: 'please specify the cluster name when using proxy model.' });
    const ephemeral = await fetch(`${base}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}/ephemeralcontainers`);
    expect(ephemeral.status).toBe(404);
    expect(((await ephemeral.json()) as { message: string }).message).toMatch(/pods\/ephemeralcontainers is not served here/);
    // A log asked with an upgrade is answered as a log, whole, and the connection closes.
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(new URL(base).port), '127.0.0.1');
      let got = '';
      sock.on('data', (d: Buffer) => (got += d.toString())).on('close', () => resolve(got)).on('error', reject);
      sock.write(`GET ${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}/log?tailLines=2 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // (chunked: the two lines may come in two chunks)
    for (const n of [9, 10]) expect(raw).toContain(`${ns}/${name}/${container(target)} line ${n}\n`);
    // An exec that is not an upgrade: kube-apiserver's answer.
    const plain = await fetch(`${base}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}/exec?command=echo`);
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({ message: 'Upgrade request required' });
    const unknown = await fetch(`${base}${P}/clusters/nowhere/api/v1/namespaces/${ns}/pods/${name}/log`);
    expect(unknown.status).toBe(400);
    const post = await fetch(`${base}${P}/clusters/${member.name}/api/v1/namespaces/${ns}/pods/${name}/log`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    // Counted as requests of pods/log, by the code the client got.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/clusterpedia_apiserver_requests_total\{verb="get",resource="pods\/log",code="200"\} [1-9]/);
    expect(metrics).toMatch(/clusterpedia_apiserver_requests_total\{verb="get",resource="pods\/log",code="400"\} [1-9]/);
  });
});
