// kube's RequestInfo for the paths a proxy subresource adds: the destination's path after `…/proxy`, as sent.
import { describe, expect, it } from 'vitest';
import { attributesFor, requestVerb } from '../../../src/roles/apiserver/authz-attributes.js';
import { parseRequestTarget } from '../../../src/roles/apiserver/request-info.js';
import { isLongRunning } from '../../../src/roles/apiserver/server.js';

const R = '/apis/clusterpedia.io/v1beta1/resources';

describe('proxy paths', () => {
  it("keep the destination's path as sent: trailing slash, encoded segments, nothing after /proxy", () => {
    expect(parseRequestTarget(`${R}/clusters/c1/api/v1/namespaces/ns/services/web:http/proxy/ui/`, false)).toMatchObject({
      kind: 'resource', cluster: 'c1', namespace: 'ns', resource: 'services', name: 'web:http', subresource: 'proxy', proxyPath: '/ui/',
    });
    expect(parseRequestTarget(`${R}/clusters/c1/api/v1/nodes/n1/proxy/a%2Fb/c`, false)).toMatchObject({ resource: 'nodes', name: 'n1', proxyPath: '/a%2Fb/c' });
    expect(parseRequestTarget(`${R}/clusters/c1/api/v1/namespaces/ns/pods/p/proxy`, false)).toMatchObject({ name: 'p', proxyPath: '' });
  });

  it('find the subresource where RequestInfo does, not at a namespace or name spelled "proxy"', () => {
    expect(parseRequestTarget(`${R}/clusters/c1/api/v1/namespaces/proxy/pods/proxy/proxy/proxy/x`, false)).toMatchObject({
      namespace: 'proxy', name: 'proxy', subresource: 'proxy', proxyPath: '/proxy/x',
    });
  });

  it('only a proxy subresource may have more path', () => {
    expect(parseRequestTarget(`${R}/clusters/c1/api/v1/namespaces/ns/pods/p/log/more`, false)).toEqual({ kind: 'notFound' });
  });
});

describe("a cluster's proxy path", () => {
  it('is the member path after /proxy, authorized as clusters/proxy named after the cluster with the verb of the method', () => {
    const t = parseRequestTarget(`${R}/clusters/c1/proxy/api/v1/namespaces/ns/configmaps`, false);
    expect(t).toEqual({ kind: 'memberProxy', cluster: 'c1', path: '/api/v1/namespaces/ns/configmaps' });
    expect(parseRequestTarget(`${R}/clusters/c1/proxy`, false)).toEqual({ kind: 'memberProxy', cluster: 'c1', path: '/' });
    expect(attributesFor(t, '', requestVerb('POST', t))).toEqual({ resource: { group: 'clusterpedia.io', version: 'v1beta1', resource: 'clusters', subresource: 'proxy', name: 'c1', verb: 'create' } });
    expect(requestVerb('GET', t)).toBe('get');
  });
});

describe('long-running requests', () => {
  it("are kube's: watches, a pod's log, exec, attach, port-forward, and the proxy subresources; not other reads", () => {
    const at = (p: string): boolean => isLongRunning(new URL(`http://x${R}/clusters/c1${p}`));
    for (const p of ['/api/v1/pods?watch=true', '/api/v1/namespaces/n/pods/p/log', '/api/v1/namespaces/n/pods/p/exec', '/api/v1/namespaces/n/services/s:http/proxy/events',
      '/api/v1/nodes/n1/proxy', '/proxy/api/v1/namespaces/n/pods/p/exec', '/proxy/api/v1/pods?watch=1']) expect(at(p), p).toBe(true);
    for (const p of ['/api/v1/pods', '/api/v1/namespaces/n/pods/p', '/proxy/api/v1/pods', '/api/v1/namespaces/proxy/pods']) expect(at(p), p).toBe(false);
  });
});

describe('OpenAPI paths', () => {
  it('are the index and group-version documents, rebuilt from their segments', () => {
    expect(parseRequestTarget(`${R}/openapi/v3`, false)).toEqual({ kind: 'openapi', path: '/openapi/v3' });
    expect(parseRequestTarget(`${R}/clusters/c1/openapi/v2`, false)).toEqual({ kind: 'openapi', cluster: 'c1', path: '/openapi/v2' });
    expect(parseRequestTarget(`${R}/clusters/c1/openapi/v3/api/v1`, false)).toEqual({ kind: 'openapi', cluster: 'c1', path: '/openapi/v3/api/v1' });
    expect(parseRequestTarget(`${R}/openapi/v3/apis/cert-manager.io/v1/`, false)).toEqual({ kind: 'openapi', path: '/openapi/v3/apis/cert-manager.io/v1' });
  });

  it('never step out of /openapi on the member, however the dots and slashes are written', () => {
    for (const p of [
      '/clusters/c1/openapi/v3/x%2F..%2F..%2F..%2Fapi%2Fv1%2Fsecrets', '/clusters/c1/openapi/v3/api/..', '/clusters/c1/openapi/v3/apis/a..b/v1',
      '/openapi/v3/apis/%2E%2E/%2E%2E', '/openapi/v3/api/v1/extra', '/openapi/v2/x', '/clusters/c1/openapi/v3/apis/Core/v1', '/openapi/v4',
    ]) {
      expect(parseRequestTarget(`${R}${p}`, false).kind, p).not.toBe('openapi');
    }
  });
});
