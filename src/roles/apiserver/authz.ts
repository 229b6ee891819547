// May this user do this? Request attributes, AlwaysAllow or SubjectAccessReview to the host, kube's 403 wording.
import { createHash } from 'node:crypto';
import { forbidden, type StatusError } from '../../kube/status.js';
import { ReviewCache } from './authn-cache.js';
import type { UserInfo } from './authn.js';
import type { ReviewPoster } from './host-client.js';

const SUBJECT_ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
/** kube-apiserver lets this group do anything without asking an authorizer; so do we. */
export const MASTERS_GROUP = 'system:masters';

export interface ResourceAttributes {
  group: string;
  version: string;
  resource: string;
  verb: string;
  name?: string;
  namespace?: string;
  subresource?: string;
}

export interface NonResourceAttributes {
  path: string;
  verb: string;
}

export type Attributes = { resource: ResourceAttributes } | { nonResource: NonResourceAttributes };

export interface Decision {
  allowed: boolean;
  reason?: string;
}

export interface Authorizer {
  /** The decision; throws only when no decision could be had (host unreachable: 503). */
  decide(user: UserInfo, attrs: Attributes): Promise<Decision>;
}

/** --authorization-mode=AlwaysAllow: development and single-tenant setups. */
export const alwaysAllow: Authorizer = { decide: () => Promise.resolve({ allowed: true }) };

interface SarStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** --authorization-mode=Delegated: the host cluster's RBAC decides through SubjectAccessReview. */
export class DelegatedAuthorizer implements Authorizer {
  private readonly cache: ReviewCache<Decision>;

  constructor(private readonly host: ReviewPoster, ttlMs: number, now?: () => number) {
    this.cache = new ReviewCache({ ttlMs, ...(now ? { now } : {}) });
  }

  decide(user: UserInfo, attrs: Attributes): Promise<Decision> {
    if (user.groups.includes(MASTERS_GROUP)) return Promise.resolve({ allowed: true, reason: `member of ${MASTERS_GROUP}` });
    const spec: Record<string, unknown> = { user: user.name, groups: user.groups, extra: user.extra };
    if (user.uid) spec.uid = user.uid;
    if ('resource' in attrs) spec.resourceAttributes = attrs.resource;
    else spec.nonResourceAttributes = attrs.nonResource;
    // Allowed and denied answers are both cached: the key is the whole spec (user, groups, extra, attributes).
    const key = createHash('sha256').update(JSON.stringify(spec)).digest('base64url');
    return this.cache.get(key, async () => {
      const r = await this.host.post<SarStatus>(SUBJECT_ACCESS_REVIEWS, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
      const s = r.status ?? {};
      const reason = [s.reason, s.evaluationError].filter((x): x is string => typeof x === 'string' && x !== '').join('; ');
      return { allowed: s.allowed === true && s.denied !== true, ...(reason ? { reason } : {}) };
    });
  }
}

/** Throws 403 unless allowed. */
export async function authorize(authz: Authorizer, user: UserInfo, attrs: Attributes): Promise<void> {
  const d = await authz.decide(user, attrs);
  if (!d.allowed) throw forbiddenFor(user, attrs, d.reason);
}

/** kube-apiserver's Forbidden Status (responsewriters.Forbidden + errors.NewForbidden), message for message. */
export function forbiddenFor(user: UserInfo, attrs: Attributes, reason?: string): StatusError {
  const why = reason ? `: ${reason}` : '';
  if ('nonResource' in attrs) {
    return forbidden(`forbidden: User ${JSON.stringify(user.name)} cannot ${attrs.nonResource.verb} path ${JSON.stringify(attrs.nonResource.path)}${why}`, {});
  }
  const a = attrs.resource;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  const msg = `User ${JSON.stringify(user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} ${scope}${why}`;
  const gr = a.group ? `${a.resource}.${a.group}` : a.resource;
  const name = a.name ?? '';
  return forbidden(name ? `${gr} ${JSON.stringify(name)} is forbidden: ${msg}` : `${gr} is forbidden: ${msg}`, { name, group: a.group, kind: a.resource });
}
