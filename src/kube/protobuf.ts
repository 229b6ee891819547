// Reading Kubernetes' protobuf wire form, as far as a request body needs it: kubectl ≥ 1.32 sends the reviews it
// creates (SelfSubjectAccessReview, SelfSubjectReview) as protobuf whatever the server, and does not fall back to JSON.
// Only reading, only the scalar and nested fields those messages carry; answers go out as JSON, which kubectl accepts.

/** The 4-byte prefix of every protobuf-encoded Kubernetes object ("k8s\0"). */
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

export class ProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufError';
  }
}

/** One field of a message: its number, and its bytes when length-delimited (strings, bytes, nested messages). */
export interface Field {
  no: number;
  bytes?: Uint8Array;
  varint?: number;
}

/** The fields of a message in wire order. Throws ProtobufError on a truncated or malformed message. */
export function readFields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = (): number => {
    let v = 0;
    let scale = 1;
    for (let n = 0; n < 10; n++) {
      if (i >= buf.length) throw new ProtobufError('truncated varint');
      const b = buf[i++] as number;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 128;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  };
  while (i < buf.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    const wire = key % 8;
    if (no === 0) throw new ProtobufError('field number 0');
    switch (wire) {
      case 0:
        out.push({ no, varint: varint() });
        break;
      case 1:
      case 5: {
        const len = wire === 1 ? 8 : 4;
        if (i + len > buf.length) throw new ProtobufError('truncated fixed-width field');
        i += len;
        break;
      }
      case 2: {
        const len = varint();
        if (i + len > buf.length) throw new ProtobufError('truncated length-delimited field');
        out.push({ no, bytes: buf.subarray(i, i + len) });
        i += len;
        break;
      }
      default:
        throw new ProtobufError(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

/** The last length-delimited field `no` of a message (protobuf's rule for a repeated non-repeated field), if any. */
export function field(fields: Field[], no: number): Uint8Array | undefined {
  let found: Uint8Array | undefined;
  for (const f of fields) if (f.no === no && f.bytes) found = f.bytes;
  return found;
}

/** A string field, '' when absent (proto2's default for Kubernetes' optional strings). */
export function stringField(fields: Field[], no: number): string {
  const b = field(fields, no);
  return b ? new TextDecoder('utf-8', { fatal: false }).decode(b) : '';
}

/** A protobuf-encoded Kubernetes object: its apiVersion and kind (runtime.Unknown's TypeMeta) and its message. */
export interface KubeProtobufObject {
  apiVersion: string;
  kind: string;
  message: Uint8Array;
}

/** Unwraps the envelope every protobuf request body has: the magic prefix, then runtime.Unknown. */
export function decodeKubeProtobuf(body: Uint8Array): KubeProtobufObject {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b)) throw new ProtobufError('the body does not start with the Kubernetes protobuf prefix');
  const unknown = readFields(body.subarray(MAGIC.length));
  const typeMeta = readFields(field(unknown, 1) ?? new Uint8Array());
  return { apiVersion: stringField(typeMeta, 1), kind: stringField(typeMeta, 2), message: field(unknown, 2) ?? new Uint8Array() };
}
