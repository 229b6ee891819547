// The proxy client-go takes from the environment for a server (Go's net/http ProxyFromEnvironment, x/net/http/httpproxy):
// HTTPS_PROXY for https servers, HTTP_PROXY for http ones, NO_PROXY to exempt some. undici's EnvHttpProxyAgent reads the
// same variables but not NO_PROXY's CIDR ranges (10.0.0.0/8, the usual way to exempt a cluster's service network), so a
// deployment set up for Clusterpedia (Go) would have sent its in-cluster calls through the proxy.
import { BlockList, isIP } from 'node:net';

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** The environment's proxy URL for `server`, or undefined when it goes direct. */
export function envProxyFor(server: URL, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = server.protocol === 'https:' ? env.HTTPS_PROXY || env.https_proxy : env.HTTP_PROXY || env.http_proxy;
  if (!value) return undefined;
  const host = server.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || isLoopback(host)) return undefined;
  const port = server.port || DEFAULT_PORT[server.protocol] || '';
  if (exempt(host, port, env.NO_PROXY || env.no_proxy || '')) return undefined;
  // Go takes a proxy without a scheme as http://.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
}

function isLoopback(host: string): boolean {
  const v = isIP(host);
  if (v === 4) return host.startsWith('127.');
  return v === 6 && (host === '::1' || host === '0:0:0:0:0:0:0:1');
}

/** NO_PROXY: `*`; or a comma list of IPs, CIDR ranges and names (`foo.com` with its subdomains, `.foo.com` only them), each with an optional port. */
function exempt(host: string, port: string, noProxy: string): boolean {
  const hostIp = isIP(host);
  for (const raw of noProxy.split(',')) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (hostIp !== 0 && inRange(host, hostIp, entry)) return true;
      continue;
    }
    let entryPort = '';
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
    if (m) {
      entry = m[1]!;
      entryPort = m[2]!;
    }
    entry = entry.replace(/^\[|\]$/g, '');
    if (entryPort && entryPort !== port) continue;
    if (isIP(entry)) {
      if (entry === host) return true;
      continue;
    }
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (entry.startsWith('.') ? host.endsWith(entry) : host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

function inRange(host: string, hostIp: number, cidr: string): boolean {
  const [net, bits] = cidr.split('/');
  const v = isIP(net ?? '');
  const prefix = Number(bits);
  if (v === 0 || v !== hostIp || !Number.isInteger(prefix) || prefix < 0 || prefix > (v === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  list.addSubnet(net!, prefix, v === 4 ? 'ipv4' : 'ipv6');
  return list.check(host, v === 4 ? 'ipv4' : 'ipv6');
}
