// Content negotiation: picks the response form from the Accept header, as kube-apiserver does (406 when nothing fits).
import type { IncludeObject } from '../../kube/printers/index.js';
import { goQuote } from '../../kube/selector-syntax.js';
import { badRequest, notAcceptable } from '../../kube/status.js';

export type Wire = 'json' | 'yaml';
/** `as=` transformation requested through Accept parameters. */
export type Transform = 'none' | 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** The meta.k8s.io version a transformed answer is in: the one asked for (kube-apiserver serves both). */
export type MetaGroupVersion = 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

export interface Negotiated {
  wire: Wire;
  transform: Transform;
  /** The Content-Type to answer with. */
  contentType: string;
  /** meta.k8s.io/v1 unless the accepted media range asked for v1beta1. */
  meta: MetaGroupVersion;
}

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header || header.trim() === '') return [{ type: '*/*', params: new Map(), q: 1 }];
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [typePart, ...paramParts] = part.split(';');
    const type = (typePart ?? '').trim().toLowerCase();
    if (!type) continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim().toLowerCase();
      const v = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
      if (k === 'q') q = Number.isFinite(Number(v)) ? Number(v) : 0;
      else params.set(k, v);
    }
    ranges.push({ type, params, q });
  }
  // Stable sort by q (highest first): the client's order breaks ties.
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map((x) => x.r);
}

/**
 * Negotiates for a request. `allowed` lists the transformations the endpoint supports
 * (e.g. a list supports Table and PartialObjectMetadataList; a discovery document supports none).
 */
export function negotiate(accept: string | undefined, allowed: readonly Transform[] = ['none']): Negotiated {
  for (const r of parseAccept(accept)) {
    if (r.q <= 0) continue;
    const wire = wireOf(r.type);
    if (!wire) continue;
    const as = r.params.get('as');
    if (!as) {
      if (allowed.includes('none')) return { wire, transform: 'none', contentType: wire === 'json' ? 'application/json' : 'application/yaml', meta: 'meta.k8s.io/v1' };
      continue;
    }
    const g = r.params.get('g');
    const v = r.params.get('v');
    if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) continue;
    if (as === 'Table' || as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
      if (!allowed.includes(as)) continue;
      // v1beta1 is the same shape under another apiVersion (kubectl before 1.16 asked for it first).
      const base = wire === 'json' ? 'application/json' : 'application/yaml';
      return { wire, transform: as, contentType: `${base};as=${as};v=${v};g=meta.k8s.io`, meta: `meta.k8s.io/${v}` };
    }
  }
  throw notAcceptable(`only the following media types are accepted: application/json, application/yaml${allowed.filter((a) => a !== 'none').map((a) => `, application/json;as=${a};v=v1;g=meta.k8s.io`).join('')}`);
}

function wireOf(type: string): Wire | undefined {
  switch (type) {
    case 'application/json':
    case 'application/*':
    case '*/*':
    case '*':
      return 'json';
    case 'application/yaml':
    case 'application/x-yaml':
    case 'text/yaml':
      return 'yaml';
    default:
      return undefined;
  }
}

/**
 * The Table option includeObject as kube-apiserver reads it: Metadata when absent or empty; kubectl asks for Object
 * to sort by (`--sort-by`) or print (`-o custom-columns`, `-o jsonpath`) fields outside the metadata.
 */
export function includeObjectPolicy(url: URL): IncludeObject {
  const v = url.searchParams.get('includeObject') ?? '';
  if (v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`unrecognized includeObject value: ${goQuote(v)}`);
}
