// Indents JSON text as it streams by, as Go's json.Indent does with an indent of two spaces (kube-apiserver's
// `pretty` output): a newline and the nesting's indent before each member or element and each closing bracket, ": "
// after a key, `{}` and `[]` left compact, insignificant whitespace dropped. Works on bytes: every character it
// writes or looks at is ASCII, so a chunk may end anywhere, even inside a multi-byte character, and strings (their
// escapes too) pass through untouched. O(1) state; it does not check that the input is JSON.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
/** What each byte is outside strings: 0 anything else, then the kinds below. */
const OPEN = 1;
const CLOSE = 2;
const SPACE = 3;
const KIND = new Uint8Array(256);
for (const c of [0x7b, 0x5b]) KIND[c] = OPEN; // { [
for (const c of [0x7d, 0x5d]) KIND[c] = CLOSE; // } ]
for (const c of [0x20, 0x09, 0x0a, 0x0d]) KIND[c] = SPACE;

export class JsonIndenter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** After an opening bracket: its first member goes on a new line, unless the bracket closes at once. */
  private opened = false;

  /** The indented form of the next piece of the text. */
  push(chunk: string | Buffer): Buffer {
    const src = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const out = new ByteWriter(src.length + (src.length >> 1) + 64);
    const stops = new StringStops(src);
    let i = 0;
    while (i < src.length) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          out.push(src[i++] as number);
          continue;
        }
        // The run up to the next quote or backslash goes as it is.
        const end = stops.after(i);
        out.copy(src, i, end);
        i = end;
        if (i >= src.length) break;
        const c = src[i++] as number;
        out.push(c);
        if (c === BACKSLASH) this.escaped = true;
        else this.inString = false;
        continue;
      }
      const c = src[i++] as number;
      const kind = KIND[c];
      if (kind === SPACE) continue;
      if (this.opened) {
        this.opened = false;
        if (kind === CLOSE) {
          this.depth--;
          out.push(c);
          continue;
        }
        this.newline(out);
      }
      if (kind === OPEN) {
        out.push(c);
        this.depth++;
        this.opened = true;
      } else if (kind === CLOSE) {
        this.depth--;
        this.newline(out);
        out.push(c);
      } else if (c === COMMA) {
        out.push(c);
        this.newline(out);
      } else if (c === COLON) {
        out.push(c);
        out.push(0x20);
      } else {
        if (c === QUOTE) this.inString = true;
        out.push(c);
      }
    }
    return out.bytes();
  }

  /** What ends the text: a newline, as kube-apiserver ends a document. */
  end(): Buffer {
    return Buffer.from('\n');
  }

  private newline(out: ByteWriter): void {
    out.push(0x0a);
    out.spaces(2 * this.depth);
  }
}

/** Where string runs end in a chunk: the next quote or backslash at or after a position, each searched for once. */
class StringStops {
  private quote = -1;
  private backslash = -1;

  constructor(private readonly src: Buffer) {}

  after(from: number): number {
    if (this.quote !== Infinity && this.quote < from) this.quote = this.next(QUOTE, from);
    if (this.backslash !== Infinity && this.backslash < from) this.backslash = this.next(BACKSLASH, from);
    return Math.min(this.quote, this.backslash, this.src.length);
  }

  private next(byte: number, from: number): number {
    const at = this.src.indexOf(byte, from);
    return at < 0 ? Infinity : at;
  }
}

/** Bytes appended to a buffer that doubles when full. */
class ByteWriter {
  private buf: Buffer;
  private n = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  push(byte: number): void {
    this.room(1);
    this.buf[this.n++] = byte;
  }

  copy(src: Buffer, from: number, to: number): void {
    this.room(to - from);
    this.n += src.copy(this.buf, this.n, from, to);
  }

  spaces(count: number): void {
    this.room(count);
    this.buf.fill(0x20, this.n, this.n + count);
    this.n += count;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.n);
  }

  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.n + k));
    this.buf.copy(next, 0, 0, this.n);
    this.buf = next;
  }
}
