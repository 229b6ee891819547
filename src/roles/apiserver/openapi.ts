// Our own API's OpenAPI, at the root as Clusterpedia's apiserver publishes it and as kube-apiserver's aggregator
// collects it from an APIService: `/openapi/v3` (an index of two group-version documents, each under the hash of its
// content) and `/openapi/v2` (JSON). They describe what `kubectl explain` asks about here: PediaCluster, with the
// schema of its CRD (manifests/base/crds, carried in the bundle), and CollectionResource.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { notAcceptable, notFound } from '../../kube/status.js';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_ASKED, openApiV2Protobuf } from '../../kube/openapi-v2-proto.js';
import { VERSION } from '../../lib/version.js';

declare const __CLUSTERPEDIA_PEDIACLUSTER_CRD__: string | undefined;

type Schema = Record<string, unknown>;

interface Kind {
  group: string;
  version: string;
  kind: string;
  resource: string;
  definition: string;
  schema: () => Schema;
}

function pediaClusterSchema(): Schema {
  const text = typeof __CLUSTERPEDIA_PEDIACLUSTER_CRD__ === 'string'
    ? __CLUSTERPEDIA_PEDIACLUSTER_CRD__
    : readFileSync(new URL('../../../manifests/base/crds/cluster.clusterpedia.io_pediaclusters.yaml', import.meta.url), 'utf8');
  const crd = parse(text) as { spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] } };
  const v = crd.spec.versions.find((x) => x.name === 'v1alpha2');
  if (!v) throw new Error('the PediaCluster CRD has no v1alpha2');
  return { description: 'A member cluster clusterpedia syncs: where it is, how to reach it, what to sync, and how that goes.', ...v.schema.openAPIV3Schema };
}

const stringField = (description: string): Schema => ({ type: 'string', description });

const collectionResourceSchema = (): Schema => ({
  type: 'object',
  description: 'A named set of resource types listed together, across clusters: any, workloads, kuberesources.',
  properties: {
    apiVersion: stringField('clusterpedia.io/v1beta1'),
    kind: stringField('CollectionResource'),
    metadata: { type: 'object', description: 'The collection\'s name.' },
    resourceTypes: {
      type: 'array',
      description: 'The resource types in the collection.',
      items: {
        type: 'object',
        properties: {
          group: stringField('API group; empty for the core group.'),
          version: stringField('Version; empty for every stored version.'),
          resource: stringField('Resource, plural; `*` for every resource of the group.'),
          kind: stringField('Kind of the resource.'),
        },
      },
    },
    items: {
      type: 'array',
      description: 'The objects of those types (a get of the collection), each with its apiVersion and kind.',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
});

const KINDS: readonly Kind[] = [
  { group: 'cluster.clusterpedia.io', version: 'v1alpha2', kind: 'PediaCluster', resource: 'pediaclusters', definition: 'io.clusterpedia.cluster.v1alpha2.PediaCluster', schema: pediaClusterSchema },
  { group: 'clusterpedia.io', version: 'v1beta1', kind: 'CollectionResource', resource: 'collectionresources', definition: 'io.clusterpedia.v1beta1.CollectionResource', schema: collectionResourceSchema },
];

/** The list and get operations of a kind, each naming it: how kubectl explain finds a resource's schema. */
function paths(k: Kind, ref: string): Record<string, Schema> {
  const gvk = { group: k.group, kind: k.kind, version: k.version };
  const base = `/apis/${k.group}/${k.version}/${k.resource}`;
  const op = (action: string, what: string, schema: Schema): Schema => ({
    get: { description: what, operationId: `${action}${k.kind}`, 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, responses: { 200: { description: 'OK', ...schema } } },
  });
  return {
    [base]: op('list', `list objects of kind ${k.kind}`, {}),
    [`${base}/{name}`]: op('get', `read the specified ${k.kind}`, { ...(ref.startsWith('#/definitions/') ? { schema: { $ref: ref } } : { content: { 'application/json': { schema: { $ref: ref } } } }) }),
  };
}

const withGvk = (k: Kind): Schema => ({ ...k.schema(), 'x-kubernetes-group-version-kind': [{ group: k.group, kind: k.kind, version: k.version }] });

const v3Docs = new Map<string, string>();
function v3Document(gvPath: string): string | undefined {
  const cached = v3Docs.get(gvPath);
  if (cached) return cached;
  const kinds = KINDS.filter((k) => `apis/${k.group}/${k.version}` === gvPath);
  if (kinds.length === 0) return undefined;
  const text = JSON.stringify({
    openapi: '3.0.0',
    info: { title: 'clusterpedia', version: VERSION },
    paths: Object.assign({}, ...kinds.map((k) => paths(k, `#/components/schemas/${k.definition}`))),
    components: { schemas: Object.fromEntries(kinds.map((k) => [k.definition, withGvk(k)])) },
  });
  v3Docs.set(gvPath, text);
  return text;
}

const hashOf = (text: string): string => createHash('sha512').update(text).digest('hex').toUpperCase();

/** `/openapi/v3` (`rest` '') or one of its documents (`rest` 'apis/<group>/<version>'); undefined when there is none. */
function openApiV3(rest: string): string | undefined {
  if (rest !== '') return v3Document(rest);
  const index: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of [...new Set(KINDS.map((k) => `apis/${k.group}/${k.version}`))]) {
    index[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hashOf(v3Document(gv) ?? '')}` };
  }
  return JSON.stringify({ paths: index });
}

let v2: Record<string, unknown> | undefined;
/** `/openapi/v2`, the swagger document. */
function openApiV2(): Record<string, unknown> {
  v2 ??= ({
    swagger: '2.0',
    info: { title: 'clusterpedia', version: VERSION },
    paths: Object.assign({}, ...KINDS.map((k) => paths(k, `#/definitions/${k.definition}`))),
    definitions: Object.fromEntries(KINDS.map((k) => [k.definition, withGvk(k)])),
  });
  return v2;
}

/**
 * The answer for a root OpenAPI path (`/openapi/v2`, `/openapi/v3[/apis/<g>/<v>]`, as request-info validated it). v2 is
 * JSON (what kube's aggregator asks for) or gnostic's protobuf (what kubectl before 1.29 asks for, alone).
 */
export function rootOpenApi(path: string, accept: string): { body: string | Buffer; contentType: string } {
  if (path === '/openapi/v2') {
    if (OPENAPI_V2_PROTOBUF_ASKED.test(accept)) return { body: openApiV2Protobuf(openApiV2()), contentType: OPENAPI_V2_PROTOBUF };
    if (accept !== '' && !/application\/json|\*\/\*|application\/\*/.test(accept)) throw notAcceptable(`only application/json and ${OPENAPI_V2_PROTOBUF} are supported for /openapi/v2`);
    return { body: JSON.stringify(openApiV2()), contentType: 'application/json' };
  }
  const doc = openApiV3(path.slice('/openapi/v3'.length).replace(/^\//, ''));
  if (doc === undefined) throw notFound();
  return { body: doc, contentType: 'application/json' };
}
