// `kubectl port-forward` as kube-apiserver and the kubelet answer it: SPDY (portforward.k8s.io) on the upgraded
// connection, or the same SPDY tunnelled in WebSocket binary messages (`SPDY/3.1+portforward.k8s.io`, kubectl 1.31+).
// Each forwarded connection is a pair of streams sharing a `requestid` header: `error` (where the kubelet writes why it
// could not connect) and `data` (the connection's bytes). A port some container of the pod declares answers HTTP as a
// tiny web server (one line naming the pod, port and request); any other port is refused as the kubelet refuses a port
// nothing listens on.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { acceptSpdy, SpdySession, spdyOnSocket, type SpdyStream } from './spdy.js';
import { containerPorts } from './proxy.js';
import type { SimObject } from './types.js';
import { acceptWebSocket, isWebSocket, readWebSocket, WS_BINARY, wsFrame } from './websocket.js';

const SPDY_PROTOCOL = 'portforward.k8s.io';
const TUNNEL_PROTOCOL = `SPDY/3.1+${SPDY_PROTOCOL}`;
/** Bytes of one HTTP request (head and body) the pod's little server buffers before dropping the connection. */
const MAX_REQUEST = 64 * 1024;

export function servePortForward(pod: SimObject, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  const onStream = (s: SpdyStream): void => {
    const type = s.headers.get('streamtype');
    const id = s.headers.get('requestid');
    if (id === undefined || (type !== 'error' && type !== 'data')) return s.reset();
    const pair = pairs.get(id) ?? {};
    if (pair[type]) return s.reset();
    pair[type] = s;
    pairs.set(id, pair);
    if (pair.error && pair.data) {
      pairs.delete(id);
      forward(pod, pair.error, pair.data);
    }
  };
  if (isWebSocket(req)) {
    acceptWebSocket(req, socket, [TUNNEL_PROTOCOL]);
    const session = new SpdySession((b) => {
      if (!socket.destroyed) socket.write(wsFrame(WS_BINARY, b));
    }, onStream, () => socket.destroy());
    readWebSocket(socket, head, (_op, payload) => session.feed(payload));
    socket.on('close', () => session.close());
    return;
  }
  acceptSpdy(req, socket, [SPDY_PROTOCOL]);
  spdyOnSocket(socket, head, onStream);
}

/** One forwarded connection: the kubelet's dial of the port, then the pod's answer on the data stream. */
function forward(pod: SimObject, errorStream: SpdyStream, data: SpdyStream): void {
  const portText = data.headers.get('port') ?? '';
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  const uid = String(pod.metadata.uid ?? '');
  if (!(port > 0 && port < 65536)) {
    errorStream.end(`error forwarding port ${portText} to pod ${uid}, uid : invalid port "${portText}"`);
    data.end();
    return;
  }
  if (!containerPorts(pod).some((c) => c.containerPort === port)) {
    // The kubelet's words (containerd) when nothing listens on the port inside the pod's network namespace.
    const sandbox = uid.replace(/-/g, '');
    errorStream.end(`error forwarding port ${port} to pod ${sandbox}, uid : failed to execute portforward in network namespace "/var/run/netns/cni-${uid}": ` +
      `failed to connect to localhost:${port} inside namespace "${sandbox}", IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused ` +
      `IPv6 dial tcp6 [::1]:${port}: connect: connection refused `);
    data.end();
    return;
  }
  errorStream.end();
  const who = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
  let buf: Buffer = Buffer.alloc(0);
  data.onData = (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_REQUEST) data.reset();
        return;
      }
      const headLines = buf.toString('latin1', 0, end).split('\r\n');
      const [method = '', path = ''] = (headLines[0] ?? '').split(' ');
      const header = (name: string): string | undefined => headLines.slice(1).find((l) => l.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();
      const bodyLength = Number(header('content-length') ?? '0') || 0;
      if (end + 4 + bodyLength > MAX_REQUEST) return data.reset();
      if (buf.length < end + 4 + bodyLength) return;
      buf = buf.subarray(end + 4 + bodyLength);
      const body = `${who} port ${port}: ${method} ${path}\n`;
      data.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      if ((header('connection') ?? '').toLowerCase() === 'close') return data.end();
    }
  };
  // The client closed its side: the kubelet closes the connection to the port, and the port's side ends.
  data.onEnd = () => data.end();
  if (data.remoteEnded) data.end();
}
