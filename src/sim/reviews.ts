// TokenReview and SubjectAccessReview answers, configured by tests (a function or a table) for host-cluster mode.

export interface ReviewUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface TokenReviewAnswer {
  authenticated: boolean;
  user?: ReviewUser;
  audiences?: string[];
  error?: string;
}

export interface SubjectAccessReviewSpec {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  resourceAttributes?: { namespace?: string; verb?: string; group?: string; version?: string; resource?: string; subresource?: string; name?: string };
  nonResourceAttributes?: { path?: string; verb?: string };
}

export interface SubjectAccessReviewAnswer {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export type TokenReviewHandler = (token: string, audiences: string[]) => TokenReviewAnswer | Promise<TokenReviewAnswer>;
export type SubjectAccessReviewHandler = (spec: SubjectAccessReviewSpec) => SubjectAccessReviewAnswer | Promise<SubjectAccessReviewAnswer>;

/** The answers a cluster gives; replace either handler, or use the table helpers. */
export class Reviews {
  /** Default: only the cluster's own token authenticates, as user "sim-admin" in system:masters. */
  tokenReview: TokenReviewHandler;
  /** Default: everything is allowed. */
  subjectAccessReview: SubjectAccessReviewHandler = () => ({ allowed: true, reason: 'simulated: allowed by default' });

  constructor(ownToken: () => string | undefined) {
    this.tokenReview = (token) => (token !== '' && token === ownToken()
      ? { authenticated: true, user: { username: 'sim-admin', uid: 'sim-admin', groups: ['system:masters', 'system:authenticated'] } }
      : { authenticated: false, error: 'invalid bearer token' });
  }

  /** Token → user table: tokens not in the table are not authenticated. */
  setTokenTable(table: Record<string, ReviewUser>): void {
    this.tokenReview = (token) => {
      const user = table[token];
      return user ? { authenticated: true, user } : { authenticated: false, error: 'invalid bearer token' };
    };
  }

  /** Allows exactly the (user, verb, resource) triples listed; "*" matches any verb or resource. */
  setAccessTable(rules: Array<{ user: string; verb: string; resource: string; group?: string }>): void {
    this.subjectAccessReview = (spec) => {
      const ra = spec.resourceAttributes ?? {};
      const ok = rules.some((r) => r.user === spec.user && (r.verb === '*' || r.verb === ra.verb) && (r.resource === '*' || r.resource === ra.resource) && (r.group === undefined || r.group === (ra.group ?? '')));
      return ok ? { allowed: true, reason: 'allowed by the simulated access table' } : { allowed: false, reason: 'not in the simulated access table' };
    };
  }
}
