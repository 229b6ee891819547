// `kubectl exec` and `kubectl attach` as kube-apiserver and the kubelet answer them, over either transport kubectl
// speaks: WebSocket (the v5/v4 channel protocols of kubectl 1.30+: binary messages whose first byte is the stream — 0
// stdin, 1 stdout, 2 stderr, 3 the final Status; v5's 255 closes a stream) and SPDY (v4.channel.k8s.io, kubectl before
// 1.30 and its fallback since: one SPDY stream per kind, named by its `streamtype` header, the Status on the `error`
// stream). A few commands a test can rely on — `echo`, `hostname`, `cat` (stdin back to stdout until stdin closes),
// `exit N`, and `tar` and `test` on the container's files for `kubectl cp`; anything else is "executable file not
// found", as runc says it. An attach joins the container's process: a line every 100 ms, stdin echoed.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { containerFor } from './logs.js';
import { acceptSpdy, spdyOnSocket, type SpdyStream } from './spdy.js';
import { tarOf, untar } from './tar.js';
import type { SimObject } from './types.js';
import { acceptWebSocket, isWebSocket, readWebSocket, WS_BINARY, WS_CLOSE, WS_NORMAL_CLOSE, wsFrame } from './websocket.js';

const WS_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
const SPDY_PROTOCOLS = ['v4.channel.k8s.io'];
/** How long the kubelet waits for the client to open every stream it asked for (its streamCreationTimeout). */
const STREAM_CREATION_MS = 30_000;
/** After the Status, how long a SPDY client gets to close the connection itself. */
const CLOSE_GRACE_MS = 10_000;
/** With a tty, how long the runtime waits for the client's terminal size before it starts the process anyway. */
const FIRST_SIZE_MS = 200;
/**
 * How long an exec'd process takes to start, as a container runtime takes (runc forks and joins the container's
 * namespaces: tens of milliseconds). A process that wrote at once, within the upgrade's round trip, would race kubectl:
 * its WebSocket client drops a message for a stream it has not set up yet ("Unknown stream id 1, discarding message"),
 * and `kubectl exec … -- hostname` printed nothing now and then, against a real kubelet, whose output never comes
 * that soon.
 */
const PROCESS_START_MS = 50;

/** What a process sees of its session, whichever the transport. */
interface ProcessIO {
  out(stream: 1 | 2, data: string | Buffer): void;
  /** Sends the final Status and ends the session's streams. */
  finish(status: object): void;
  onStdin(handler: (data: Buffer) => void, onEnd?: () => void): void;
  onClose(handler: () => void): void;
}

type Mode = 'exec' | 'attach';

/** An exec's boolean option, true as kube reads it (`true` or `1`). */
const flag = (query: URLSearchParams, key: string): boolean => ['true', '1'].includes(query.get(key) ?? '');

/** Answers an exec or attach upgrade on `socket`: the handshake, the command's streams and its Status. */
export function serveExec(pod: SimObject, query: URLSearchParams, req: IncomingMessage, socket: Duplex, head: Buffer, mode: Mode = 'exec'): void {
  // The pod and container first, as kube checks them before the stream protocol.
  const container = containerFor(pod, query, false);
  const tty = flag(query, 'tty');
  const input = new Input(tty, flag(query, 'stdin'));
  const start = (io: ProcessIO): void => input.whenSized(() => {
    const go = (): void => run(pod, query, container, mode, tty ? terminal(io) : io);
    if (mode === 'exec') setTimeout(go, PROCESS_START_MS).unref();
    else go();
  });
  if (isWebSocket(req)) {
    acceptWebSocket(req, socket, WS_PROTOCOLS);
    start(webSocketIO(socket, head, input));
    return;
  }
  acceptSpdy(req, socket, SPDY_PROTOCOLS);
  spdyIO(socket, head, query, input, start);
}

/**
 * What the client sends the process. Stdin waits, as a pipe holds it, until the process reads it. With a tty the
 * runtime gives the terminal the client's size before it starts the process, so kubectl's first resize message
 * (sent as soon as its streams are up) comes before any output, and a short command cannot end the session while
 * kubectl is still writing that size; without one, the process starts after FIRST_SIZE_MS anyway.
 */
class Input {
  private readonly pending: Buffer[] = [];
  private ended: boolean;
  private reader?: { data: (data: Buffer) => void; end: () => void };
  private sized: boolean;
  private whenSizedThen?: () => void;

  /** Without stdin the process's stdin is at its end from the start. */
  constructor(tty: boolean, stdin: boolean) {
    this.sized = !tty;
    this.ended = !stdin;
  }

  data(data: Buffer): void {
    if (this.ended) return;
    if (this.reader) this.reader.data(data);
    else this.pending.push(data);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.reader?.end();
  }

  read(data: (data: Buffer) => void, end: () => void = () => undefined): void {
    this.reader = { data, end };
    for (const chunk of this.pending.splice(0)) data(chunk);
    if (this.ended) end();
  }

  resized(): void {
    if (this.sized) return;
    this.sized = true;
    this.whenSizedThen?.();
  }

  whenSized(go: () => void): void {
    if (this.sized) return go();
    this.whenSizedThen = go;
    setTimeout(() => this.resized(), FIRST_SIZE_MS).unref();
  }
}

/** A tty's output processing (ONLCR): every newline the process writes reaches the client as CR LF. */
function terminal(io: ProcessIO): ProcessIO {
  return { ...io, out: (stream, data) => io.out(stream, Buffer.from(Buffer.from(data).toString('latin1').replace(/\n/g, '\r\n'), 'latin1')) };
}

function webSocketIO(socket: Duplex, head: Buffer, input: Input): ProcessIO {
  const send = (stream: number, data: string | Buffer): void => {
    if (!socket.destroyed) socket.write(wsFrame(WS_BINARY, Buffer.concat([Buffer.from([stream]), Buffer.from(data)])));
  };
  readWebSocket(socket, head, (opcode, payload) => {
    const stream = payload[0];
    if (stream === 0) input.data(payload.subarray(1));
    else if (stream === 4) input.resized();
    else if (stream === 255 && payload[1] === 0) input.end();
  });
  return {
    out: send,
    finish(status) {
      send(3, JSON.stringify(status));
      if (!socket.destroyed) socket.end(wsFrame(WS_CLOSE, WS_NORMAL_CLOSE));
    },
    onStdin: (handler, onEnd) => input.read(handler, onEnd),
    onClose: (handler) => void socket.on('close', handler),
  };
}

/**
 * The kubelet's SPDY side: waits for the streams the query asked for (error always; stdin, stdout, stderr as asked;
 * resize with a tty, where stderr is merged), then runs. The Status goes on the error stream, every stream is
 * half-closed and GOAWAY sent; the client closes the connection (it may still be reading the last frames).
 */
function spdyIO(socket: Duplex, head: Buffer, query: URLSearchParams, input: Input, start: (io: ProcessIO) => void): void {
  const yes = (k: string): boolean => flag(query, k);
  const tty = yes('tty');
  const wanted = ['error', ...(yes('stdin') ? ['stdin'] : []), ...(yes('stdout') ? ['stdout'] : []), ...(yes('stderr') && !tty ? ['stderr'] : []), ...(tty ? ['resize'] : [])];
  const streams = new Map<string, SpdyStream>();
  const timer = setTimeout(() => socket.destroy(), STREAM_CREATION_MS);
  let started = false;
  const session = spdyOnSocket(socket, head, (s) => {
    const type = s.headers.get('streamtype') ?? '';
    if (started || !wanted.includes(type) || streams.has(type)) return s.reset();
    streams.set(type, s);
    if (type === 'stdin') {
      s.onData = (data) => input.data(data);
      s.onEnd = () => input.end();
    } else if (type === 'resize') {
      s.onData = () => input.resized();
      s.onEnd = () => input.resized();
    }
    if (streams.size < wanted.length) return;
    started = true;
    clearTimeout(timer);
    start({
      out: (stream, data) => streams.get(stream === 1 ? 'stdout' : 'stderr')?.write(data),
      finish(status) {
        streams.get('error')?.write(JSON.stringify(status));
        for (const s of streams.values()) s.end();
        session.goAway();
        setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
      },
      onStdin: (handler, onEnd) => input.read(handler, onEnd),
      onClose: (handler) => void socket.on('close', handler),
    });
  });
  socket.on('close', () => clearTimeout(timer));
}

function run(pod: SimObject, query: URLSearchParams, container: string, mode: Mode, io: ProcessIO): void {
  const command = query.getAll('command');
  let done = false;
  const finish = (exitCode: number, message?: string): void => {
    if (done) return;
    done = true;
    io.finish(exitCode === 0 ? { metadata: {}, status: 'Success' } : {
      metadata: {}, status: 'Failure', reason: 'NonZeroExitCode',
      message: message ?? `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
      details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
    });
  };
  const [bin, ...args] = mode === 'attach' ? ['(attach)'] : command;
  switch (bin) {
    case 'echo':
      io.out(1, `${args.join(' ')}\n`);
      return finish(0);
    case 'hostname':
      io.out(1, `${pod.metadata.name ?? ''}\n`);
      return finish(0);
    case 'exit': {
      const code = Number(args[0] ?? '0');
      return finish(Number.isInteger(code) && code >= 0 && code < 256 ? code : 2);
    }
    case 'cat':
      io.onStdin((data) => io.out(1, data), () => finish(0));
      return;
    case 'test': {
      // test -d|-f|-e PATH, on the container's files.
      const fs = filesOf(pod, container);
      const p = normalize(args[1] ?? '');
      const found = args[0] === '-d' ? isDir(fs, p) : args[0] === '-f' ? fs.has(p) : args[0] === '-e' ? fs.has(p) || isDir(fs, p) : false;
      return finish(found ? 0 : 1);
    }
    case 'tar':
      return tar(args, filesOf(pod, container), io, finish);
    case '(attach)': {
      // The container's running process: a line every 100 ms (bounded), whatever comes on stdin echoed back.
      const ns = pod.metadata.namespace ?? '';
      let n = 0;
      let closed = false;
      const timer = setInterval(() => {
        if (closed || n >= 600) {
          clearInterval(timer);
          finish(0);
          return;
        }
        io.out(1, `${ns}/${pod.metadata.name ?? ''}/${container} attached line ${++n}\n`);
      }, 100);
      io.onClose(() => {
        closed = true;
        clearInterval(timer);
      });
      io.onStdin((data) => io.out(1, data));
      return;
    }
    default:
      io.out(2, `OCI runtime exec failed: exec failed: unable to start container process: exec: "${bin ?? ''}": executable file not found in $PATH: unknown\r\n`);
      return finish(127, `command terminated with non-zero exit code: error executing command [${command.join(' ')}] in container ${container}, exit code 127`);
  }
}

// A container's files, for `kubectl cp` (tar) and `test`: /etc/hostname and /etc/motd to begin with, then whatever is
// copied in, kept in memory for as long as the simulator runs (at most FS_BYTES a container).
const FS_BYTES = 8 * 1024 * 1024;
const filesystems = new Map<string, Map<string, Buffer>>();

function filesOf(pod: SimObject, container: string): Map<string, Buffer> {
  const key = `${pod.metadata.uid ?? ''}/${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}/${container}`;
  let fs = filesystems.get(key);
  if (!fs) {
    fs = new Map([
      ['/etc/hostname', Buffer.from(`${pod.metadata.name ?? ''}\n`)],
      ['/etc/motd', Buffer.from(`simulated container ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}/${container}\n`)],
    ]);
    filesystems.set(key, fs);
  }
  return fs;
}

/** An absolute path without `.`, `..`, repeated or trailing slashes (the working directory is /). */
function normalize(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

const isDir = (fs: Map<string, Buffer>, p: string): boolean => p === '/' || [...fs.keys()].some((f) => f.startsWith(`${p}/`));

/**
 * GNU tar's create (`tar cf - PATH…`) and extract (`tar xmf - [-C DIR]`, with any of kubectl's long options) on the
 * container's files, with its messages: leading slashes removed from member names, a path that is not there, stdin that
 * is no archive.
 */
function tar(args: string[], fs: Map<string, Buffer>, io: ProcessIO, finish: (code: number, message?: string) => void): void {
  let mode: 'c' | 'x' | undefined;
  let dir = '/';
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-C' || a === '--directory') dir = normalize(args[++i] ?? '/');
    else if (a === '--create') mode = 'c';
    else if (a === '--extract' || a === '--get') mode = 'x';
    else if (a.startsWith('--')) continue;
    else if (a === '-') continue;
    else if ((i === 0 || a.startsWith('-')) && /^-?[a-zA-Z]+$/.test(a)) {
      if (a.includes('c')) mode = 'c';
      if (a.includes('x')) mode = 'x';
    } else paths.push(a);
  }
  const failed = (text: string): void => {
    io.out(2, `${text}tar: Exiting with failure status due to previous errors\n`);
    finish(2);
  };
  if (mode === 'c') {
    if (paths.some((p) => p.startsWith('/'))) io.out(2, "tar: Removing leading `/' from member names\n");
    const entries: Array<[string, Buffer | null]> = [];
    let errors = '';
    for (const raw of paths) {
      const p = normalize(raw.startsWith('/') ? raw : `${dir}/${raw}`);
      const name = (raw.startsWith('/') ? p : normalize(raw)).slice(1);
      const file = fs.get(p);
      if (file) entries.push([name, file]);
      else if (isDir(fs, p)) {
        entries.push([`${name}/`, null]);
        for (const [f, content] of [...fs.entries()].filter(([f]) => f.startsWith(`${p === '/' ? '' : p}/`)).sort(([a], [b]) => (a < b ? -1 : 1))) {
          entries.push([`${name}${name ? '/' : ''}${f.slice(p === '/' ? 1 : p.length + 1)}`, content]);
        }
      } else errors += `tar: ${raw}: Cannot stat: No such file or directory\n`;
    }
    // GNU tar says what it could not stat as it comes to it, before the archive's end.
    if (errors) io.out(2, errors);
    io.out(1, tarOf(entries, 1_700_000_000));
    return errors ? failed('') : finish(0);
  }
  if (mode === 'x') {
    const chunks: Buffer[] = [];
    let size = 0;
    io.onStdin((data) => {
      size += data.length;
      if (size <= FS_BYTES) chunks.push(data);
    }, () => {
      if (size > FS_BYTES) return failed('tar: write error: No space left on device\n');
      const entries = untar(Buffer.concat(chunks));
      if (!entries) return failed('tar: This does not look like a tar archive\n');
      for (const e of entries) {
        const p = normalize(`${dir}/${e.name}`);
        if (!e.dir) fs.set(p, e.content);
      }
      finish(0);
    });
    return;
  }
  io.out(2, "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\nTry 'tar --help' or 'tar --usage' for more information.\n");
  finish(2);
}
