// An OpenAPI v2 (swagger) document as kube-apiserver sends it to kubectl: gnostic's openapi_v2.Document in protobuf
// (application/com.github.proto-openapi.spec.v2@v1.0+protobuf), which kubectl before 1.29 reads for explain. Written
// from the JSON form, with what kubectl reads of it: info, each path's GET operation with its vendor extensions, and
// the definitions' schemas (type, format, description, $ref, required, items, properties, additionalProperties, and the
// x- extensions, whose values gnostic carries as YAML).
import { stringify } from 'yaml';

/** The type kubectl asks for (with `@`, which is not valid in a media type) and the one kube answers with. */
export const OPENAPI_V2_PROTOBUF_ASKED = /application\/com\.github\.proto-openapi\.spec\.v2[@.]v1\.0\+protobuf/;
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

type Json = Record<string, unknown>;

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/** A length-delimited field (a string or an embedded message). */
function bytes(field: number, value: Buffer | string): Buffer {
  const b = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint((field << 3) | 2), varint(b.length), b]);
}

function bool(field: number, value: boolean): Buffer {
  return Buffer.concat([varint(field << 3), varint(value ? 1 : 0)]);
}

const message = (parts: Buffer[]): Buffer => Buffer.concat(parts);
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** NamedAny{name, value: Any{yaml}} for each x- key of `o`. */
function extensions(field: number, o: Json): Buffer[] {
  return Object.entries(o).filter(([k]) => k.startsWith('x-')).map(([k, v]) => bytes(field, message([bytes(1, k), bytes(2, bytes(2, stringify(v).trimEnd()))])));
}

function schema(s: Json): Buffer {
  const parts: Buffer[] = [];
  if (typeof s.$ref === 'string') parts.push(bytes(1, s.$ref));
  if (typeof s.format === 'string') parts.push(bytes(2, s.format));
  if (typeof s.title === 'string') parts.push(bytes(3, s.title));
  if (typeof s.description === 'string') parts.push(bytes(4, s.description));
  if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') parts.push(bytes(19, r));
  if (Array.isArray(s.enum)) for (const e of s.enum) parts.push(bytes(20, bytes(2, stringify(e).trimEnd())));
  if (isObject(s.additionalProperties)) parts.push(bytes(21, bytes(1, schema(s.additionalProperties))));
  else if (typeof s.additionalProperties === 'boolean') parts.push(bytes(21, bool(2, s.additionalProperties)));
  if (typeof s.type === 'string') parts.push(bytes(22, bytes(1, s.type)));
  if (isObject(s.items)) parts.push(bytes(23, bytes(1, schema(s.items))));
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isObject(a)) parts.push(bytes(24, schema(a)));
  if (isObject(s.properties)) parts.push(bytes(25, message(Object.entries(s.properties).filter(([, v]) => isObject(v)).map(([k, v]) => bytes(1, message([bytes(1, k), bytes(2, schema(v as Json))]))))));
  parts.push(...extensions(31, s));
  return message(parts);
}

function operation(op: Json): Buffer {
  const parts: Buffer[] = [];
  if (typeof op.description === 'string') parts.push(bytes(3, op.description));
  if (typeof op.operationId === 'string') parts.push(bytes(5, op.operationId));
  // responses: 200 → Response{description}
  parts.push(bytes(9, bytes(1, message([bytes(1, '200'), bytes(2, bytes(1, bytes(1, 'OK')))]))));
  parts.push(...extensions(13, op));
  return message(parts);
}

const METHODS: ReadonlyArray<[string, number]> = [['get', 2], ['put', 3], ['post', 4], ['delete', 5], ['options', 6], ['head', 7], ['patch', 8]];

/** The protobuf form of a swagger 2.0 JSON document. */
export function openApiV2Protobuf(doc: Json): Buffer {
  const parts: Buffer[] = [bytes(1, typeof doc.swagger === 'string' ? doc.swagger : '2.0')];
  const info = isObject(doc.info) ? doc.info : {};
  parts.push(bytes(2, message([bytes(1, String(info.title ?? '')), bytes(2, String(info.version ?? ''))])));
  const paths = isObject(doc.paths) ? doc.paths : {};
  parts.push(bytes(8, message(Object.entries(paths).filter(([, v]) => isObject(v)).map(([name, item]) => {
    const ops = METHODS.filter(([m]) => isObject((item as Json)[m])).map(([m, f]) => bytes(f, operation((item as Json)[m] as Json)));
    return bytes(2, message([bytes(1, name), bytes(2, message(ops))]));
  }))));
  const definitions = isObject(doc.definitions) ? doc.definitions : {};
  parts.push(bytes(9, message(Object.entries(definitions).filter(([, v]) => isObject(v)).map(([name, s]) => bytes(1, message([bytes(1, name), bytes(2, schema(s as Json))]))))));
  return message(parts);
}
