// Kubernetes-aware version ordering (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > anything else, alphabetically).

const RE = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Negative when `a` has higher priority than `b` (sorts preferred first). */
export function compareVersionPriority(a: string, b: string): number {
  const ka = key(a);
  const kb = key(b);
  if (ka && kb) {
    if (ka.stability !== kb.stability) return kb.stability - ka.stability;
    if (ka.major !== kb.major) return kb.major - ka.major;
    return kb.minor - ka.minor;
  }
  if (ka) return -1;
  if (kb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function key(v: string): { stability: number; major: number; minor: number } | undefined {
  const m = RE.exec(v);
  if (!m) return undefined;
  const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return { stability, major: Number(m[1]), minor: m[3] === undefined ? 0 : Number(m[3]) };
}
