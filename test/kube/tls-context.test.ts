// One SecureContext per member: every TLS connection a client makes to it (a watch each over HTTP/1.1, reconnects)
// shares the context built from the member's CA, instead of tls.connect parsing the CA into a new one each time.
import tls from 'node:tls';
import { afterEach, expect, it, vi } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { kubeConfigFromString } from '../../src/kube/kubeconfig.js';
import { kubeconfigFor, startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';

let sim: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await client?.close();
  await sim?.stop();
  client = undefined;
  sim = undefined;
});

it('every connection to an HTTP/1.1 member over TLS, watches and reconnects included, uses the one context', async () => {
  sim = await startSimulatedCluster({ pods: 3, tls: true });
  // undici makes each connection with tls.connect: the context each socket was made with.
  const connect = tls.connect.bind(tls) as (...args: unknown[]) => tls.TLSSocket;
  const contexts: unknown[] = [];
  vi.spyOn(tls, 'connect').mockImplementation(((...args: unknown[]) => {
    const socket = connect(...args);
    contexts.push((socket as unknown as { _tlsOptions?: { secureContext?: unknown } })._tlsOptions?.secureContext);
    return socket;
  }) as typeof tls.connect);
  client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)));
  const ac = new AbortController();
  // Four watches at once: over HTTP/1.1 each holds a connection of its own.
  const paths = ['/api/v1/pods', '/api/v1/namespaces', '/api/v1/services', '/api/v1/configmaps'];
  const watches = paths.map(async (p) => {
    for await (const ev of client!.watch(p, { resourceVersion: String(sim!.revision) }, ac.signal)) void ev;
  });
  for (let i = 0; i < 200 && sim.openWatches < paths.length; i++) await new Promise((r) => setTimeout(r, 10));
  expect(sim.openWatches).toBe(paths.length);
  await client.json('/version');
  // The member goes down and comes back: every connection is made again.
  ac.abort();
  await Promise.allSettled(watches);
  await sim.faults.down();
  await sim.faults.up();
  await client.json('/version');
  expect(client.protocol).toBe('http/1.1');
  // The four watches, /version, and /version again after the member came back.
  expect(contexts.length).toBeGreaterThanOrEqual(paths.length + 2);
  expect(contexts.every((c) => c !== undefined)).toBe(true);
  expect(new Set(contexts).size).toBe(1);
});
