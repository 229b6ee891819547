// Kubernetes' protobuf encoding of built-in objects, read as kube-apiserver reads it: what kubectl create (deployment,
// configmap, secret, service, job, …), kubectl ≥ 1.32's reviews (SelfSubjectAccessReview, SelfSubjectReview) and
// client-go's typed clients send, none of them falling back to JSON. The body is "k8s\0" and a runtime.Unknown whose
// typeMeta names the kind and whose raw is the object's message (proto-schema.ts). The object comes out as Go's JSON
// encoding writes the same value: it drops the empty and zero fields the wire carries (a pointer's zero it keeps:
// `replicas: 0` is not `replicas` unset), Time is an RFC 3339 string, IntOrString a number or a string, bytes base64.
import protobuf from 'protobufjs/light.js';
import { INLINE, KEEP_ZERO, MESSAGES } from './proto-schema.js';
import { parseExact } from './exact-json.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from('k8s\0', 'latin1');

/**
 * A body that is not one: `malformed` (not kube's protobuf, or truncated: 400) or `unsupported` (a kind with no protobuf
 * encoding, such as a custom resource, or a field the schema here lacks, which would be lost without a word: 415).
 */
export class ProtobufError extends Error {
  constructor(message: string, readonly reason: 'malformed' | 'unsupported') {
    super(message);
    this.name = 'ProtobufError';
  }
}

/** The schema package of each built-in group (a custom resource's group has none). */
const PACKAGES: Record<string, string> = {
  '': 'core', apps: 'apps', batch: 'batch', 'networking.k8s.io': 'networking', 'coordination.k8s.io': 'coordination', policy: 'policy',
  'authentication.k8s.io': 'authentication', 'authorization.k8s.io': 'authorization',
};

/** Messages whose JSON is not an object of their fields. */
const SPECIAL: Record<string, (m: Fields) => unknown> = {
  'meta.Time': (m) => rfc3339(m, 0),
  'meta.MicroTime': (m) => rfc3339(m, 6),
  'intstr.IntOrString': (m) => (int(m['type']) === 1 ? String(m['strVal'] ?? '') : int(m['intVal'])),
  'resource.Quantity': (m) => String(m['string'] ?? ''),
  'runtime.RawExtension': (m) => rawJson(m['raw']),
  'meta.FieldsV1': (m) => rawJson(m['Raw']),
};

type Fields = Record<string, unknown>;

let root: protobuf.Root | undefined;
/** The schemas as protobufjs types, built once on first use. */
function schemas(): protobuf.Root {
  if (root) return root;
  const nested: Record<string, { nested: Record<string, protobuf.IType> }> = {};
  for (const [name, spec] of Object.entries(MESSAGES)) {
    const [pkg = '', message = ''] = name.split('.');
    const fields: Record<string, protobuf.IField> = {};
    for (const f of spec.split(/,\s+/)) {
      const [field = '', id = '', type = ''] = f.trim().split(/\s+/);
      const map = /^map<(\w+),(.+)>$/.exec(type);
      if (map) {
        const mapField: protobuf.IMapField = { id: Number(id), keyType: map[1]!, type: map[2]! };
        fields[field] = mapField;
      } else if (type.endsWith('[]')) fields[field] = { id: Number(id), type: type.slice(0, -2), rule: 'repeated' };
      else fields[field] = { id: Number(id), type };
    }
    // proto2, as kube's are: a field on the wire is present even when it holds its zero (KEEP_ZERO needs to see it).
    (nested[pkg] ??= { nested: {} }).nested[message] = { edition: 'proto2', fields };
  }
  const built = protobuf.Root.fromJSON({ nested });
  built.resolveAll();
  root = built;
  return built;
}

/**
 * The object a protobuf body holds, as its JSON would carry it (apiVersion and kind from the envelope). Throws
 * ProtobufError.
 */
export function decodeKubeProtobuf(body: Uint8Array): { apiVersion: string; kind: string; object: Record<string, unknown> } {
  if (body.length < MAGIC.length || !MAGIC.equals(body.subarray(0, MAGIC.length))) {
    throw new ProtobufError('the body does not start with the Kubernetes protobuf prefix ("k8s\\x00")', 'malformed');
  }
  const r = schemas();
  const envelope = decode(r.lookupType('runtime.Unknown'), body.subarray(MAGIC.length));
  const typeMeta = (envelope['typeMeta'] ?? {}) as Fields;
  const apiVersion = String(typeMeta['apiVersion'] ?? '');
  const kind = String(typeMeta['kind'] ?? '');
  if (!kind || !apiVersion) throw new ProtobufError('the body names no apiVersion and kind in its typeMeta', 'malformed');
  if (envelope['contentEncoding']) throw new ProtobufError(`content encoding ${String(envelope['contentEncoding'])} is not read`, 'unsupported');
  const type = typeOf(apiVersion, kind);
  if (!type) throw new ProtobufError(`${kind} ${apiVersion} has no protobuf encoding here`, 'unsupported');
  const raw = envelope['raw'];
  const object = toJson(decode(type, raw instanceof Uint8Array ? raw : new Uint8Array()), type) as Fields;
  return { apiVersion, kind, object: { apiVersion, kind, ...object } };
}

/** The message of a built-in kind at `apiVersion`, if the schemas here have it. */
function typeOf(apiVersion: string, kind: string): protobuf.Type | undefined {
  const slash = apiVersion.indexOf('/');
  const pkg = PACKAGES[slash < 0 ? '' : apiVersion.slice(0, slash)];
  const type = pkg && apiVersion.slice(slash + 1) === 'v1' ? schemas().lookup(`${pkg}.${kind}`) : null;
  return type instanceof protobuf.Type ? type : undefined;
}

function decode(type: protobuf.Type, bytes: Uint8Array): Fields {
  try {
    const reader = protobuf.Reader.create(bytes);
    // Kept, so that a field the schema lacks is refused rather than lost (toJson).
    reader.discardUnknown = false;
    return type.decode(reader) as unknown as Fields;
  } catch (e: unknown) {
    throw new ProtobufError(`its ${shortName(type)} message is truncated or malformed (${e instanceof Error ? e.message : String(e)})`, 'malformed');
  }
}

/** `type`'s name in the schema: its package and message ("core.PodSpec"). */
const shortName = (type: protobuf.Type): string => type.fullName.slice(1);

/** Whether `field` of `type` is a Go struct embedded in it: its fields are the JSON's, at `type`'s level. */
const inline = (type: protobuf.Type, field: string): boolean => INLINE.has(`${shortName(type)}.${field}`);

/** A message as Go's JSON encoding writes the same Go value; undefined where that JSON omits it. */
function toJson(m: Fields, type: protobuf.Type): unknown {
  const unknown = (m as { $unknowns?: Uint8Array[] }).$unknowns;
  if (unknown?.length) {
    const numbers = unknown.map((u) => new protobuf.Reader(u).uint32() >>> 3);
    throw new ProtobufError(`field ${numbers.join(', ')} of ${shortName(type)} is not in the schema here`, 'unsupported');
  }
  const special = SPECIAL[shortName(type)];
  if (special) return special(m);
  const out: Fields = {};
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(m, field.name)) continue;
    const v = m[field.name];
    const json = field.map
      ? mapJson(v as Fields, field)
      : field.repeated
        ? arrayJson(v as unknown[], field)
        : valueJson(v, field, KEEP_ZERO.has(`${shortName(type)}.${field.name}`));
    if (json === undefined) continue;
    if (inline(type, field.name)) Object.assign(out, json);
    else out[field.name] = json;
  }
  return out;
}

function arrayJson(v: unknown[], field: protobuf.Field): unknown[] | undefined {
  return v.length === 0 ? undefined : v.map((item) => valueJson(item, field, true) ?? null);
}

function mapJson(v: Fields, field: protobuf.Field): Fields | undefined {
  const entries = Object.entries(v);
  return entries.length === 0 ? undefined : Object.fromEntries(entries.map(([k, item]) => [k, valueJson(item, field, true) ?? null]));
}

/** One value of `field`; a plain field's zero is omitted unless `keep` (a pointer's, or an element of a list or map). */
function valueJson(v: unknown, field: protobuf.Field, keep: boolean): unknown {
  if (field.resolvedType instanceof protobuf.Type) return toJson(v as Fields, field.resolvedType);
  let out = v;
  if (v instanceof Uint8Array) out = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  else if (typeof v === 'object' && v !== null) out = int(v); // an int64 as protobufjs's Long
  if (!keep && (out === '' || out === 0 || out === false)) return undefined;
  return out;
}

/** An integer field's value (int64 arrives as a Long), 0 when absent. */
function int(v: unknown): number {
  return v === undefined || v === null ? 0 : Number(String(v));
}

function rfc3339(m: Fields, fractionDigits: number): string | undefined {
  const seconds = int(m['seconds']);
  const nanos = int(m['nanos']);
  if (seconds === 0 && nanos === 0) return undefined;
  const whole = new Date(seconds * 1000).toISOString().slice(0, 19);
  return fractionDigits === 0 ? `${whole}Z` : `${whole}.${String(Math.floor(nanos / 10 ** (9 - fractionDigits))).padStart(fractionDigits, '0')}Z`;
}

function rawJson(raw: unknown): unknown {
  if (!(raw instanceof Uint8Array) || raw.length === 0) return undefined;
  try {
    return parseExact(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  } catch {
    throw new ProtobufError('an embedded object (RawExtension) is not JSON', 'unsupported');
  }
}

/**
 * The fields of `object` (a built-in kind's JSON) that its Go type does not have, named as kube's strict decoding names
 * them (`spec.replica`, `spec.template.spec.containers[0].imagePullPolcy`). Undefined for a kind with no schema here (a
 * custom resource's fields are its CRD's to judge). With `drop`, they are also deleted from `object`, as kube's
 * decoding into the Go type loses them when it does not refuse them; `skip` names top-level fields left unjudged.
 */
export function unknownFields(apiVersion: string, kind: string, object: Record<string, unknown>, opts: { drop?: boolean; skip?: readonly string[] } = {}): string[] | undefined {
  const type = typeOf(apiVersion, kind);
  if (!type) return undefined;
  const unknown: string[] = [];
  const skip = new Set(['apiVersion', 'kind', ...(opts.skip ?? [])]);
  for (const [key, v] of Object.entries(object)) if (!skip.has(key)) collectUnknown({ [key]: v }, type, '', unknown, opts.drop ? object : undefined);
  return unknown;
}

/** The field of `type` a JSON key names: its own, or one of a struct embedded in it (INLINE). */
function fieldOf(type: protobuf.Type, key: string): protobuf.Field | undefined {
  const own = type.fields[key];
  if (own && !inline(type, key)) return own;
  for (const f of type.fieldsArray) {
    if (!inline(type, f.name) || !(f.resolvedType instanceof protobuf.Type)) continue;
    const inner = fieldOf(f.resolvedType, key);
    if (inner) return inner;
  }
  return undefined;
}

/** Messages whose schema here leaves fields out (a pod's status, the cloud providers' volume sources): not judged. */
const OPEN = new Set(['core.PodStatus', 'core.VolumeSource']);

/** Collects the unknown fields of `value` (an object of `type`); deletes each from `owner` (`value` itself, below the top). */
function collectUnknown(value: unknown, type: protobuf.Type, path: string, unknown: string[], owner?: object): void {
  if (SPECIAL[shortName(type)] || OPEN.has(shortName(type)) || typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const [key, v] of Object.entries(value)) {
    const field = fieldOf(type, key);
    if (!field) {
      // A strategic merge patch's directives ($patch, $setElementOrder/…, $retainKeys) are not fields.
      if (key.startsWith('$')) continue;
      unknown.push(`${path}${key}`);
      if (owner) delete (owner as Record<string, unknown>)[key];
      continue;
    }
    const inner = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
    if (!inner || v === null || typeof v !== 'object') continue;
    const below = (x: unknown): object | undefined => (owner && typeof x === 'object' && x !== null ? x : undefined);
    if (field.map) for (const [mk, mv] of Object.entries(v)) collectUnknown(mv, inner, `${path}${key}.${mk}.`, unknown, below(mv));
    else if (Array.isArray(v)) v.forEach((item, i) => collectUnknown(item, inner, `${path}${key}[${i}].`, unknown, below(item)));
    else collectUnknown(v, inner, `${path}${key}.`, unknown, below(v));
  }
}
