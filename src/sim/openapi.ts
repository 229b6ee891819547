// OpenAPI v3 as kube-apiserver publishes it (what `kubectl explain` reads since 1.27): `/openapi/v3` lists one document
// per group version, each with a serverRelativeURL carrying the document's hash; `/openapi/v3/api/v1` or
// `/openapi/v3/apis/<group>/<version>` is that document. Simplified: each kind's schema is inferred from the objects
// this cluster serves (every field they use, typed, each with a description naming it), not kube's hand-written one;
// what kubectl needs to find it is as kube has it (`x-kubernetes-group-version-kind`, a definition name per kind).
import { createHash } from 'node:crypto';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_ASKED, openApiV2Protobuf } from '../kube/openapi-v2-proto.js';
import { errors } from './status.js';
import type { SimStore } from './store.js';
import { grKey, type ResourceDef, type SimObject } from './types.js';

/** Objects of a kind read to infer its schema. */
const SAMPLES = 50;
/** Nesting followed; deeper values are `type: object` without properties. */
const MAX_DEPTH = 12;

type Schema = Record<string, unknown>;

function infer(values: unknown[], path: string, depth: number): Schema {
  const present = values.filter((v) => v !== undefined && v !== null);
  const description = `${path}, as this simulated cluster's objects have it.`;
  const first = present[0];
  if (first === undefined) return { type: 'string', description };
  if (Array.isArray(first)) {
    const items = present.filter(Array.isArray).flat();
    return { type: 'array', description, items: infer(items, `${path}[]`, depth + 1) };
  }
  if (typeof first === 'object') {
    const objects = present.filter((v): v is Record<string, unknown> => typeof v === 'object' && !Array.isArray(v));
    if (depth >= MAX_DEPTH) return { type: 'object', description };
    const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))].sort();
    // Maps with arbitrary keys (labels, annotations, data) are kube's additionalProperties, not fields.
    if (/\.(labels|annotations|data|stringData|nodeSelector|matchLabels|capacity|allocatable|limits|requests)$/.test(path)) {
      return { type: 'object', description, additionalProperties: { type: 'string', default: '' } };
    }
    const properties: Record<string, Schema> = {};
    for (const k of keys) properties[k] = infer(objects.map((o) => o[k]), `${path}.${k}`, depth + 1);
    return { type: 'object', description, properties };
  }
  if (typeof first === 'number') return { type: Number.isInteger(first) ? 'integer' : 'number', description };
  if (typeof first === 'boolean') return { type: 'boolean', description };
  return { type: 'string', description };
}

/** kube's definition name for a kind: io.k8s.api.<package>.<version>.<Kind>, or the reversed group for custom ones. */
function definitionName(def: ResourceDef, version: string): string {
  if (def.custom) return `${def.group.split('.').reverse().join('.')}.${version}.${def.kind}`;
  return `io.k8s.api.${def.group === '' ? 'core' : (def.group.split('.')[0] ?? '')}.${version}.${def.kind}`;
}

/** The group versions documented: each with the stored kinds served there (reviews and metrics have no objects). */
function groupVersions(store: SimStore): Map<string, { version: string; defs: ResourceDef[] }> {
  const out = new Map<string, { version: string; defs: ResourceDef[] }>();
  for (const def of store.allDefs()) {
    if (def.review || def.metrics) continue;
    for (const version of def.versions) {
      const key = def.group === '' ? `api/${version}` : `apis/${def.group}/${version}`;
      const entry = out.get(key) ?? { version, defs: [] };
      entry.defs.push(def);
      out.set(key, entry);
    }
  }
  return out;
}

function document(store: SimStore, version: string, defs: ResourceDef[]): string {
  return JSON.stringify({ openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, ...parts(store, version, defs) });
}

/** The paths and the schemas (`components.schemas`) of the kinds `defs` at `version`. */
function parts(store: SimStore, version: string, defs: ResourceDef[]): { paths: Record<string, Schema>; components: { schemas: Record<string, Schema> } } {
  const schemas: Record<string, Schema> = {};
  const paths: Record<string, Schema> = {};
  for (const def of [...defs].sort((a, b) => (a.kind < b.kind ? -1 : 1))) {
    // The operations, each naming its kind: how kubectl explain finds the schema of a resource.
    const gvk = { group: def.group, kind: def.kind, version };
    const base = `${def.group === '' ? '/api' : `/apis/${def.group}`}/${version}${def.namespaced ? '/namespaces/{namespace}' : ''}/${def.resource}`;
    const op = (action: string, what: string): Schema => ({
      get: { description: `${action} ${what}`, operationId: `${action}${def.kind}`, responses: { 200: { description: 'OK' } }, 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk },
    });
    paths[base] = op('list', `objects of kind ${def.kind}`);
    paths[`${base}/{name}`] = op('get', `the specified ${def.kind}`);
    // Its PATCH names the fieldValidation parameter, as kube's does: kubectl (cli-runtime's QueryParamVerifierV3) then
    // leaves validation to the server (which here accepts any field) instead of judging by the inferred schema.
    if (def.verbs.includes('patch')) {
      paths[`${base}/{name}`] = {
        ...paths[`${base}/{name}`],
        patch: {
          description: `partially update the specified ${def.kind}`, operationId: `patch${def.kind}`, responses: { 200: { description: 'OK' } }, 'x-kubernetes-action': 'patch', 'x-kubernetes-group-version-kind': gvk,
          parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({ name, in: 'query', schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true } })),
        },
      };
    }
    const samples: SimObject[] = [];
    for (const [, o] of store.table(def.storedAs?.gr ?? grKey(def.group, def.resource))?.entries() ?? []) {
      samples.push(def.storedAs ? def.storedAs.read(o) : o);
      if (samples.length >= SAMPLES) break;
    }
    const schema = infer(samples.map((o) => ({ ...o, apiVersion: def.group === '' ? version : `${def.group}/${version}`, kind: def.kind })), def.kind, 0);
    schemas[definitionName(def, version)] = {
      ...schema,
      description: `${def.kind} as this simulated cluster serves it.`,
      'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.kind, version }],
    };
  }
  return { paths, components: { schemas } };
}

/**
 * `/openapi/v2`: every group version in one swagger document, as JSON or, when asked for it, in gnostic's protobuf
 * (what kubectl before 1.29 reads for explain).
 */
export function serveOpenApiV2(store: SimStore, accept: string, send: (body: string | Buffer, type: string) => void): void {
  const paths: Record<string, Schema> = {};
  const definitions: Record<string, Schema> = {};
  for (const { version, defs } of groupVersions(store).values()) {
    const p = parts(store, version, defs);
    Object.assign(paths, p.paths);
    Object.assign(definitions, p.components.schemas);
  }
  const doc = { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, definitions };
  if (OPENAPI_V2_PROTOBUF_ASKED.test(accept)) return send(openApiV2Protobuf(doc), OPENAPI_V2_PROTOBUF);
  send(JSON.stringify(doc), 'application/json');
}

const hashOf = (text: string): string => createHash('sha512').update(text).digest('hex').toUpperCase();

/** `/openapi/v3` and its documents; `rest` is the path after `/openapi/v3/` ('' for the index). */
export function serveOpenApiV3(store: SimStore, rest: string, send: (code: number, body: string) => void): void {
  const gvs = groupVersions(store);
  if (rest === '') {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const [key, { version, defs }] of [...gvs.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashOf(document(store, version, defs))}` };
    }
    return send(200, JSON.stringify({ paths }));
  }
  const gv = gvs.get(rest);
  if (!gv) throw errors.noRoute();
  send(200, document(store, gv.version, gv.defs));
}
