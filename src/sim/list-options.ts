// Query parameters of list and watch requests, validated the way kube-apiserver validates ListOptions.
import { parseFieldSelector, type FieldRequirement } from './field-selector.js';
import { parseLabelSelector, type LabelSelector } from './label-selector.js';
import { errors } from './status.js';

export interface ListOptions {
  labelSelectorText: string;
  fieldSelectorText: string;
  labelSelector: LabelSelector;
  fieldSelector: FieldRequirement[];
  limit: number;
  continueToken: string;
  resourceVersion: string;
  resourceVersionMatch: '' | 'Exact' | 'NotOlderThan';
  watch: boolean;
  allowWatchBookmarks: boolean;
  timeoutSeconds: number | undefined;
  sendInitialEvents: boolean | undefined;
}

function invalid(field: string, detail: string): never {
  throw errors.invalid('ListOptions', '', field, detail, 'meta.k8s.io');
}

/** Parses and validates; selector syntax errors surface as SelectorError (400), option conflicts as 422/400 Status. */
export function parseListOptions(q: URLSearchParams, legacyWatchPath: boolean): ListOptions {
  const bool = (name: string): boolean | undefined => {
    const v = q.get(name);
    if (v === null || v === '') return undefined;
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    throw errors.badRequest(`invalid boolean value for ${name}: "${v}"`);
  };
  const limitText = q.get('limit') ?? '';
  const limit = limitText === '' ? 0 : Number(limitText);
  if (!Number.isInteger(limit)) throw errors.badRequest(`limit: Invalid value: "${limitText}": must be an integer`);
  const timeoutText = q.get('timeoutSeconds');
  const timeoutSeconds = timeoutText === null || timeoutText === '' ? undefined : Number(timeoutText);
  if (timeoutSeconds !== undefined && !Number.isFinite(timeoutSeconds)) throw errors.badRequest(`timeoutSeconds: Invalid value: "${timeoutText}"`);
  const rvm = q.get('resourceVersionMatch') ?? '';
  if (rvm !== '' && rvm !== 'Exact' && rvm !== 'NotOlderThan') invalid('resourceVersionMatch', `Unsupported value: "${rvm}": supported values: "Exact", "NotOlderThan", ""`);
  const opts: ListOptions = {
    labelSelectorText: q.get('labelSelector') ?? '',
    fieldSelectorText: q.get('fieldSelector') ?? '',
    labelSelector: parseLabelSelector(q.get('labelSelector') ?? ''),
    fieldSelector: parseFieldSelector(q.get('fieldSelector') ?? ''),
    limit: Math.max(0, limit),
    continueToken: q.get('continue') ?? '',
    resourceVersion: q.get('resourceVersion') ?? '',
    resourceVersionMatch: rvm,
    watch: legacyWatchPath || bool('watch') === true,
    allowWatchBookmarks: bool('allowWatchBookmarks') === true,
    timeoutSeconds,
    sendInitialEvents: bool('sendInitialEvents'),
  };
  if (opts.resourceVersion !== '' && !/^\d+$/.test(opts.resourceVersion)) throw errors.badRequest(`invalid resource version: ${JSON.stringify(opts.resourceVersion)}`);
  if (opts.sendInitialEvents !== undefined) {
    if (!opts.watch) invalid('sendInitialEvents', 'Forbidden: sendInitialEvents is forbidden for list');
    if (opts.resourceVersionMatch !== 'NotOlderThan') invalid('resourceVersionMatch', 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    if (opts.sendInitialEvents && !opts.allowWatchBookmarks) invalid('allowWatchBookmarks', 'Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true');
  } else if (opts.watch && opts.resourceVersionMatch !== '') {
    invalid('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
  if (!opts.watch && opts.resourceVersionMatch !== '') {
    if (opts.resourceVersion === '') invalid('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (opts.continueToken !== '') invalid('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (opts.resourceVersionMatch === 'Exact' && opts.resourceVersion === '0') invalid('resourceVersionMatch', 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  if (!opts.watch && opts.continueToken !== '' && opts.resourceVersion !== '' && opts.resourceVersion !== '0') {
    throw errors.badRequest('specifying resource version is not allowed when using continue');
  }
  return opts;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

/** kube's continue token: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<key relative to the list prefix>\u0000"}. */
export function encodeContinue(rv: number, relativeStart: string): string {
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv, start: relativeStart };
  return Buffer.from(JSON.stringify(token)).toString('base64');
}

export function decodeContinue(token: string): { rv: number; start: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  const t = parsed as Partial<ContinueToken>;
  if (typeof t !== 'object' || t === null || t.v !== 'meta.k8s.io/v1') throw errors.badRequest(`continue key is not valid: server does not recognize this encoded version ${JSON.stringify(t?.v ?? '')}`);
  if (typeof t.rv !== 'number' || typeof t.start !== 'string' || t.start === '') throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (t.start.includes('..')) throw errors.badRequest('continue key is not valid: path traversal attempt detected');
  return { rv: t.rv, start: t.start };
}
