// Jobs and CronJobs: ports of printJob (kube 1.32 STATUS column) and printCronJob.

import type { KubeObject } from '../types.js';
import {
  AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, ageOf, boolPtrCell, column, containerCells, nameOf,
  wide,
} from './columns.js';
import { DOC } from './descriptions.js';
import { humanDuration, translateTimestampSince } from './duration.js';
import { arr, at, int, obj, objects, optBool, optInt, optStr, parseTime } from './fields.js';
import { formatLabelSelector } from './labels.js';
import type { ResourcePrinter } from './types.js';

/** Port of hasJobCondition: the first condition of that type decides. */
function hasCondition(job: KubeObject, type: string): boolean {
  const c = objects(at(job, 'status', 'conditions')).find((cond) => cond.type === type);
  return c !== undefined && c.status === 'True';
}

/**
 * The STATUS cell. Order matters and is kube's: a finished job stays Complete/Failed even while
 * being deleted. kube 1.32 has no SuccessCriteriaMet case, so such a job reads Running until the
 * controller adds Complete.
 */
function jobStatus(job: KubeObject): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (parseTime(job.metadata?.deletionTimestamp) !== undefined) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** The COMPLETIONS cell: succeeded/completions, or `/1 of N` for a work queue run N-wide. */
function jobCompletions(job: KubeObject): string {
  const succeeded = int(at(job, 'status', 'succeeded'));
  const completions = optInt(at(job, 'spec', 'completions'));
  if (completions !== undefined) return `${succeeded}/${completions}`;
  const parallelism = optInt(at(job, 'spec', 'parallelism')) ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** The DURATION cell: '' before start, running time until completion, then start→completion. */
function jobDuration(job: KubeObject, now: Date): string {
  const start = parseTime(at(job, 'status', 'startTime'));
  if (start === undefined) return '';
  const completion = parseTime(at(job, 'status', 'completionTime'));
  return humanDuration((completion ?? now.getTime()) - start);
}

export const jobPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', DOC.jobSucceeded),
    column('Duration', 'string', 'Time required to complete the job.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    wide('Selector', 'string', DOC.jobSelector),
  ],
  cells(o, now) {
    return [
      nameOf(o),
      jobStatus(o),
      jobCompletions(o),
      jobDuration(o, now),
      ageOf(o, now),
      ...containerCells(at(o, 'spec', 'template', 'spec', 'containers')),
      formatLabelSelector(at(o, 'spec', 'selector')),
    ];
  },
};

export const cronJobPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Schedule', 'string', DOC.cronSchedule),
    column('Timezone', 'string', DOC.cronTimeZone),
    column('Suspend', 'boolean', DOC.cronSuspend),
    column('Active', 'integer', DOC.cronActive),
    column('Last Schedule', 'string', DOC.cronLastSchedule),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    wide('Selector', 'string', DOC.jobSelector),
  ],
  cells(o, now) {
    const spec = obj(o.spec);
    const lastSchedule = at(o, 'status', 'lastScheduleTime');
    return [
      nameOf(o),
      optStr(spec.schedule) ?? '',
      optStr(spec.timeZone) ?? '<none>',
      // Column type is boolean but kube sends the printBoolPtr string.
      boolPtrCell(optBool(spec.suspend)),
      arr(at(o, 'status', 'active')).length,
      lastSchedule === undefined || lastSchedule === null ? '<none>' : translateTimestampSince(lastSchedule, now),
      ageOf(o, now),
      ...containerCells(at(spec, 'jobTemplate', 'spec', 'template', 'spec', 'containers')),
      formatLabelSelector(at(spec, 'jobTemplate', 'spec', 'selector')),
    ];
  },
};
