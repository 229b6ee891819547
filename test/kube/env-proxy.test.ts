// The proxy a member is reached through from the environment, as Go's httpproxy decides it (x/net/http/httpproxy tests).
import { describe, expect, it } from 'vitest';
import { envProxyFor } from '../../src/kube/env-proxy.js';

const P = 'http://proxy.corp:3128';
const via = (server: string, env: NodeJS.ProcessEnv): string | undefined => envProxyFor(new URL(server), env);

describe('envProxyFor', () => {
  it('takes HTTPS_PROXY for https servers and HTTP_PROXY for http ones, upper case first; none set: direct', () => {
    expect(via('https://api.eks.example:443', { HTTPS_PROXY: P })).toBe(P);
    expect(via('https://api.eks.example', { https_proxy: P })).toBe(P);
    expect(via('https://api.eks.example', { HTTPS_PROXY: P, https_proxy: 'http://other:1' })).toBe(P);
    expect(via('https://api.eks.example', { HTTP_PROXY: P })).toBeUndefined();
    expect(via('http://api.example:8080', { HTTP_PROXY: P })).toBe(P);
    expect(via('https://api.eks.example', {})).toBeUndefined();
    expect(via('https://api.eks.example', { HTTPS_PROXY: '' })).toBeUndefined();
  });

  it('reads a proxy without a scheme as http://, and keeps socks5://', () => {
    expect(via('https://a.example', { HTTPS_PROXY: 'proxy.corp:3128' })).toBe(P);
    expect(via('https://a.example', { HTTPS_PROXY: 'socks5://127.0.0.1:1080' })).toBe('socks5://127.0.0.1:1080');
  });

  it('never proxies localhost or a loopback address', () => {
    for (const s of ['https://localhost:6443', 'https://127.0.0.1:6443', 'https://127.3.0.9', 'https://[::1]:6443']) expect(via(s, { HTTPS_PROXY: P }), s).toBeUndefined();
  });

  it('exempts by NO_PROXY: *, names with their subdomains, .names for subdomains only, IPs, CIDR ranges, ports', () => {
    const env = (no: string): NodeJS.ProcessEnv => ({ HTTPS_PROXY: P, NO_PROXY: no });
    expect(via('https://a.example', env('*'))).toBeUndefined();
    expect(via('https://corp.example', env('corp.example'))).toBeUndefined();
    expect(via('https://api.corp.example', env('corp.example'))).toBeUndefined();
    expect(via('https://notcorp.example', env('corp.example'))).toBe(P);
    expect(via('https://corp.example', env('.corp.example'))).toBe(P);
    expect(via('https://api.corp.example', env('.corp.example'))).toBeUndefined();
    expect(via('https://api.corp.example', env('*.corp.example'))).toBeUndefined();
    expect(via('https://10.96.0.1', env('10.0.0.0/8'))).toBeUndefined();
    expect(via('https://192.168.1.5:6443', env('10.0.0.0/8, 192.168.0.0/16'))).toBeUndefined();
    expect(via('https://172.20.0.1', env('10.0.0.0/8,192.168.0.0/16'))).toBe(P);
    expect(via('https://[fd00::1]:6443', env('fd00::/8'))).toBeUndefined();
    expect(via('https://10.0.0.7', env('10.0.0.7'))).toBeUndefined();
    expect(via('https://api.corp.example:6443', env('api.corp.example:6443'))).toBeUndefined();
    expect(via('https://api.corp.example:8443', env('api.corp.example:6443'))).toBe(P);
    expect(via('https://api.corp.example', env('api.corp.example:443'))).toBeUndefined();
    expect(via('https://API.Corp.Example', env(' api.corp.example '))).toBeUndefined();
    expect(via('https://a.example', { HTTPS_PROXY: P, no_proxy: 'a.example' })).toBeUndefined();
    // A malformed entry exempts nothing, and does not stop the others.
    expect(via('https://10.1.1.1', env('10.0.0.0/99,10.0.0.0/8'))).toBeUndefined();
    expect(via('https://10.1.1.1', env('not-an-ip/8'))).toBe(P);
  });
});
