// `kubectl exec` and `kubectl attach` as kube-apiserver and the kubelet answer them over WebSocket (the v5/v4 channel protocols kubectl
// 1.30+ speaks): the upgrade handshake, binary messages whose first byte is the stream (0 stdin, 1 stdout, 2 stderr,
// 3 the final Status; v5's 255 closes a stream), and a few commands a test can rely on — `echo`, `hostname`, `cat`
// (stdin back to stdout until stdin closes), `exit N`. Anything else is "executable file not found", as runc says it.
// An attach joins the container's process: a line every 100 ms, stdin echoed.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { containerFor } from './logs.js';
import { errors, isStatusError, statusBody } from './status.js';
import type { SimObject } from './types.js';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
/** Frames larger than this are refused (a test tool, not a file transfer). */
const MAX_FRAME = 1024 * 1024;

/** Writes a plain HTTP answer on an upgrade socket and closes it. */
export function answerOnSocket(socket: Duplex, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  const reason = code === 400 ? 'Bad Request' : code === 401 ? 'Unauthorized' : code === 404 ? 'Not Found' : code === 403 ? 'Forbidden' : 'Error';
  socket.end(`HTTP/1.1 ${code} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
}

/** The error of a thrown simulator Status, as an answer on the socket. */
export function failOnSocket(socket: Duplex, e: unknown): void {
  if (isStatusError(e)) answerOnSocket(socket, e.status.code, e.status);
  else answerOnSocket(socket, 500, statusBody(500, 'InternalError', String(e)));
}

function frame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, n]) : n < 65536 ? Buffer.from([0x80 | opcode, 126, n >> 8, n & 0xff]) : (() => {
    const h = Buffer.alloc(10);
    h[0] = 0x80 | opcode;
    h[1] = 127;
    h.writeBigUInt64BE(BigInt(n), 2);
    return h;
  })();
  return Buffer.concat([head, payload]);
}

/** Client frames (masked), as they arrive; calls `onMessage(opcode, payload)` per complete frame. */
function frameReader(onMessage: (opcode: number, payload: Buffer) => void, onBad: () => void): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const opcode = (buf[0] as number) & 0x0f;
      const masked = ((buf[1] as number) & 0x80) !== 0;
      let len = (buf[1] as number) & 0x7f;
      let off = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        off = 10;
      }
      if (len > MAX_FRAME || !masked) return onBad();
      if (buf.length < off + 4 + len) return;
      const mask = buf.subarray(off, off + 4);
      const payload = Buffer.from(buf.subarray(off + 4, off + 4 + len));
      for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
      buf = buf.subarray(off + 4 + len);
      onMessage(opcode, payload);
    }
  };
}

/** Answers an exec upgrade on `socket`: the handshake, the command's streams and its Status, then the close. */
export function serveExec(pod: SimObject, query: URLSearchParams, req: IncomingMessage, socket: Duplex, head: Buffer, mode: 'exec' | 'attach' = 'exec'): void {
  // The pod and container first, as kube checks them before the stream protocol: a client falling back from WebSocket
  // to SPDY sees the same refusal.
  const container = containerFor(pod, query, false);
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
    throw errors.badRequest('unable to upgrade connection: the simulator serves exec over WebSocket (v5.channel.k8s.io) only, not SPDY');
  }
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const protocol = PROTOCOLS.find((p) => offered.includes(p));
  if (!protocol) throw errors.badRequest(`unable to upgrade: no supported stream protocol offered (${offered.join(', ')})`);
  const key = String(req.headers['sec-websocket-key'] ?? '');
  const accept = createHash('sha1').update(key + WS_GUID).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`);
  const command = query.getAll('command');
  const send = (stream: number, data: string | Buffer): void => {
    if (!socket.destroyed) socket.write(frame(2, Buffer.concat([Buffer.from([stream]), Buffer.from(data)])));
  };
  let done = false;
  const finish = (exitCode: number, message?: string): void => {
    if (done) return;
    done = true;
    const status = exitCode === 0 ? { metadata: {}, status: 'Success' } : {
      metadata: {}, status: 'Failure', reason: 'NonZeroExitCode',
      message: message ?? `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
      details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
    };
    send(3, JSON.stringify(status));
    if (!socket.destroyed) socket.end(frame(8, Buffer.from([0x03, 0xe8])));
  };
  const [bin, ...args] = mode === 'attach' ? ['(attach)'] : command;
  let onStdin: ((data: Buffer) => void) | undefined;
  let onStdinClosed: (() => void) | undefined;
  const read = frameReader((opcode, payload) => {
    if (opcode === 8) return void socket.end(frame(8, Buffer.from([0x03, 0xe8])));
    if (opcode === 9) return void socket.write(frame(10, payload));
    if (opcode !== 2 && opcode !== 1) return;
    const stream = payload[0];
    if (stream === 0) onStdin?.(payload.subarray(1));
    else if (stream === 255 && payload[1] === 0) onStdinClosed?.();
  }, () => socket.destroy());
  socket.on('data', read);
  socket.on('error', () => undefined);
  if (head.length > 0) read(head);
  switch (bin) {
    case 'echo':
      send(1, `${args.join(' ')}\n`);
      return finish(0);
    case 'hostname':
      send(1, `${pod.metadata.name ?? ''}\n`);
      return finish(0);
    case 'exit': {
      const code = Number(args[0] ?? '0');
      return finish(Number.isInteger(code) && code >= 0 && code < 256 ? code : 2);
    }
    case 'cat':
      onStdin = (data) => send(1, data);
      onStdinClosed = () => finish(0);
      return;
    case '(attach)': {
      // The container's running process: a line every 100 ms (bounded), whatever comes on stdin echoed back.
      const ns = pod.metadata.namespace ?? '';
      let n = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || n >= 600) {
          clearInterval(timer);
          finish(0);
          return;
        }
        send(1, `${ns}/${pod.metadata.name ?? ''}/${container} attached line ${++n}\n`);
      }, 100);
      socket.on('close', () => clearInterval(timer));
      onStdin = (data) => send(1, data);
      return;
    }
    default:
      send(2, `OCI runtime exec failed: exec failed: unable to start container process: exec: "${bin ?? ''}": executable file not found in $PATH: unknown\r\n`);
      return finish(127, `command terminated with non-zero exit code: error executing command [${command.join(' ')}] in container ${container}, exit code 127`);
  }
}
