// `kubectl auth can-i` and `kubectl auth whoami` against the search API: SelfSubjectAccessReview answers whether the
// caller may read what it names through the path it was posted to (at the resources prefix: any member resource, on
// the fleet or one cluster's path; at the root: clusterpedia's own resources), with the clusters a fleet answer is
// narrowed to; SelfSubjectReview answers who the server takes the caller for. Bodies come as JSON or, from kubectl
// ≥ 1.32, as protobuf; answers go out as JSON (kubectl accepts it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, StatusError, status } from '../../kube/status.js';
import { decodeKubeProtobuf, PROTOBUF, ProtobufError } from '../../kube/protobuf.js';
import { isObject } from '../../kube/printers/fields.js';
import type { UserInfo } from './authn.js';
import { clusterAttributes, isInteractiveSubresource, isPublicPath } from './authz-attributes.js';
import { MASTERS_GROUP, type Attributes, type Authorizer } from './authz.js';
import { allowedClusters } from './authz-clusters.js';
import type { SelfReviewTarget } from './request-info.js';
import { readBody } from './request-body.js';
import { named } from './warnings.js';
import { kubeTime } from '../../kube/types.js';

/** A review is a few hundred bytes; past this the body is refused (413), as kube-apiserver refuses oversized ones. */
const MAX_REVIEW_BYTES = 64 * 1024;

const READ_VERBS = ['get', 'list', 'watch'];

/** What answers a review: the authorizer the gate uses, and the member clusters for per-cluster authorization. */
export interface ReviewAuthority {
  authz: Authorizer;
  perCluster: boolean;
  clusters: () => Promise<Iterable<string>>;
}

interface ResourceAttrs {
  namespace: string;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  name: string;
}

interface ReviewSpec {
  resourceAttributes?: ResourceAttrs;
  nonResourceAttributes?: { path: string; verb: string };
  /** A SelfSubjectRulesReview's. */
  namespace?: string;
}

interface AccessStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
}

const str = (o: Record<string, unknown>, k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');

const REVIEW_KINDS = { access: 'SelfSubjectAccessReview', rules: 'SelfSubjectRulesReview', subject: 'SelfSubjectReview' } as const;
export const REVIEW_RESOURCES = { access: 'selfsubjectaccessreviews', rules: 'selfsubjectrulesreviews', subject: 'selfsubjectreviews' } as const;
const apiVersionOf = (t: SelfReviewTarget): string => `${t.review === 'subject' ? 'authentication.k8s.io' : 'authorization.k8s.io'}/${t.version}`;

/** The review's kind, apiVersion and spec, from JSON or protobuf; a Status error for anything else. */
export function parseReview(body: Buffer, contentType: string | undefined, t: SelfReviewTarget): { spec: ReviewSpec } {
  const kind = REVIEW_KINDS[t.review];
  const apiVersion = apiVersionOf(t);
  const media = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  const check = (gotKind: string, gotVersion: string): void => {
    // An empty kind/apiVersion is taken from the path, as kube-apiserver defaults them.
    if ((gotKind && gotKind !== kind) || (gotVersion && gotVersion !== apiVersion)) {
      throw badRequest(`the body is a ${gotVersion || '?'} ${gotKind || '?'}, not the ${apiVersion} ${kind} this path takes`);
    }
  };
  let doc: unknown;
  if (media === PROTOBUF) {
    try {
      doc = decodeKubeProtobuf(body).object;
    } catch (e: unknown) {
      if (!(e instanceof ProtobufError)) throw e;
      if (e.reason === 'malformed') throw badRequest(`the body is not a protobuf-encoded ${kind}: ${e.message}`);
      throw new StatusError(status(415, 'UnsupportedMediaType', `the protobuf body cannot be read as a ${kind}: ${e.message}`));
    }
  } else if (media === 'application/json' || media === '*/*') {
    try {
      doc = JSON.parse(body.toString('utf8'));
    } catch {
      throw badRequest(`the body is not JSON: a ${kind} was expected`);
    }
  } else {
    throw new StatusError(status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, ${PROTOBUF}`));
  }
  if (!isObject(doc)) throw badRequest(`the body is not a ${kind} object`);
  check(str(doc, 'kind'), str(doc, 'apiVersion'));
  const spec = isObject(doc.spec) ? doc.spec : {};
  if (t.review === 'rules') return { spec: { namespace: str(spec, 'namespace') } };
  if (isObject(spec.resourceAttributes)) {
    const r = spec.resourceAttributes;
    return { spec: { resourceAttributes: { namespace: str(r, 'namespace'), verb: str(r, 'verb'), group: str(r, 'group'), version: str(r, 'version'), resource: str(r, 'resource'), subresource: str(r, 'subresource'), name: str(r, 'name') } } };
  }
  if (isObject(spec.nonResourceAttributes)) {
    const n = spec.nonResourceAttributes;
    return { spec: { nonResourceAttributes: { path: str(n, 'path'), verb: str(n, 'verb') } } };
  }
  return { spec };
}

/** A review's answer: the reviewed object with its status, as kube-apiserver sends it (201 Created). */
export async function answerSelfReview(req: IncomingMessage, res: ServerResponse, t: SelfReviewTarget, user: UserInfo, secure: boolean, authority: ReviewAuthority,
  signal: AbortSignal, forwarded: readonly string[]): Promise<Record<string, unknown>> {
  const { spec } = parseReview(await readBody(req, res, signal, MAX_REVIEW_BYTES), req.headers['content-type'], t);
  const metadata = { creationTimestamp: kubeTime(Date.now()) };
  if (t.review === 'subject') {
    const userInfo: Record<string, unknown> = { username: user.name, groups: user.groups };
    if (user.uid) userInfo.uid = user.uid;
    if (Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
    return { kind: 'SelfSubjectReview', apiVersion: `authentication.k8s.io/${t.version}`, metadata, status: { userInfo } };
  }
  if (t.review === 'rules') return { kind: 'SelfSubjectRulesReview', apiVersion: apiVersionOf(t), metadata, spec: { namespace: spec.namespace ?? '' }, status: await rulesOf(t, user, secure, authority) };
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) throw invalidSpec('exactly one of nonResourceAttributes or resourceAttributes must be specified');
  const answer = await decideReview(spec, t, user, secure, authority, forwarded);
  return { kind: 'SelfSubjectAccessReview', apiVersion: `authorization.k8s.io/${t.version}`, metadata, spec, status: answer };
}

function invalidSpec(message: string): StatusError {
  return new StatusError(status(422, 'Invalid', `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec: Invalid value: ${message}`));
}

async function decideReview(spec: ReviewSpec, t: SelfReviewTarget, user: UserInfo, secure: boolean, a: ReviewAuthority, forwarded: readonly string[]): Promise<AccessStatus> {
  const insecure: AccessStatus = { allowed: true, reason: 'the insecure port serves every reader without authorization' };
  const decide = async (attrs: Attributes): Promise<AccessStatus> => {
    const d = await a.authz.decide(user, attrs);
    return { allowed: d.allowed, ...(d.reason ? { reason: d.reason } : {}) };
  };
  const n = spec.nonResourceAttributes;
  if (n) {
    if (isPublicPath(n.path) && n.verb === 'get') return { allowed: true, reason: `${n.path} is served to anyone` };
    if (!secure) return insecure;
    return decide({ nonResource: { path: n.path, verb: n.verb } });
  }
  const r = spec.resourceAttributes!;
  // An exec, attach or port-forward forwarded to a member is created, a proxy takes every verb (below); anything else
  // here is read or refused.
  const writesHere = t.fleet && r.group === '' && (isInteractiveSubresource(r.subresource) || r.subresource === 'proxy') && forwarded.includes(`${r.resource}/${r.subresource}`);
  if (!READ_VERBS.includes(r.verb) && !writesHere) return { allowed: false, reason: `clusterpedia serves reads only (get, list, watch), not ${JSON.stringify(r.verb)}` };
  if (!t.fleet) {
    // At the root: clusterpedia's own resources (resources, collectionresources, pediaclusters), asked as they are.
    if (!secure) return insecure;
    return decide({ resource: { group: r.group, version: r.version, resource: r.resource, verb: r.verb, ...(r.name ? { name: r.name } : {}), ...(r.namespace ? { namespace: r.namespace } : {}), ...(r.subresource ? { subresource: r.subresource } : {}) } });
  }
  // A stored object's status and scale are read with get (resources.ts); one forwarded to the member (a pod's log,
  // binding --allowed-proxy-subresources) with get through a cluster's path; any other needs the member itself.
  const forwardedHere = r.subresource !== '' && r.group === '' && forwarded.includes(`${r.resource}/${r.subresource}`);
  // A log is read (get); an exec or attach session is created, over WebSocket's GET too (authz-attributes.ts); a proxy
  // has the verb of its method.
  const forwardedVerbs = r.subresource === 'proxy' ? PROXY_VERBS : [isInteractiveSubresource(r.subresource) ? 'create' : 'get'];
  if (forwardedHere && (!forwardedVerbs.includes(r.verb) || t.cluster === undefined)) {
    return { allowed: false, reason: `${r.resource}/${r.subresource} is forwarded to the member with ${forwardedVerbs.join(', ')}, through one cluster's path (kubectl --cluster <name>)` };
  }
  if (r.subresource && !forwardedHere && !(r.verb === 'get' && (r.subresource === 'status' || r.subresource === 'scale'))) {
    return { allowed: false, reason: `of subresources, only status and scale are served${forwarded.length > 0 ? ` and ${forwarded.join(', ')} forwarded` : ''}, with get (not ${r.verb} ${r.subresource})` };
  }
  if (!secure) return insecure;
  // Every member resource is read through clusterpedia.io's `resources`, as the gate authorizes a request to it; what
  // is forwarded, through `resources/<subresource>` (authz-attributes.ts).
  const fleet = await decide({ resource: { group: 'clusterpedia.io', version: 'v1beta1', resource: 'resources', verb: r.verb, ...(forwardedHere ? { subresource: r.subresource } : {}) } });
  if (!fleet.allowed || !a.perCluster || user.groups.includes(MASTERS_GROUP)) return fleet;
  if (t.cluster !== undefined) return decide(clusterAttributes(t.cluster, r.verb));
  const { readable, total } = await readableClusters(a, user, r.verb);
  if (readable.length === 0 && total > 0) return { allowed: false, reason: `no member cluster may be read (clusters in clusterpedia.io, per cluster): answers would be empty` };
  if (readable.length < total) return { allowed: true, reason: narrowedTo(readable) };
  return fleet;
}

/** With per-cluster authorization: the member clusters `user` may read with `verb`, sorted, and how many there are. */
async function readableClusters(a: ReviewAuthority, user: UserInfo, verb: string): Promise<{ readable: string[]; total: number }> {
  const all = [...await a.clusters()];
  return { readable: [...await allowedClusters(a.authz, user, verb, all)].sort(), total: all.length };
}

const narrowedTo = (readable: readonly string[]): string => `answers hold only the member clusters you may read: ${named(readable)}`;

/** The verbs of a proxied request (kube's for its methods). */
const PROXY_VERBS = ['get', 'create', 'update', 'patch', 'delete'];

/** The paths anyone may read. */
const PUBLIC_RULE = { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version'] };

/**
 * `kubectl auth can-i --list`: what the caller may do through the path it asked at, as rules. Under the resources
 * prefix every member resource reads through clusterpedia.io `resources`, so the rule is `*.*` with the verbs it is
 * allowed there (and, for a cluster's path, in that cluster); with per-cluster authorization on the fleet path the
 * list is marked incomplete and says which clusters answers are narrowed to. At the root: clusterpedia's own resources.
 */
async function rulesOf(t: SelfReviewTarget, user: UserInfo, secure: boolean, a: ReviewAuthority): Promise<Record<string, unknown>> {
  const allowedVerbs = async (attrs: (verb: string) => Attributes[]): Promise<string[]> => {
    if (!secure) return READ_VERBS;
    const out: string[] = [];
    for (const verb of READ_VERBS) {
      let ok = true;
      for (const at of attrs(verb)) if (!(await a.authz.decide(user, at)).allowed) ok = false;
      if (ok) out.push(verb);
    }
    return out;
  };
  const resource = (group: string, version: string, name: string) => (verb: string): Attributes => ({ resource: { group, version, resource: name, verb } });
  const resourceRules: Record<string, unknown>[] = [];
  let evaluationError: string | undefined;
  if (t.fleet) {
    const perCluster = a.perCluster && secure && !user.groups.includes(MASTERS_GROUP);
    const verbs = await allowedVerbs((verb) => [
      resource('clusterpedia.io', 'v1beta1', 'resources')(verb),
      ...(perCluster && t.cluster !== undefined ? [clusterAttributes(t.cluster, verb)] : []),
    ]);
    if (verbs.length > 0) resourceRules.push({ verbs, apiGroups: ['*'], resources: ['*'] });
    if (perCluster && t.cluster === undefined && verbs.length > 0) {
      const { readable, total } = await readableClusters(a, user, 'list');
      if (readable.length < total) evaluationError = readable.length === 0 ? 'no member cluster may be read: answers would be empty' : narrowedTo(readable);
    }
  } else {
    for (const [group, version, name] of [['clusterpedia.io', 'v1beta1', 'resources'], ['clusterpedia.io', 'v1beta1', 'collectionresources'], ['cluster.clusterpedia.io', 'v1alpha2', 'pediaclusters']] as const) {
      const verbs = await allowedVerbs((verb) => [resource(group, version, name)(verb)]);
      if (verbs.length > 0) resourceRules.push({ verbs, apiGroups: [group], resources: [name] });
    }
  }
  return { resourceRules, nonResourceRules: [PUBLIC_RULE], incomplete: evaluationError !== undefined, ...(evaluationError ? { evaluationError } : {}) };
}
