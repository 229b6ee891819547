// What a failed request to a member says: network errors keep their code and gain a hint where the code alone misleads.
import { describe, expect, it } from 'vitest';
import { networkError } from '../../src/kube/client-errors.js';

/** An error shaped as undici reports a failed connect. */
function connectError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('networkError', () => {
  it('names the open-files limit for EMFILE (what the synchro meets with many types per member) and the system limit for ENFILE', () => {
    const emfile = networkError(connectError('EMFILE', 'connect EMFILE 127.0.0.1:6443 - Local (undefined:undefined)'), 'GET', '/api/v1/pods');
    expect(emfile.message).toMatch(/^GET \/api\/v1\/pods: EMFILE connect EMFILE 127\.0\.0\.1:6443/);
    expect(emfile.message).toContain('open-files limit');
    expect(emfile.message).toContain('ulimit -n');
    expect(emfile.reason).toBe('NetworkError');
    expect(emfile.retryable).toBe(true);
    const enfile = networkError(connectError('ENFILE', 'connect ENFILE 127.0.0.1:6443'), 'GET', '/api/v1/pods');
    expect(enfile.message).toContain('fs.file-max');
    expect(enfile.message).not.toContain('ulimit');
  });

  it('leaves other network errors as they are, and tells TLS failures apart', () => {
    const refused = networkError(connectError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'), 'GET', '/version');
    expect(refused.message).toBe('GET /version: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:6443');
    expect(refused.reason).toBe('NetworkError');
    const tls = networkError(connectError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), 'GET', '/version');
    expect(tls.reason).toBe('TLSError');
  });

  it('tells a stream the server let go of in a graceful GOAWAY (safe to send again) from other HTTP/2 failures', () => {
    const goAway = (code: string, message: string): string => networkError(connectError(code, message), 'GET', '/api/v1/pods').reason;
    // undici 7 failing what was on the connection; the server refusing a stream sent as the GOAWAY crossed it; Node
    // refusing to open one after it.
    expect(goAway('UND_ERR_SOCKET', 'HTTP/2: "GOAWAY" frame received with code 0')).toBe('GoAway');
    expect(goAway('ERR_HTTP2_STREAM_ERROR', 'Stream closed with error code NGHTTP2_REFUSED_STREAM')).toBe('GoAway');
    expect(goAway('ERR_HTTP2_GOAWAY_SESSION', 'New streams cannot be created after receiving a GOAWAY')).toBe('GoAway');
    // A GOAWAY with an error code, or a stream reset for another reason, is a failure.
    expect(goAway('UND_ERR_SOCKET', 'HTTP/2: "GOAWAY" frame received with code 2')).toBe('NetworkError');
    expect(goAway('ERR_HTTP2_STREAM_ERROR', 'Stream closed with error code NGHTTP2_INTERNAL_ERROR')).toBe('NetworkError');
  });

  it('names a deadline that passed by its name, not by the DOMException code number', () => {
    const timeout = networkError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'GET', '/readyz');
    expect(timeout.message).toBe('GET /readyz: TimeoutError The operation was aborted due to timeout');
    expect(timeout.retryable).toBe(true);
  });
});
