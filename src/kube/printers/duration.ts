// Ages as kube prints them: ports of k8s.io/apimachinery/pkg/util/duration and the printers' timestamp helpers.

import { parseTime } from './fields.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Go's int(x) conversion truncates toward zero; Math.floor would be wrong for negative durations. */
const trunc = Math.trunc;

/**
 * Port of duration.HumanDuration: a succinct duration with ~2-3 significant figures
 * (`119s`, `3m10s`, `70m`, `3h1m`, `47h`, `2d1h`, `8d`, `2y1d`, `8y`).
 * Up to 2 seconds in the future is tolerated as clock skew (`0s`); beyond that it is `<invalid>`.
 * @param ms duration in milliseconds (fractions allowed)
 */
export function humanDuration(ms: number): string {
  const seconds = trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = trunc(ms / SECOND) % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = trunc(ms / HOUR);
  if (hours < 8) {
    const m = trunc(ms / MINUTE) % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${trunc(hours / 24)}d` : `${trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = trunc(hours / 24) % 365;
    const y = trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${trunc(hours / 24 / 365)}y`;
}

/**
 * Port of duration.ShortHumanDuration: one unit only (`59s`, `1m`, `23h`, `364d`, `1y`), same
 * 2-second tolerance as humanDuration.
 * @param ms duration in milliseconds (fractions allowed)
 */
export function shortHumanDuration(ms: number): string {
  const seconds = trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = trunc(ms / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = trunc(ms / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${trunc(hours / 24)}d`;
  return `${trunc(ms / HOUR / 24 / 365)}y`;
}

/**
 * Port of printers.go translateTimestampSince (and translateMicroTimestampSince, which differs only
 * in the JSON precision): the age of a timestamp field, `<unknown>` when it is unset.
 */
export function translateTimestampSince(timestamp: unknown, now: Date): string {
  const t = parseTime(timestamp);
  if (t === undefined) return '<unknown>';
  return humanDuration(now.getTime() - t);
}
