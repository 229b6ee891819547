// The `as=` transformations kube-apiserver offers through Accept (meta.k8s.io v1 and v1beta1): Table for kubectl,
// PartialObjectMetadata(List) for metadata-only clients. Media ranges are taken in the client's order; the first one
// the request can be answered with wins, and a plain JSON range means the object itself.

export type Transform = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

export function transformOf(accept: string | undefined, list: boolean): Transform | undefined {
  for (const part of (accept ?? '').split(',')) {
    const [type = '', ...params] = part.split(';').map((x) => x.trim());
    if (!['application/json', 'application/*', '*/*'].includes(type.toLowerCase())) continue;
    const p = new Map(params.map((x) => x.split('=').map((y) => y.trim()) as [string, string]));
    const as = p.get('as');
    if (as === undefined) return undefined;
    if (p.get('g') !== 'meta.k8s.io' || !['v1', 'v1beta1'].includes(p.get('v') ?? '')) continue;
    if (as === 'Table' || as === (list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata')) return as;
  }
  return undefined;
}

/** An object reduced to its metadata, as kube-apiserver answers `as=PartialObjectMetadata`. */
export function partialObjectMetadata(metadata: unknown): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
}
