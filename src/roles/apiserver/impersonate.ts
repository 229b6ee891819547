// Impersonation (`kubectl --as`, `--as-group`, `--as-uid`, `--as-user-extra`) as kube-apiserver's filter does it:
// the caller must be allowed the `impersonate` verb on each thing it asks to be (users or serviceaccounts, groups,
// uids, userextras), and the request then runs as that user, through authorization and per-cluster scoping alike. So
// an administrator sees the fleet as a tenant sees it: `kubectl --as alice get pods -A` lists alice's clusters only.
// Without this the headers were ignored and the answer was the administrator's own.
import type { IncomingMessage } from 'node:http';
import { badRequest } from '../../kube/status.js';
import { ANONYMOUS, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from './authn.js';
import { forbiddenFor, type Attributes, type Authorizer } from './authz.js';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

interface Wanted {
  user: string;
  groups: string[];
  uid?: string;
  extra: Record<string, string[]>;
}

/** What the request asks to act as, or undefined when it asks nothing; 400 for a group, uid or extra without a user. */
export function impersonationOf(req: IncomingMessage): Wanted | undefined {
  // Every request passes here: one look at the header names, and the rest only for a request that impersonates.
  const asked = Object.keys(req.headers).filter((name) => name.startsWith('impersonate-'));
  if (asked.length === 0) return undefined;
  // All values of a header, whether Node joined them or not (it joins unknown repeated headers with ", ").
  const values = (name: string): string[] => req.headersDistinct[name] ?? [];
  const users = values(USER);
  const groups = values(GROUP);
  const uids = values(UID);
  const extra: Record<string, string[]> = {};
  for (const name of asked) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    let key: string;
    try {
      key = decodeURIComponent(name.slice(EXTRA_PREFIX.length)).toLowerCase();
    } catch {
      throw badRequest(`${name}: the key is not a valid percent-encoded string`);
    }
    extra[key] = values(name);
  }
  if (users.length === 0) {
    if (groups.length > 0 || uids.length > 0 || Object.keys(extra).length > 0) {
      throw badRequest('requested an impersonated group, uid or extra without impersonating a user (Impersonate-User)');
    }
    return undefined;
  }
  if (users.length > 1 || uids.length > 1) throw badRequest('Impersonate-User and Impersonate-Uid take one value each');
  const user = users[0] as string;
  if (user === '') throw badRequest('Impersonate-User is empty');
  return { user, groups, ...(uids[0] !== undefined ? { uid: uids[0] } : {}), extra };
}

/** The attributes the caller must be allowed, one per thing it asks to be, in kube's order. */
function checks(w: Wanted): Attributes[] {
  const out: Attributes[] = [];
  const r = (group: string, resource: string, name: string, extra: { namespace?: string; subresource?: string } = {}): Attributes =>
    // kube's object references: User, Group and ServiceAccount carry no apiVersion; UID and UserExtra authentication.k8s.io/v1.
    ({ resource: { group, version: group ? 'v1' : '', resource, verb: 'impersonate', name, ...extra } });
  if (w.user.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [namespace, name] = w.user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    out.push(namespace && name ? r('', 'serviceaccounts', name, { namespace }) : r('', 'users', w.user));
  } else {
    out.push(r('', 'users', w.user));
  }
  for (const g of w.groups) out.push(r('', 'groups', g));
  if (w.uid !== undefined) out.push(r('authentication.k8s.io', 'uids', w.uid));
  for (const [key, vs] of Object.entries(w.extra)) for (const v of vs) out.push(r('authentication.k8s.io', 'userextras', v, { subresource: key }));
  return out;
}

/**
 * The user the request acts as: the caller itself, or whom it impersonates once every `impersonate` check passed
 * (403 otherwise, in kube's words). `authz` undefined (the insecure port, which authorizes nothing) skips the checks.
 */
export async function actingUser(req: IncomingMessage, caller: UserInfo, authz: Authorizer | undefined): Promise<UserInfo> {
  const w = impersonationOf(req);
  if (!w) return caller;
  if (authz) {
    for (const attrs of checks(w)) {
      const d = await authz.decide(caller, attrs);
      if (!d.allowed) throw forbiddenFor(caller, attrs, d.reason);
    }
  }
  const groups = [...w.groups];
  if (w.user.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const namespace = w.user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')[0];
    if (namespace) for (const g of ['system:serviceaccounts', `system:serviceaccounts:${namespace}`]) if (!groups.includes(g)) groups.push(g);
  }
  // kube adds system:authenticated to anyone but the anonymous user (system:unauthenticated to that one).
  const implied = w.user === ANONYMOUS ? UNAUTHENTICATED_GROUP : AUTHENTICATED_GROUP;
  if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(implied);
  return { name: w.user, ...(w.uid !== undefined ? { uid: w.uid } : {}), groups, extra: w.extra, via: caller.via, impersonatedBy: caller.name };
}
