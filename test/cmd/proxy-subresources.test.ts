// --allowed-proxy-subresources as Clusterpedia reads it, and what this build forwards.
import { describe, expect, it } from 'vitest';
import { parseProxySubresources } from '../../src/cmd/apiserver.js';

describe('parseProxySubresources', () => {
  it("takes resource/subresource, bare subresources and Clusterpedia's portfowrd spelling, once each", () => {
    expect(parseProxySubresources('log, pods/exec,attach,pods/log')).toEqual(['pods/log', 'pods/exec', 'pods/attach']);
    expect(parseProxySubresources('portfowrd')).toEqual(['pods/portforward']);
    expect(parseProxySubresources('pods/portforward,,')).toEqual(['pods/portforward']);
    expect(parseProxySubresources('')).toEqual([]);
  });

  it('refuses what Clusterpedia does not know, and by name what it knows but this build does not forward', () => {
    expect(() => parseProxySubresources('tail')).toThrow('unsupported subresources or invalid format "tail"');
    expect(() => parseProxySubresources('nodes/log')).toThrow('unsupported subresources or invalid format "nodes/log"');
    expect(() => parseProxySubresources('a/b/c')).toThrow('invalid format "a/b/c"');
    expect(() => parseProxySubresources('services/proxy')).toThrow('services/proxy is not forwarded by this build (only pods/log, pods/exec, pods/attach, pods/portforward)');
  });
});
