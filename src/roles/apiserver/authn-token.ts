// Bearer tokens reviewed by the host cluster (TokenReview authentication.k8s.io/v1), answers cached by a keyed hash.
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ReviewCache } from './authn-cache.js';
import type { ReviewPoster } from './host-client.js';

const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';

export interface TokenUser {
  name: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, as kube), else undefined. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const h = headers.authorization;
  if (!h) return undefined;
  const m = /^bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

export class TokenReviewer {
  private readonly cache: ReviewCache<TokenUser | null>;
  /**
   * Cache keys are HMAC-SHA256(token) under a key made at start and never stored: a heap dump or a debug
   * print of the cache yields no token and no hash that could be checked against a guessed one (kube does the same).
   */
  private readonly hashKey = randomBytes(32);

  constructor(private readonly host: ReviewPoster, ttlMs: number, now?: () => number) {
    this.cache = new ReviewCache({ ttlMs, ...(now ? { now } : {}) });
  }

  /** The user the host says the token belongs to, or null when it is not a valid token. Host failures throw 503. */
  review(token: string): Promise<TokenUser | null> {
    const key = createHmac('sha256', this.hashKey).update(token).digest('base64url');
    return this.cache.get(key, async () => {
      const r = await this.host.post<TokenReviewStatus>(TOKEN_REVIEWS, {
        apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token },
      });
      const s = r.status;
      if (!s?.authenticated || !s.user?.username) return null;
      const user: TokenUser = { name: s.user.username, groups: [...(s.user.groups ?? [])], extra: { ...(s.user.extra ?? {}) } };
      if (s.user.uid) user.uid = s.user.uid;
      return user;
    });
  }
}
