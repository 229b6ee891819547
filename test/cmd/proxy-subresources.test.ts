// --allowed-proxy-subresources as Clusterpedia reads it.
import { describe, expect, it } from 'vitest';
import { parseProxySubresources } from '../../src/cmd/apiserver.js';

describe('parseProxySubresources', () => {
  it("takes resource/subresource, bare subresources and Clusterpedia's portfowrd spelling, once each", () => {
    expect(parseProxySubresources('log, pods/exec,attach,pods/log')).toEqual(['pods/log', 'pods/exec', 'pods/attach']);
    expect(parseProxySubresources('portfowrd')).toEqual(['pods/portforward']);
    expect(parseProxySubresources('pods/portforward,,')).toEqual(['pods/portforward']);
    expect(parseProxySubresources('')).toEqual([]);
  });

  it('expands a bare proxy to the three resources that have one', () => {
    expect(parseProxySubresources('proxy,services/proxy')).toEqual(['pods/proxy', 'nodes/proxy', 'services/proxy']);
  });

  it('refuses what Clusterpedia does not know', () => {
    expect(() => parseProxySubresources('tail')).toThrow('unsupported subresources or invalid format "tail"');
    expect(() => parseProxySubresources('nodes/log')).toThrow('unsupported subresources or invalid format "nodes/log"');
    expect(() => parseProxySubresources('a/b/c')).toThrow('invalid format "a/b/c"');
  });
});
