// The standard Kubernetes list/watch query parameters, decoded and validated as kube-apiserver does.
import { badRequest, type StatusError } from '../../kube/status.js';
import { goQuote, parseInt64 } from '../../kube/selector-syntax.js';

/** The first value of a query key (Clusterpedia and kube both read only the first occurrence). */
export function firstParam(query: URLSearchParams, key: string): string | undefined {
  return query.get(key) ?? undefined;
}

/**
 * Kube's bool conversion (reference §2.2): absent → undefined; `0` or `false` in any case → false;
 * anything else, the empty string included, → true.
 */
export function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}

/** A 400 in the style of kube's field errors: `limit: Invalid value: "x": must be an integer`. */
export function invalidParam(param: string, value: string, why: string): StatusError {
  return badRequest(`${param}: Invalid value: ${goQuote(value)}: ${why}`);
}

/** A resourceVersion parameter, checked: kube parses one as an unsigned 64-bit integer too (this server issues no other). */
export function checkedResourceVersion(rv: string | undefined): string | undefined {
  if (rv === undefined) return rv;
  if (!/^\d+$/.test(rv)) throw invalidParam('resourceVersion', rv, 'must be a non-negative integer');
  // All digits but past 64 bits: saying "non-negative integer" of it would leave the user wondering what was wrong.
  if (rv.length > 20 || BigInt(rv) > UINT64_MAX) throw invalidParam('resourceVersion', rv, `must be a non-negative integer no greater than ${UINT64_MAX} (64 bits)`);
  return rv;
}

const UINT64_MAX = 2n ** 64n - 1n;

/** A decimal int64 as a JS number, saturated at MAX_SAFE_INTEGER (every use caps far lower anyway). */
export function parseIntParam(param: string, value: string): number {
  const n = parseInt64(value);
  if (n === undefined) throw invalidParam(param, value, 'must be an integer');
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(n > max ? max : n < -max ? -max : n);
}

export type ResourceVersionMatch = 'Exact' | 'NotOlderThan';

/** Kube's ListOptions as this server uses them. */
export interface KubeListOptions {
  watch: boolean;
  resourceVersion: string | undefined;
  resourceVersionMatch: ResourceVersionMatch | undefined;
  /** undefined when absent or 0 (kube then picks the timeout itself). */
  timeoutSeconds: number | undefined;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  /** The URL `limit`: undefined when absent, empty, 0 or negative (kube and Clusterpedia: no limit). */
  limit: number | undefined;
  /** The URL `continue` as given ('' counts as absent). */
  continue: string | undefined;
}

/** Kube's field.Forbidden / field.NotSupported texts, aggregated as kube prints an error list. */
function validate(o: KubeListOptions): string[] {
  const errs: string[] = [];
  const match = o.resourceVersionMatch ?? '';
  const forbidden = (field: string, why: string): void => void errs.push(`${field}: Forbidden: ${why}`);
  if (o.watch) {
    if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    }
    if (match !== '') {
      if (o.sendInitialEvents === undefined) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      if (match !== 'NotOlderThan') errs.push(`resourceVersionMatch: Unsupported value: ${goQuote(match)}: supported values: "NotOlderThan"`);
      if (o.continue !== undefined) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
    return errs;
  }
  if (match !== '') {
    if (!o.resourceVersion) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (o.continue !== undefined) forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errs.push(`resourceVersionMatch: Unsupported value: ${goQuote(match)}: supported values: "Exact", "NotOlderThan", ""`);
    }
    if (match === 'Exact' && o.resourceVersion === '0') forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  if (o.sendInitialEvents !== undefined) forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  return errs;
}

/**
 * Decodes kube's list options from the URL and applies kube-apiserver's ListOptions validation (with the
 * WatchList feature on, so `sendInitialEvents` is accepted for watches; the watch handler decides whether
 * it serves it). Deliberate differences: every failure is a 400 naming the parameter (kube answers 422
 * for the validation part), and a negative `timeoutSeconds` is rejected instead of ending the watch at once.
 */
export function parseKubeListOptions(query: URLSearchParams): KubeListOptions {
  const nonEmpty = (key: string): string | undefined => {
    const v = firstParam(query, key);
    return v === undefined || v === '' ? undefined : v;
  };
  const limitText = nonEmpty('limit');
  const limit = limitText === undefined ? undefined : parseIntParam('limit', limitText);
  const timeoutText = nonEmpty('timeoutSeconds');
  const timeout = timeoutText === undefined ? undefined : parseIntParam('timeoutSeconds', timeoutText);
  if (timeout !== undefined && timeout < 0) throw invalidParam('timeoutSeconds', timeoutText as string, 'must be a non-negative integer');
  const match = nonEmpty('resourceVersionMatch');
  const options: KubeListOptions = {
    watch: parseBool(firstParam(query, 'watch')) ?? false,
    resourceVersion: checkedResourceVersion(nonEmpty('resourceVersion')),
    resourceVersionMatch: match as ResourceVersionMatch | undefined,
    timeoutSeconds: timeout === 0 ? undefined : timeout,
    allowWatchBookmarks: parseBool(firstParam(query, 'allowWatchBookmarks')) ?? false,
    sendInitialEvents: parseBool(firstParam(query, 'sendInitialEvents')),
    limit: limit !== undefined && limit > 0 ? limit : undefined,
    continue: nonEmpty('continue'),
  };
  const errs = validate(options);
  if (errs.length === 1) throw badRequest(errs[0] as string);
  if (errs.length > 1) throw badRequest(`[${errs.join(', ')}]`);
  return options;
}
