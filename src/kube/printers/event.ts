// Events: port of printEvent (LAST SEEN from series or timestamps, OBJECT as kind/name, wide SOURCE),
// for core v1 Events and for events.k8s.io Events, which kube serves from the same storage.

import type { KubeObject } from '../types.js';
import { NAME_COLUMN, column, nameOf, wide } from './columns.js';
import { DOC } from './descriptions.js';
import { translateTimestampSince } from './duration.js';
import { int, obj, objAt, parseTime, str, type JsonObject } from './fields.js';
import type { ResourcePrinter } from './types.js';

/** The fields printEvent reads, under their core/v1 names. */
interface CoreEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: JsonObject;
  source: JsonObject;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  eventTime: unknown;
  count: number;
  series: JsonObject | undefined;
  reportingController: string;
  reportingInstance: string;
}

function fromCore(e: KubeObject): CoreEvent {
  return {
    type: str(e.type),
    reason: str(e.reason),
    message: str(e.message),
    involvedObject: obj(e.involvedObject),
    source: obj(e.source),
    firstTimestamp: e.firstTimestamp,
    lastTimestamp: e.lastTimestamp,
    eventTime: e.eventTime,
    count: int(e.count),
    series: objAt(e, 'series'),
    // core/v1 names the internal ReportingController field `reportingComponent`.
    reportingController: str(e.reportingComponent),
    reportingInstance: str(e.reportingInstance),
  };
}

/** The events.k8s.io/v1 → core conversion (pkg/apis/events/v1 conversion), field for field. */
function fromEventsGroup(e: KubeObject): CoreEvent {
  return {
    type: str(e.type),
    reason: str(e.reason),
    message: str(e.note),
    involvedObject: obj(e.regarding),
    source: obj(e.deprecatedSource),
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    eventTime: e.eventTime,
    count: int(e.deprecatedCount),
    series: objAt(e, 'series'),
    reportingController: str(e.reportingController),
    reportingInstance: str(e.reportingInstance),
  };
}

function firstNonEmpty(...values: string[]): string {
  return values.find((v) => v !== '') ?? '';
}

/** Port of formatEventSource: `component, host`, falling back to the reporting controller/instance. */
function eventSource(e: CoreEvent): string {
  const component = firstNonEmpty(str(e.source.component), e.reportingController);
  const instance = firstNonEmpty(str(e.source.host), e.reportingInstance);
  return instance === '' ? component : `${component}, ${instance}`;
}

function eventCells(e: CoreEvent, name: string, now: Date): unknown[] {
  // Events of the new API have no firstTimestamp: their eventTime stands in.
  const firstSeen =
    parseTime(e.firstTimestamp) === undefined
      ? translateTimestampSince(e.eventTime, now)
      : translateTimestampSince(e.firstTimestamp, now);
  let lastSeen = parseTime(e.lastTimestamp) === undefined ? firstSeen : translateTimestampSince(e.lastTimestamp, now);
  let count = e.count;
  if (e.series !== undefined) {
    lastSeen = translateTimestampSince(e.series.lastObservedTime, now);
    count = int(e.series.count);
  } else if (count === 0) {
    // Singleton events don't have a count set in the new API.
    count = 1;
  }
  const kind = str(e.involvedObject.kind).toLowerCase();
  const target = str(e.involvedObject.name) !== '' ? `${kind}/${str(e.involvedObject.name)}` : kind;
  return [
    lastSeen,
    e.type,
    e.reason,
    target,
    str(e.involvedObject.fieldPath),
    eventSource(e),
    e.message.trim(),
    firstSeen,
    count,
    name,
  ];
}

const EVENT_COLUMNS = [
  column('Last Seen', 'string', DOC.eventLastTimestamp),
  column('Type', 'string', DOC.eventType),
  column('Reason', 'string', DOC.eventReason),
  column('Object', 'string', DOC.eventInvolvedObject),
  wide('Subobject', 'string', DOC.fieldPath),
  wide('Source', 'string', DOC.eventSource),
  column('Message', 'string', DOC.eventMessage),
  wide('First Seen', 'string', DOC.eventFirstTimestamp),
  wide('Count', 'string', DOC.eventCount),
  { ...NAME_COLUMN, priority: 1 },
];

export const eventPrinter: ResourcePrinter = {
  columns: EVENT_COLUMNS,
  cells: (o, now) => eventCells(fromCore(o), nameOf(o), now),
};

export const eventsGroupEventPrinter: ResourcePrinter = {
  columns: EVENT_COLUMNS,
  cells: (o, now) => eventCells(fromEventsGroup(o), nameOf(o), now),
};
