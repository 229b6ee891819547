// Deterministic SQL-injection probes: every parameter that reaches storage, with every injection string. Each probe
// must answer 4xx or an empty list (never rows, never 5xx); baselines prove the same probes do match real values.
import type { Agent } from 'undici';
import { INJECTIONS } from './corpus.js';
import { C, P } from './generate.js';

export interface ProbeResult {
  probes: number;
  /** Probes answered 200 with rows, or 5xx, or anything unexpected: should be empty. */
  failures: string[];
  /** Baselines (legitimate values in the same positions) that found rows, out of all baselines. */
  baselinesMatched: number;
  baselines: number;
  /** Pods counted by an unfiltered list, and by lists ordered by injection-laden field paths (must all agree). */
  podCounts: number[];
}

const e = encodeURIComponent;
/** What survives the selector grammar as a value (its punctuation and blanks cannot be part of one). */
const selectorSafe = (s: string): string => s.replace(/[\s,()=!<>]/g, '');

/** Paths whose answer must hold no rows when `v` is an injection string (and rows when it is a real value). */
function probePaths(v: string): string[] {
  const paths = [
    `${P}/api/v1/pods?clusters=${e(v)}`,
    `${P}/api/v1/pods?namespaces=${e(v)}`,
    `${P}/api/v1/pods?names=${e(v)}`,
    `${P}/clusters/member-1/api/v1/pods?ownerName=${e(v)}`,
    `${P}/clusters/member-1/api/v1/pods?ownerUID=${e(v)}`,
    `${P}/clusters/member-1/api/v1/pods?ownerName=${e(v)}&ownerGR=replicasets.apps`,
    `${P}/api/v1/pods?labelSelector=${e(`app=${v}`)}`,
    `${P}/api/v1/pods?labelSelector=${e(`app in (${selectorSafe(v)})`)}`,
    `${P}/api/v1/pods?labelSelector=${e(`search.clusterpedia.io/clusters=${v}`)}`,
    `${P}/api/v1/pods?labelSelector=${e(`search.clusterpedia.io/names in (${selectorSafe(v)})`)}`,
    `${P}/api/v1/pods?labelSelector=${e(`internalstorage.clusterpedia.io/fuzzy-name=${v}`)}`,
    `${P}/api/v1/pods?fieldSelector=${e(`metadata.name=${selectorSafe(v)}`)}`,
    `${P}/api/v1/pods?fieldSelector=${e(`status.phase in (${selectorSafe(v)})`)}`,
    `${P}/api/v1/pods?fieldSelector=${e(`metadata.annotations['${v.replaceAll("'", '')}']=x`)}`,
    `${P}/clusters/${e(v)}/api/v1/pods`,
    `${P}/clusters/member-1/api/v1/namespaces/${e(v)}/pods`,
    `${P}/clusters/member-1/api/v1/namespaces/default/pods/${e(v)}`,
    `${C}/any?groups=${e(v)}&limit=5`,
    `${C}/any?resources=${e(`apps/${v}`)}&limit=5`,
  ];
  return paths;
}

/** Paths whose answer must be a 400 for an injection string (they take only a closed set of values). */
function rejectPaths(v: string): string[] {
  return [
    `${P}/api/v1/pods?orderby=${e(v)}`,
    `${P}/api/v1/pods?continue=${e(v)}`,
    `${P}/api/v1/pods?since=${e(v)}`,
    `${P}/api/v1/pods?labelSelector=${e(`search.clusterpedia.io/orderby=${v}`)}`,
  ];
}

async function get(agent: Agent, origin: string, path: string): Promise<{ status: number; items?: number; body: string }> {
  const r = await agent.request({ origin, path, method: 'GET', headers: { accept: 'application/json' } });
  const body = await r.body.text();
  let items: number | undefined;
  try {
    const j = JSON.parse(body) as { items?: unknown[] };
    if (Array.isArray(j.items)) items = j.items.length;
  } catch {
    // not JSON: judged by status
  }
  return { status: r.statusCode, ...(items === undefined ? {} : { items }), body };
}

export async function runInjectionProbes(agent: Agent, origin: string): Promise<ProbeResult> {
  const out: ProbeResult = { probes: 0, failures: [], baselinesMatched: 0, baselines: 0, podCounts: [] };
  const fail = (path: string, why: string): void => void out.failures.push(`${why}: ${decodeURIComponent(path).slice(0, 200)}`);
  // One injection string at a time, its probes in parallel.
  for (const v of INJECTIONS) {
    await Promise.all([
      ...probePaths(v).map(async (path) => {
        out.probes++;
        const r = await get(agent, origin, path);
        if (r.status >= 500) fail(path, `status ${r.status}`);
        else if (r.status === 200 && (r.items ?? 0) > 0) fail(path, `matched ${r.items} rows`);
        else if (r.status !== 200 && (r.status < 400 || r.status >= 500)) fail(path, `unexpected status ${r.status}`);
      }),
      ...rejectPaths(v).map(async (path) => {
        out.probes++;
        const r = await get(agent, origin, path);
        if (r.status !== 400) fail(path, `status ${r.status}, expected 400`);
      }),
    ]);
  }
  // LIKE wildcards must be literal in fuzzy names: `app_1` would match `app-1…` if '_' reached LIKE unescaped.
  for (const v of ['app_1', 'a_p', 'p_d']) {
    out.probes++;
    const path = `${P}/api/v1/pods?labelSelector=${e(`internalstorage.clusterpedia.io/fuzzy-name=${v}`)}`;
    const r = await get(agent, origin, path);
    if (r.status !== 200 || r.items !== 0) fail(path, `status ${r.status} with ${r.items} rows, expected an empty list`);
  }
  // Baselines: real values in the same positions do find rows, so an empty answer above means something.
  const uid = await firstOwnerUid(agent, origin);
  const baselines = [
    `${P}/api/v1/pods?clusters=member-1&limit=1`, `${P}/api/v1/pods?namespaces=default&limit=1`, `${P}/api/v1/services?names=app-1&limit=1`,
    `${P}/apis/apps/v1/deployments?names=app-1&limit=1`, `${P}/clusters/member-1/apis/apps/v1/replicasets?ownerName=app-1`,
    `${P}/clusters/member-1/api/v1/pods?ownerUID=${e(uid)}`, `${P}/api/v1/pods?labelSelector=${e('app=app-1')}&limit=1`,
    `${P}/api/v1/pods?labelSelector=${e('search.clusterpedia.io/clusters=member-1')}&limit=1`,
    `${P}/api/v1/pods?labelSelector=${e('internalstorage.clusterpedia.io/fuzzy-name=app-1')}&limit=1`,
    `${P}/api/v1/pods?fieldSelector=${e('status.phase in (Running)')}&limit=1`, `${P}/clusters/member-1/api/v1/namespaces/default/pods?limit=1`,
    `${C}/any?groups=apps&limit=1`,
  ];
  for (const path of baselines) {
    out.baselines++;
    const r = await get(agent, origin, path);
    if (r.status === 200 && (r.items ?? 0) > 0) out.baselinesMatched++;
    else fail(path, `baseline found nothing (status ${r.status})`);
  }
  // Ordering by field paths full of quotes changes the order, never the set.
  for (const path of [`${P}/api/v1/pods`, ...INJECTIONS.slice(0, 12).map((v) => `${P}/api/v1/pods?orderby=${e(`.metadata.annotations['${v.replaceAll("'", '')}'] desc`)}`)]) {
    const r = await get(agent, origin, path);
    if (r.status === 200 && r.items !== undefined) out.podCounts.push(r.items);
    else if (r.status >= 500) fail(path, `status ${r.status}`);
  }
  return out;
}

async function firstOwnerUid(agent: Agent, origin: string): Promise<string> {
  const r = await agent.request({ origin, path: `${P}/clusters/member-1/apis/apps/v1/replicasets?limit=1`, method: 'GET' });
  const j = (await r.body.json()) as { items?: { metadata?: { uid?: string } }[] };
  return j.items?.[0]?.metadata?.uid ?? 'none';
}
