// Requests Node's HTTP parser rejects before any handler runs: answered with a Status like every other error.
import type { Duplex } from 'node:stream';
import { status as makeStatus, type Status } from '../../kube/status.js';

function statusResponse(code: string): string {
  let st: Status;
  if (code === 'HPE_HEADER_OVERFLOW') st = makeStatus(431, '', 'request header fields too large');
  else if (code === 'ERR_HTTP_REQUEST_TIMEOUT') st = makeStatus(408, 'Timeout', 'the request headers did not arrive in time');
  else st = makeStatus(400, 'BadRequest', 'malformed HTTP request');
  const body = JSON.stringify(st);
  const reason = st.code === 431 ? 'Request Header Fields Too Large' : st.code === 408 ? 'Request Timeout' : 'Bad Request';
  return `HTTP/1.1 ${st.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * Node's default 'clientError' answer is a bare `400 Bad Request` (431 for headers past the limit, 408 when the
 * headers never finish), which kubectl and client-go show as an unparsable body. API.md §4: errors are always a
 * JSON Status. Only the parser's verdicts are answered: any other socket error (a TLS one surfacing after the
 * handshake, a reset) just closes the connection, so a client such as Go's retries its request elsewhere. An answer
 * never cuts into a response already being written on the connection (a pipelined request broke the parser): it
 * follows it. The connection is closed afterwards, as Node does: the parser cannot resynchronise.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const code = err.code ?? '';
  if (!(code.startsWith('HPE_') || code === 'ERR_HTTP_REQUEST_TIMEOUT') || !socket.writable) {
    socket.destroy();
    return;
  }
  let answered = false;
  const answer = (): void => {
    if (answered) return;
    answered = true;
    if (socket.writable) socket.end(statusResponse(code));
    else socket.destroy();
  };
  const inflight = (socket as Duplex & { _httpMessage?: (NodeJS.EventEmitter & { writableFinished?: boolean }) | null })._httpMessage;
  if (inflight && !inflight.writableFinished) {
    inflight.once('finish', answer);
    inflight.once('close', answer);
  } else {
    answer();
  }
}
