// The proxy subresources as kube-apiserver answers them: `pods/<name[:port]>/proxy/<path>`, `services/<name[:port]>/proxy/<path>`
// and `nodes/<name[:port]>/proxy/<path>`, any method. Behind them the simulator plays the destination: a pod's declared
// port answers HTTP with one line naming the pod, port, method and path (and the body's length); a service goes to its
// first running endpoint pod; a node is a kubelet with `/healthz`, `/configz` and `/metrics`. What kube would fail to
// reach is its 503 "error trying to reach service", a service without endpoints its "no endpoints available". What
// kube's proxy transport does to its destination's answers is done too: a pod's `/redirect` answers 302 to `/target`,
// sent on as kube-apiserver rewrites it, `<proxy path>/target`; its `/page` is an HTML page whose root-path links come
// as kube rewrites them into the proxy path (gzip when the client takes it), other links as they were.
import { gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, statusBody } from './status.js';
import type { SimStore } from './store.js';
import type { SimObject } from './types.js';

/** Bytes of a proxied request body the simulator reads (and reports the length of). */
const MAX_BODY = 1024 * 1024;

interface ContainerPort {
  name?: string;
  containerPort?: number;
}

/** Every port the pod's containers declare. */
export function containerPorts(pod: SimObject): ContainerPort[] {
  const containers = ((pod.spec ?? {}) as { containers?: { ports?: ContainerPort[] }[] }).containers;
  return (Array.isArray(containers) ? containers : []).flatMap((c) => (Array.isArray(c?.ports) ? c.ports : []));
}

/** The pods of `namespace` (all when undefined), as stored. */
function* pods(store: SimStore, namespace?: string): Generator<SimObject> {
  for (const [, o] of store.table('pods')?.entries('', namespace === undefined ? '' : `${namespace}/`) ?? []) yield o;
}

const podIP = (pod: SimObject): string => String(((pod.status ?? {}) as { podIP?: unknown }).podIP ?? '10.0.0.1');
const running = (pod: SimObject): boolean => ((pod.status ?? {}) as { phase?: unknown }).phase === 'Running';

/** kube's `[scheme:]name[:port]` of a proxy path's name segment. */
function splitName(raw: string): { name: string; port: string } {
  const parts = raw.split(':');
  if (parts.length === 3 && (parts[0] === 'http' || parts[0] === 'https')) return { name: parts[1] ?? '', port: parts[2] ?? '' };
  return { name: parts[0] ?? '', port: parts[1] ?? '' };
}

/** kube's 503 for a destination that cannot be reached (its proxy error responder). */
function unreachable(res: ServerResponse, message: string): void {
  const body = JSON.stringify(statusBody(503, 'ServiceUnavailable', `error trying to reach service: ${message}`));
  res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function bodyLength(req: IncomingMessage): Promise<number> {
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw errors.badRequest('request body too large');
  }
  return size;
}

function answer(res: ServerResponse, req: IncomingMessage, code: number, type: string, text: string): void {
  res.writeHead(code, { 'content-type': type, 'content-length': Buffer.byteLength(text), 'x-sim-proxied': 'true' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** A page with links of every kind, as the member's proxy sends it: root paths under its proxy path `at`. */
function page(at: string): string {
  return '<!DOCTYPE html>\n<html><head><link rel="stylesheet" href="' + at + '/static/app.css">'
    + '<script src="' + at + '/static/app.js"></script><script>var api = "/api/raw"; // <a href="/in-script"></script></head>\n'
    + '<body><a href="' + at + '/target">target</a> <a href="relative/x">relative</a> <a href="https://example.com/x">elsewhere</a> '
    + "<img src='" + at + "/logo.png' alt=\"/not-a-link\"> <form action=" + at + '/login></form><!-- <a href="/commented"> --></body></html>\n';
}

/**
 * The pod's own little web server on `port`: one line about the request; `/redirect` sends the client to `/target`
 * and `/page` is an HTML page, each as the member's proxy (at `at`) sends them on.
 */
async function podAnswer(req: IncomingMessage, res: ServerResponse, pod: SimObject, port: number, path: string, search: string, at: string): Promise<void> {
  const n = await bodyLength(req);
  if (path === '/redirect') {
    res.writeHead(302, { location: `${at}/target`, 'content-length': 0 });
    res.end();
    return;
  }
  if (path === '/page') {
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? gzipSync(page(at)) : Buffer.from(page(at));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  const who = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
  answer(res, req, 200, 'text/plain; charset=utf-8', `${who} port ${port}: ${req.method ?? 'GET'} ${path || '/'}${search}${n > 0 ? ` (${n} bytes)` : ''}\n`);
}

/** The port a pod proxy goes to: the one named, else the first declared (kube's pod ResourceLocation). */
function podPort(pod: SimObject, port: string): number | undefined {
  if (port === '') return containerPorts(pod)[0]?.containerPort;
  return /^\d+$/.test(port) ? Number(port) : containerPorts(pod).find((p) => p.name === port)?.containerPort;
}

export async function serveProxy(store: SimStore, resource: string, namespace: string | undefined, rawName: string, path: string, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const { name, port } = splitName(rawName);
  // kube's proxy transport's PathPrepend: the request's path up to the destination's.
  const at = url.pathname.slice(0, url.pathname.length - path.length).replace(/\/$/, '');
  if (resource === 'pods') {
    const pod = store.get('pods', namespace, name);
    if (!pod) throw errors.notFound('pods', name);
    const p = podPort(pod, port);
    if (p === undefined) return unreachable(res, `dial tcp ${podIP(pod)}:${port || '80'}: connect: connection refused`);
    if (!running(pod) || !containerPorts(pod).some((c) => c.containerPort === p)) return unreachable(res, `dial tcp ${podIP(pod)}:${p}: connect: connection refused`);
    return podAnswer(req, res, pod, p, path, url.search, at);
  }
  if (resource === 'services') {
    const svc = store.get('services', namespace, name);
    if (!svc) throw errors.notFound('services', name);
    const spec = (svc.spec ?? {}) as { selector?: Record<string, string>; ports?: { name?: string; port?: number; targetPort?: number | string }[] };
    const ports = spec.ports ?? [];
    const sp = port === '' ? (ports.length === 1 ? ports[0] : undefined) : ports.find((p) => p.name === port || String(p.port) === port);
    if (!sp) throw errors.notFound('services', name);
    const selector = spec.selector;
    const pod = selector === undefined ? undefined : [...pods(store, namespace)].find((p) => running(p) && Object.entries(selector).every(([k, v]) => p.metadata.labels?.[k] === v));
    if (!pod) return unreachable(res, `no endpoints available for service "${name}"`);
    const target = typeof sp.targetPort === 'number' ? sp.targetPort : sp.targetPort === undefined ? sp.port : containerPorts(pod).find((c) => c.name === sp.targetPort)?.containerPort;
    if (target === undefined || !containerPorts(pod).some((c) => c.containerPort === target)) return unreachable(res, `dial tcp ${podIP(pod)}:${String(target ?? sp.targetPort)}: connect: connection refused`);
    return podAnswer(req, res, pod, target, path, url.search, at);
  }
  // nodes: the kubelet's own endpoints.
  const node = store.get('nodes', undefined, name);
  if (!node) throw errors.notFound('nodes', name);
  await bodyLength(req);
  switch (path) {
    case '/healthz':
      return answer(res, req, 200, 'text/plain; charset=utf-8', 'ok');
    case '/configz':
      return answer(res, req, 200, 'application/json', JSON.stringify({ kubeletconfig: { kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', staticPodPath: '/etc/kubernetes/manifests', maxPods: 110, nodeName: name } }));
    case '/metrics':
      return answer(res, req, 200, 'text/plain; version=0.0.4; charset=utf-8', `# HELP kubelet_running_pods Number of pods that have a running pod sandbox\n# TYPE kubelet_running_pods gauge\nkubelet_running_pods ${[...pods(store)].filter((p) => (p.spec as { nodeName?: string } | undefined)?.nodeName === name && running(p)).length}\n`);
    default:
      return answer(res, req, 404, 'text/plain; charset=utf-8', '404 page not found\n');
  }
}
