// The gate every request passes before routing: public path? → authenticate → authorize → per-cluster checks.
import type { IncomingMessage } from 'node:http';
import type { SetFilter } from '../../storage/types.js';
import type { AuthnContext, Authenticator, UserInfo } from './authn.js';
import { attributesFor, clusterAttributes, clusterOf, isPublicPath, requestVerb } from './authz-attributes.js';
import { clusterScope, type ClusterScope } from './authz-clusters.js';
import { authorize, MASTERS_GROUP, type Authorizer } from './authz.js';
import type { ReviewAuthority } from './self-review.js';
import { actingUser } from './impersonate.js';
import type { RequestTarget } from './request-info.js';

/** What the handlers learn about the caller. */
export interface RequestAccess {
  user: UserInfo;
  /** Present when the rows a list/watch/collection reads must be narrowed to the clusters the user may read. */
  clusters?: ClusterScope;
}

export interface AccessGateDeps {
  authn: Authenticator;
  authz: Authorizer;
  /** --authorization-per-cluster */
  perCluster: boolean;
  /** The member clusters that exist now (the catalog's). */
  clusters: () => Promise<Iterable<string>>;
}

export class AccessGate {
  constructor(private readonly d: AccessGateDeps) {}

  /** What a SelfSubjectAccessReview is answered with: the same authorizer and cluster list as requests. */
  get authority(): ReviewAuthority {
    return { authz: this.d.authz, perCluster: this.d.perCluster, clusters: this.d.clusters };
  }

  /**
   * Admits the request or throws a Status: 401 (not authenticated), 403 (denied), 503 (the host cannot
   * review). Returns undefined for public paths, which are served to anyone without looking at credentials.
   * The insecure loopback port authenticates (so forged identity headers are still refused) but does not
   * authorize: it is the development port where everything is anonymous.
   */
  async admit(req: IncomingMessage, ctx: AuthnContext, pathname: string, target: RequestTarget): Promise<RequestAccess | undefined> {
    if (isPublicPath(pathname)) return undefined;
    const caller = await this.d.authn.authenticate(req, ctx);
    // kubectl --as: from here on the request acts as whom it impersonates, once the caller may (impersonate.ts).
    const user = await actingUser(req, caller, ctx.secure ? this.d.authz : undefined);
    if (!ctx.secure) return { user };
    // Any authenticated user may ask about itself, as kube's system:basic-user role allows; the review's answer is
    // where authorization happens (self-review.ts).
    if (target.kind === 'selfReview') return { user };
    const verb = requestVerb(req.method, target);
    await authorize(this.d.authz, user, attributesFor(target, pathname, verb));
    if (!this.d.perCluster || user.groups.includes(MASTERS_GROUP)) return { user };
    const cluster = clusterOf(target);
    if (cluster !== undefined) {
      await authorize(this.d.authz, user, clusterAttributes(cluster, verb));
      return { user };
    }
    if (target.kind === 'resource' || target.kind === 'collection' || target.kind === 'openapi') return { user, clusters: clusterScope(this.d.authz, user, verb, this.d.clusters) };
    return { user };
  }
}

/** The clusters filter a handler must use: narrowed to the caller's clusters when per-cluster authorization applies. */
export async function scopedClusters(access: RequestAccess | undefined, filter: SetFilter | undefined): Promise<SetFilter | undefined> {
  return access?.clusters ? access.clusters.narrow(filter) : filter;
}
