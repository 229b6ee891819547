// Columns extracted from an object before it is stored, and the JSON text actually stored (revision stamped in).
import { restoreIntegers } from '../kube/exact-json.js';
import { FIELD_LABEL_PATHS } from '../kube/field-labels.js';
import { groupVersionString, MEMBER_RV_ANNOTATION } from '../kube/types.js';
import { StorageError } from './errors.js';
import type { RowKey } from './key.js';
import type { PreparedUpsert, StoredJsonObject, UpsertObject } from './types.js';

/** What a row holds besides the object. */
export interface ObjectColumns extends RowKey {
  kind: string;
  uid: string;
  /**
   * uid of the controller ownerReference, or ''. For a core/v1 Event, which has no owner, the uid of its
   * involvedObject: inject-events and owner search find an object's events through this column's index.
   */
  ownerUid: string;
  /** The member cluster's resourceVersion ('' when the object had none). */
  memberRv: string;
  /** creationTimestamp in epoch milliseconds, 0 when absent or unparsable. */
  createdAt: number;
  /** metadata.labels as [key, value] pairs; values rendered as text the way field selectors render them. */
  labels: [string, string][];
  /** The same pairs as a JSON object (the `labels` column). */
  labelsJson: string;
  /** The object's values at FIELD_LABEL_PATHS, at their paths (the `fields` column; see selectableFields). */
  fieldsJson: string;
}

/** Extracts the columns of an upsert. Throws StorageError Invalid for an object without a name. */
export function extractColumns(u: UpsertObject): ObjectColumns {
  const meta = u.object.metadata;
  if (typeof meta?.name !== 'string' || meta.name === '') {
    throw new StorageError('Invalid', `object of ${u.resource} in cluster ${u.cluster} has no metadata.name`, false);
  }
  const owner = isCoreEvent(u) ? (u.object as { involvedObject?: { uid?: unknown } }).involvedObject : meta.ownerReferences?.find((o) => o.controller === true);
  const created = typeof meta.creationTimestamp === 'string' ? Date.parse(meta.creationTimestamp) : NaN;
  const labels = labelPairs(meta.labels);
  return {
    cluster: u.cluster,
    group: u.group,
    version: u.version,
    resource: u.resource,
    namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
    name: meta.name,
    kind: u.kind,
    uid: typeof meta.uid === 'string' ? meta.uid : '',
    ownerUid: typeof owner?.uid === 'string' ? owner.uid : '',
    memberRv: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '',
    createdAt: Number.isFinite(created) ? created : 0,
    labels,
    labelsJson: labels.length === 0 ? '{}' : JSON.stringify(Object.fromEntries(labels)),
    fieldsJson: selectableFields(u.object),
  };
}

const FIELD_PATHS = FIELD_LABEL_PATHS.map((p) => p.split('.'));

/**
 * The values a write can change that kube's field selectors read (FIELD_LABEL_PATHS: status.phase, spec.nodeName, …),
 * those the object has, at the same paths as in the object (`{"spec":{"nodeName":"n1"},"status":{"phase":"Running"}}`):
 * "{}" for most kinds. A field selector on one of them reads this small document instead of the object, to the same
 * effect; beside the labels, it is what a watch from an old resourceVersion needs to know which objects matched then.
 */
export function selectableFields(object: unknown): string {
  let out: Record<string, unknown> | undefined;
  for (const names of FIELD_PATHS) {
    let v: unknown = object;
    for (const n of names) {
      v = v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, n) ? (v as Record<string, unknown>)[n] : undefined;
      if (v === undefined) break;
    }
    if (v === undefined) continue;
    let at = (out ??= {});
    for (const n of names.slice(0, -1)) at = (at[n] ??= {}) as Record<string, unknown>;
    at[names.at(-1)!] = v;
  }
  return out ? restoreIntegers(JSON.stringify(out)) : '{}';
}

/** A core/v1 Event (events.k8s.io Events name theirs `regarding` and are left as they are). */
export function isCoreEvent(t: { group: string; resource: string }): boolean {
  return t.group === '' && t.resource === 'events';
}

function labelPairs(labels: unknown): [string, string][] {
  if (typeof labels !== 'object' || labels === null) return [];
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(labels)) {
    // Kubernetes label values are strings; numbers/booleans (a malformed object) are kept as their JSON text so
    // the label table agrees with the JSON rendering field selectors (and watch filters) use.
    if (typeof v === 'string') out.push([k, v]);
    else if (typeof v === 'number' || typeof v === 'boolean') out.push([k, JSON.stringify(v)]);
  }
  return out;
}

/**
 * A stored object's JSON text without its revision: head + the revision's quoted string (`revisionText`) + tail. The
 * parts are text, or UTF-8 bytes: on the SQLite writer thread they are views of the one buffer a batch's texts
 * crossed in (sqlite/writer-ops.ts `packWrite`), and SQLite joins them to the revision itself.
 */
export interface TemplateParts {
  /** The text before the revision's quoted string. */
  head: string | Uint8Array;
  /** The text after it. */
  tail: string | Uint8Array;
  /** UTF-8 bytes of head and tail. */
  bytes: number;
}

/** A template as rendered: its parts as strings. */
export interface StoredTemplate extends TemplateParts {
  head: string;
  tail: string;
}

/**
 * The JSON text stored and served, rendered before its revision is known: `metadata.resourceVersion` will be the
 * storage revision (`stampRevision` puts it in; SQLite's statements join it in themselves), the member's RV moves to
 * annotation MEMBER_RV_ANNOTATION, and apiVersion/kind are filled in when the member's list items lacked them.
 * Rendering ahead lets the caller's thread do it, before the number is known. Copies only the top level and
 * metadata; the caller's object is not modified.
 */
export function renderTemplate(u: UpsertObject, memberRv: string): StoredTemplate {
  const o: StoredJsonObject = u.object;
  // A placeholder revision whose JSON text occurs nowhere else in the object (a NUL never does in real objects; an
  // object holding this very text gets a longer one).
  for (let n = 0; ; n++) {
    const placeholder = `\0rv${n}\0`;
    const metadata = { ...o.metadata, resourceVersion: placeholder, annotations: { ...o.metadata.annotations, [MEMBER_RV_ANNOTATION]: memberRv } };
    const stored: StoredJsonObject = { ...o, metadata };
    if (typeof o.apiVersion !== 'string' || o.apiVersion === '') stored.apiVersion = groupVersionString(u.group, u.version);
    if (typeof o.kind !== 'string' || o.kind === '') stored.kind = u.kind;
    // Integers a double cannot hold came in as marked strings (kube/exact-json.ts): written back as they were.
    const json = restoreIntegers(JSON.stringify(stored));
    const quoted = JSON.stringify(placeholder);
    const at = json.indexOf(quoted);
    if (at < 0) throw new Error('renderTemplate: the placeholder revision is missing from the rendered object');
    if (json.indexOf(quoted, at + 1) >= 0) continue;
    const head = json.slice(0, at);
    const tail = json.slice(at + quoted.length);
    return { head, tail, bytes: utf8Length(head) + utf8Length(tail) };
  }
}

/** Columns and stored text of an upsert, ahead of its write. Throws StorageError Invalid as `extractColumns`. */
export function prepareUpsert(u: UpsertObject): PreparedUpsert {
  const cols = extractColumns(u);
  return { cols, template: renderTemplate(u, cols.memberRv) };
}

/** True for an upsert prepared by `prepareUpsert`. */
export function isPrepared(u: UpsertObject | PreparedUpsert): u is PreparedUpsert {
  return 'template' in u;
}

/** The revision as it stands in a stored text: a JSON string. */
export function revisionText(revision: number): string {
  return `"${revision}"`;
}

/** The stored text of a template with its revision. */
export function stampRevision(t: StoredTemplate, revision: number): string {
  return t.head + revisionText(revision) + t.tail;
}

/** The pairs of a `labels` column value. */
export function parseLabelsJson(json: string): [string, string][] {
  const o = JSON.parse(json) as Record<string, string>;
  return Object.entries(o);
}

/** UTF-8 length of a JSON text (for the approximate byte counts of `show resources`). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
