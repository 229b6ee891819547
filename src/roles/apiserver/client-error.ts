// Requests Node's HTTP parser rejects before any handler runs: answered with a Status like every other error.
import type { Duplex } from 'node:stream';
import { status as makeStatus, type Status } from '../../kube/status.js';

/**
 * Node's default 'clientError' answer is a bare `400 Bad Request` (431 for headers past the limit, 408 when the
 * headers never finish), which kubectl and client-go show as an unparsable body. API.md §4: errors are always a
 * JSON Status. The connection is closed afterwards, as Node does: the parser cannot resynchronise.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  let st: Status;
  if (err.code === 'HPE_HEADER_OVERFLOW') st = makeStatus(431, '', 'request header fields too large');
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') st = makeStatus(408, 'Timeout', 'the request headers did not arrive in time');
  else st = makeStatus(400, 'BadRequest', 'malformed HTTP request');
  const body = JSON.stringify(st);
  const reason = st.code === 431 ? 'Request Header Fields Too Large' : st.code === 408 ? 'Request Timeout' : 'Bad Request';
  socket.end(`HTTP/1.1 ${st.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
