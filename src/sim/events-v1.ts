// events.k8s.io/v1 Events: the same objects as core/v1 Events (one stored object, one resourceVersion, seen by the
// watches of both), under other field names, as kube-apiserver converts them through its internal Event type.
import { errors, type FieldCause } from './status.js';
import type { SimObject } from './types.js';

const isSet = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== 0;

/**
 * How Go writes a field: `omitempty` leaves out an empty string, a zero, a nil pointer; a struct is always written
 * (`{}` when empty), a time as null when unset, and a string without omitempty as "".
 */
type Rule = 'omitempty' | 'struct' | 'time' | 'string';

/** events.k8s.io/v1's fields in its order: [its name, core/v1's name, how it is written]. */
const V1: [string, string, Rule][] = [
  ['eventTime', 'eventTime', 'time'], ['series', 'series', 'omitempty'], ['reportingController', 'reportingComponent', 'omitempty'],
  ['reportingInstance', 'reportingInstance', 'omitempty'], ['action', 'action', 'omitempty'], ['reason', 'reason', 'omitempty'],
  ['regarding', 'involvedObject', 'struct'], ['related', 'related', 'omitempty'], ['note', 'message', 'omitempty'], ['type', 'type', 'omitempty'],
  ['deprecatedSource', 'source', 'struct'], ['deprecatedFirstTimestamp', 'firstTimestamp', 'time'], ['deprecatedLastTimestamp', 'lastTimestamp', 'time'],
  ['deprecatedCount', 'count', 'omitempty'],
];

/** core/v1's fields in its order: [its name, events.k8s.io/v1's name, how it is written]. */
const CORE: [string, string, Rule][] = [
  ['involvedObject', 'regarding', 'struct'], ['reason', 'reason', 'omitempty'], ['message', 'note', 'omitempty'], ['source', 'deprecatedSource', 'struct'],
  ['firstTimestamp', 'deprecatedFirstTimestamp', 'time'], ['lastTimestamp', 'deprecatedLastTimestamp', 'time'], ['count', 'deprecatedCount', 'omitempty'],
  ['type', 'type', 'omitempty'], ['eventTime', 'eventTime', 'time'], ['series', 'series', 'omitempty'], ['action', 'action', 'omitempty'],
  ['related', 'related', 'omitempty'], ['reportingComponent', 'reportingController', 'string'], ['reportingInstance', 'reportingInstance', 'string'],
];

function convert(o: SimObject, apiVersion: string, fields: [string, string, Rule][]): SimObject {
  const out: SimObject = { apiVersion, kind: 'Event', metadata: o.metadata };
  for (const [name, from, rule] of fields) {
    const v = o[from];
    if (rule === 'omitempty') {
      if (isSet(v)) out[name] = v;
    } else if (rule === 'struct') out[name] = typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {};
    else if (rule === 'time') out[name] = v ?? null;
    else out[name] = typeof v === 'string' ? v : '';
  }
  return out;
}

/** A stored (core/v1) Event as events.k8s.io/v1 serves it. */
export function eventFromCore(o: SimObject): SimObject {
  return convert(o, 'events.k8s.io/v1', V1);
}

/** An events.k8s.io/v1 Event as it is stored (core/v1). */
export function eventToCore(o: SimObject): SimObject {
  return convert(o, 'v1', CORE);
}

/**
 * kube's checks of a new events.k8s.io/v1 Event (ValidateEventCreate for that version, in its order): what a recorder
 * must say. An Event written through core/v1 is held to none of it, which is why old ones lack these when read here.
 */
export function checkNewEvent(o: SimObject): void {
  const causes: FieldCause[] = [];
  const required = (field: string): void => { if (!isSet(o[field])) causes.push({ field, detail: 'Required value', reason: 'FieldValueRequired' }); };
  required('eventTime');
  if (o.type !== 'Normal' && o.type !== 'Warning') causes.push({ field: 'type', detail: `Invalid value: "": has invalid value: ${String(o.type ?? '')}` });
  for (const field of ['reportingController', 'reportingInstance', 'action', 'reason']) required(field);
  if (causes.length) throw errors.invalidFields('Event', o.metadata.name ?? o.metadata.generateName ?? '', 'events.k8s.io', causes);
}
