// Requests Node's HTTP parser rejects before any handler runs: answered with a Status like every other error.
import type { Duplex } from 'node:stream';
import { status as makeStatus, type Status } from '../../kube/status.js';

/** How long, and how much of the rest of a rejected request, is read after its answer before the socket is closed. */
export const LINGER_MS = 5_000;
export const LINGER_BYTES = 4 * 1024 * 1024;

/** Connections whose parser verdict is answered (or waits for a response ahead of it to finish). */
const answeredSockets = new WeakSet<Duplex>();

/** Reads and drops what the client still sends, so that closing does not reset the answer away; bounded. */
function linger(socket: Duplex): void {
  let bytes = 0;
  const close = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  socket.on('data', (d: Buffer) => {
    bytes += d.length;
    if (bytes > LINGER_BYTES) close();
  });
  // A client that closes its side ends the lingering sooner: the socket destroys itself once our answer is out.
  socket.once('close', () => clearTimeout(timer));
}

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
 *
 * Closing is a lingering close, as web servers do it. Node's parser repeats its verdict for every later chunk of
 * the same connection (a 1 MB request line arrives in many), and closing the socket while the client is still
 * sending makes the kernel answer its next segment with a reset, which throws away the Status the client had not
 * read yet (the fuzzer saw ~4 % of 1 MB request lines end with no answer). So the first verdict is answered, later
 * ones are ignored, and the rest of the request is read and dropped until the client closes, for at most
 * {@link LINGER_MS} or {@link LINGER_BYTES}.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const code = err.code ?? '';
  const parserVerdict = code.startsWith('HPE_') || code === 'ERR_HTTP_REQUEST_TIMEOUT';
  if (parserVerdict && answeredSockets.has(socket)) return;
  if (!parserVerdict || !socket.writable) {
    socket.destroy();
    return;
  }
  answeredSockets.add(socket);
  let answered = false;
  const answer = (): void => {
    if (answered) return;
    answered = true;
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(statusResponse(code));
    linger(socket);
  };
  const inflight = (socket as Duplex & { _httpMessage?: (NodeJS.EventEmitter & { writableFinished?: boolean }) | null })._httpMessage;
  if (inflight && !inflight.writableFinished) {
    inflight.once('finish', answer);
    inflight.once('close', answer);
  } else {
    answer();
  }
}
