// A member reached through its kubeconfig cluster's proxy-url, as client-go reaches it: an HTTP proxy by CONNECT
// (with the credentials of the URL), or SOCKS5. Before, the URL was ignored and the client went straight to the server.
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/cluster.js';

let sim: SimCluster;

/** What a proxy saw: the targets it tunnelled to, and the Proxy-Authorization headers. */
interface Seen {
  targets: string[];
  auth: (string | undefined)[];
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function tunnel(client: Socket, host: string, port: number, ready: () => void): void {
  const upstream = connect(port, host, () => {
    ready();
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
}

/** An HTTP proxy answering CONNECT, as squid or a corporate proxy does. */
async function httpProxy(seen: Seen): Promise<{ url: (auth?: string) => string; close: () => void }> {
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: IncomingMessage, client: Socket) => {
    seen.targets.push(req.url ?? '');
    seen.auth.push(req.headers['proxy-authorization']);
    const [host, port] = (req.url ?? '').split(':');
    // member.test: a name for the simulator that is not loopback to the client (the environment's proxy skips those).
    tunnel(client, host === 'member.test' ? '127.0.0.1' : host!, Number(port), () => client.write('HTTP/1.1 200 Connection Established\r\n\r\n'));
  });
  const port = await listen(server);
  return { url: (auth) => `http://${auth ? `${auth}@` : ''}127.0.0.1:${port}`, close: () => server.close() };
}

/** A SOCKS5 proxy without authentication (RFC 1928: CONNECT to an IPv4 address or a name), as `ssh -D` gives. */
async function socksProxy(seen: Seen): Promise<{ url: string; close: () => void }> {
  const server = createServer((client) => {
    client.once('data', (hello) => {
      if (hello[0] !== 5) return client.destroy();
      client.write(Buffer.from([5, 0]));
      client.once('data', (req) => {
        let host: string;
        let at: number;
        if (req[3] === 1) {
          host = [...req.subarray(4, 8)].join('.');
          at = 8;
        } else if (req[3] === 3) {
          host = req.subarray(5, 5 + req[4]!).toString();
          at = 5 + req[4]!;
        } else return client.destroy();
        const port = req.readUInt16BE(at);
        seen.targets.push(`${host}:${port}`);
        tunnel(client, host, port, () => client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0])));
      });
    });
    client.on('error', () => undefined);
  });
  const port = await listen(server);
  return { url: `socks5://127.0.0.1:${port}`, close: () => server.close() };
}

/** The simulator as a kubeconfig cluster: at its URL, or at another name (with the certificate's name given). */
function kubeConfig(proxyUrl: string | undefined, server = sim.url): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{
      name: 'm', server, caData: Buffer.from(sim.caData!).toString('base64'),
      ...(server === sim.url ? {} : { tlsServerName: '127.0.0.1' }), ...(proxyUrl ? { proxyUrl } : {}),
    }],
    users: [{ name: 'u', token: sim.token }],
    contexts: [{ name: 'm', cluster: 'm', user: 'u' }],
    currentContext: 'm',
  });
  return kc;
}

beforeAll(async () => {
  sim = await startSimulatedCluster({ tls: true, pods: 3 });
});

afterAll(async () => {
  await sim?.stop();
});

const target = (): string => `127.0.0.1:${sim.port}`;

describe('proxy-url', () => {
  it('http: lists and watches a TLS member through CONNECT, with the URL\'s credentials as Proxy-Authorization', async () => {
    const seen: Seen = { targets: [], auth: [] };
    const proxy = await httpProxy(seen);
    const c = await KubeClient.create(kubeConfig(proxy.url('ops:p%40ss')));
    try {
      const list = await c.json<{ items: unknown[] }>('/api/v1/pods');
      expect(list.items.length).toBeGreaterThan(0);
      const events = c.watch('/api/v1/pods', { timeoutSeconds: 1 });
      expect((await events.next()).value?.type).toBe('ADDED');
      await events.return(undefined);
      expect(seen.targets.length).toBeGreaterThan(0);
      expect(new Set(seen.targets)).toEqual(new Set([target()]));
      expect(seen.auth[0]).toBe(`Basic ${Buffer.from('ops:p@ss').toString('base64')}`);
    } finally {
      await c.close();
      proxy.close();
    }
  });

  it('socks5: lists a TLS member through the proxy', async () => {
    const seen: Seen = { targets: [], auth: [] };
    const proxy = await socksProxy(seen);
    const c = await KubeClient.create(kubeConfig(proxy.url));
    try {
      const list = await c.json<{ items: unknown[] }>('/api/v1/namespaces');
      expect(list.items.length).toBeGreaterThan(0);
      expect(seen.targets).toContain(target());
    } finally {
      await c.close();
      proxy.close();
    }
  });

  it('from the environment: HTTPS_PROXY for an https member unless NO_PROXY exempts it; the kubeconfig\'s proxy-url wins', async () => {
    const seen: Seen = { targets: [], auth: [] };
    const proxy = await httpProxy(seen);
    const kc = (proxyUrl?: string): KubeConfig => kubeConfig(proxyUrl, `https://member.test:${sim.port}`);
    const listed = async (k: KubeConfig, env: NodeJS.ProcessEnv): Promise<number> => {
      const c = await KubeClient.create(k, { env, requestTimeoutMs: 3_000 });
      try {
        return (await c.json<{ items: unknown[] }>('/api/v1/namespaces')).items.length;
      } finally {
        await c.close();
      }
    };
    try {
      expect(await listed(kc(), { HTTPS_PROXY: proxy.url() })).toBeGreaterThan(0);
      expect(seen.targets).toEqual([`member.test:${sim.port}`]);
      // Exempt: the client goes direct, where member.test does not resolve.
      await expect(listed(kc(), { HTTPS_PROXY: proxy.url(), NO_PROXY: 'localhost,.test' })).rejects.toThrow();
      expect(seen.targets.length).toBe(1);
      // HTTP_PROXY is for http members only.
      await expect(listed(kc(), { HTTP_PROXY: proxy.url() })).rejects.toThrow();
      expect(seen.targets.length).toBe(1);
      // A kubeconfig proxy-url wins over an exemption in the environment.
      expect(await listed(kc(proxy.url()), { NO_PROXY: '*' })).toBeGreaterThan(0);
      expect(seen.targets.length).toBe(2);
      await expect(KubeClient.create(kc(), { env: { HTTPS_PROXY: 'ftp://ops:s3cret@p:21' } })).rejects.toThrow(/^HTTPS_PROXY scheme ftp: is not supported/);
    } finally {
      proxy.close();
    }
  });

  it('refuses a scheme client-go does not take, or no URL at all, without quoting it (it may hold a password)', async () => {
    await expect(KubeClient.create(kubeConfig('ftp://ops:s3cret@proxy.example:21'))).rejects.toThrow('kubeconfig proxy-url scheme ftp: is not supported (http, https, socks5)');
    const e = await KubeClient.create(kubeConfig('not a url s3cret')).then(() => undefined, (x: unknown) => x as Error);
    expect(e?.message).toBe('kubeconfig proxy-url is not a URL');
  });
});
