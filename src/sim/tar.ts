// Just enough of ustar for `kubectl cp`: archives of regular files (and the directories above them) written as GNU tar
// writes them, and read back from whatever tar kubectl sends.

const BLOCK = 512;

function field(b: Buffer, at: number, len: number, value: string): void {
  b.write(value, at, len, 'latin1');
}

const octal = (n: number, width: number): string => `${n.toString(8).padStart(width - 1, '0')}\0`;

function header(name: string, size: number, type: '0' | '5', mode: number, mtime: number): Buffer {
  const b = Buffer.alloc(BLOCK);
  field(b, 0, 100, name);
  field(b, 100, 8, octal(mode, 8));
  field(b, 108, 8, octal(0, 8));
  field(b, 116, 8, octal(0, 8));
  field(b, 124, 12, octal(size, 12));
  field(b, 136, 12, octal(mtime, 12));
  field(b, 148, 8, '        ');
  field(b, 156, 1, type);
  field(b, 257, 8, 'ustar  \0');
  field(b, 265, 32, 'root');
  field(b, 297, 32, 'root');
  let sum = 0;
  for (const byte of b) sum += byte;
  field(b, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return b;
}

/** A tar of `entries` (path without the leading slash → content; a path ending in `/` is a directory). */
export function tarOf(entries: ReadonlyArray<[string, Buffer | null]>, mtime: number): Buffer {
  const parts: Buffer[] = [];
  for (const [name, content] of entries) {
    if (content === null) {
      parts.push(header(name.endsWith('/') ? name : `${name}/`, 0, '5', 0o755, mtime));
      continue;
    }
    parts.push(header(name, content.length, '0', 0o644, mtime), content, Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** The regular files and directories of a tar (ustar or GNU), in order; undefined when it is not one. */
export function untar(data: Buffer): Array<{ name: string; dir: boolean; content: Buffer }> | undefined {
  const out: Array<{ name: string; dir: boolean; content: Buffer }> = [];
  for (let at = 0; at + BLOCK <= data.length;) {
    const h = data.subarray(at, at + BLOCK);
    if (h.every((x) => x === 0)) return out;
    const text = (from: number, len: number): string => h.toString('latin1', from, from + len).replace(/\0.*$/s, '');
    const size = parseInt(text(124, 12).trim() || '0', 8);
    if (!Number.isFinite(size)) return undefined;
    const prefix = text(345, 155);
    const name = prefix && text(257, 5) === 'ustar' ? `${prefix}/${text(0, 100)}` : text(0, 100);
    const type = text(156, 1) || '0';
    at += BLOCK;
    const content = data.subarray(at, at + size);
    at += Math.ceil(size / BLOCK) * BLOCK;
    if (type === '0' || type === '5') out.push({ name, dir: type === '5', content: Buffer.from(content) });
  }
  return out;
}
