// An HTTPS reverse proxy that serves a simulated member under a path prefix, as Rancher serves its clusters under
// /k8s/clusters/<id>: the prefix is stripped and the rest forwarded, bodies streamed both ways (watches included).
import { createServer, request, Agent, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SimCertificates, SimCluster } from '../../src/sim/index.js';

export interface PrefixProxy {
  /** The member's URL through the proxy, the prefix included. */
  url: string;
  /** Every request path the proxy received, as it received it. */
  paths: string[];
  close(): Promise<void>;
}

export async function startPrefixProxy(member: SimCluster, prefix: string, certs: Pick<SimCertificates, 'serverCert' | 'serverKey'>): Promise<PrefixProxy> {
  const paths: string[] = [];
  const target = new URL(member.url);
  const agent = new Agent({ keepAlive: true, ...(member.caData ? { ca: member.caData } : {}) });
  const server: Server = createServer({ cert: certs.serverCert, key: certs.serverKey }, (req, res) => {
    const url = req.url ?? '/';
    paths.push(url.split('?')[0]!);
    if (url !== prefix && !url.startsWith(`${prefix}/`) && !url.startsWith(`${prefix}?`)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      return;
    }
    const headers = { ...req.headers, host: target.host };
    const upstream = request({ agent, host: target.hostname, port: target.port, method: req.method, path: url.slice(prefix.length) || '/', headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}${prefix}`,
    paths,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
