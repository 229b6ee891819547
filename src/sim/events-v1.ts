// events.k8s.io/v1 Events: the same objects as core/v1 Events (one stored object, one resourceVersion, seen by the
// watches of both), under other field names, as kube-apiserver converts them through its internal Event type.
import { errors, type FieldCause } from './status.js';
import type { SimObject } from './types.js';

const isSet = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== 0;
const orNull = (v: unknown): unknown => v ?? null;
const asRecord = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : {});

/**
 * A stored (core/v1) Event as events.k8s.io/v1 serves it, fields in kube's order. Go's omitempty leaves out empty
 * strings and numbers but not structs: `regarding` and `deprecatedSource` are always there, and the times are null.
 */
export function eventFromCore(o: SimObject): SimObject {
  const out: SimObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: o.metadata, eventTime: orNull(o.eventTime) };
  if (o.series) out.series = o.series;
  if (isSet(o.reportingComponent)) out.reportingController = o.reportingComponent;
  if (isSet(o.reportingInstance)) out.reportingInstance = o.reportingInstance;
  if (isSet(o.action)) out.action = o.action;
  if (isSet(o.reason)) out.reason = o.reason;
  out.regarding = asRecord(o.involvedObject);
  if (o.related) out.related = o.related;
  if (isSet(o.message)) out.note = o.message;
  if (isSet(o.type)) out.type = o.type;
  out.deprecatedSource = asRecord(o.source);
  out.deprecatedFirstTimestamp = orNull(o.firstTimestamp);
  out.deprecatedLastTimestamp = orNull(o.lastTimestamp);
  if (isSet(o.count)) out.deprecatedCount = o.count;
  return out;
}

/** An events.k8s.io/v1 Event as it is stored (core/v1), with what core/v1 always carries. */
export function eventToCore(o: SimObject): SimObject {
  const out: SimObject = { apiVersion: 'v1', kind: 'Event', metadata: o.metadata, involvedObject: asRecord(o.regarding) };
  if (isSet(o.reason)) out.reason = o.reason;
  if (isSet(o.note)) out.message = o.note;
  out.source = asRecord(o.deprecatedSource);
  out.firstTimestamp = orNull(o.deprecatedFirstTimestamp);
  out.lastTimestamp = orNull(o.deprecatedLastTimestamp);
  if (isSet(o.deprecatedCount)) out.count = o.deprecatedCount;
  if (isSet(o.type)) out.type = o.type;
  out.eventTime = orNull(o.eventTime);
  if (o.series) out.series = o.series;
  if (isSet(o.action)) out.action = o.action;
  if (o.related) out.related = o.related;
  out.reportingComponent = typeof o.reportingController === 'string' ? o.reportingController : '';
  out.reportingInstance = typeof o.reportingInstance === 'string' ? o.reportingInstance : '';
  return out;
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
