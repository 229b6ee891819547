// Jobs and CronJobs: kube's TestPrintJob and TestPrintCronJob cases, and the kube 1.32 STATUS rules.

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/types.js';
import { HOUR, MINUTE, SECOND, ago } from './clock.js';
import { cellsOf, columnsOf } from './helpers.js';

const containers = [
  { name: 'fake-job-container1', image: 'fake-job-image1' },
  { name: 'fake-job-container2', image: 'fake-job-image2' },
];

function job(spec: Record<string, unknown>, status: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'job1', creationTimestamp: ago(-1900), ...meta },
    spec: { template: { spec: { containers } }, selector: { matchLabels: { 'job-name': 'job1' } }, ...spec },
    status,
  };
}

describe('jobs', () => {
  it('have kube 1.32’s columns, STATUS included', () => {
    expect(columnsOf('batch', 'jobs')).toEqual([
      ['Name', 'string', 'name', 0],
      ['Status', 'string', '', 0],
      ['Completions', 'string', '', 0],
      ['Duration', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ]);
  });

  it.each<[string, KubeObject, unknown[]]>([
    ['completions set, not started', job({ completions: 2 }, { succeeded: 1 }), ['job1', 'Running', '1/2', '', '0s']],
    ['no completions, parallelism 1', job({ parallelism: 1 }, { succeeded: 0 }), ['job1', 'Running', '0/1', '', '0s']],
    ['no completions, parallelism 2: a work queue', job({ parallelism: 2 }, { succeeded: 0 }), ['job1', 'Running', '0/1 of 2', '', '0s']],
    [
      'finished: start to completion',
      job({ completions: 2 }, {
        succeeded: 2,
        startTime: ago(3 * MINUTE),
        completionTime: ago(3 * MINUTE - 31 * SECOND),
        conditions: [{ type: 'Complete', status: 'True' }],
      }),
      ['job1', 'Complete', '2/2', '31s', '0s'],
    ],
    ['running: start to now', job({ completions: 2 }, { succeeded: 1, startTime: ago(10 * HOUR) }), ['job1', 'Running', '1/2', '10h', '0s']],
    ['failed', job({}, { conditions: [{ type: 'Failed', status: 'True' }] }), ['job1', 'Failed', '0/1', '', '0s']],
    ['suspended', job({ suspend: true }, { conditions: [{ type: 'Suspended', status: 'True' }] }), ['job1', 'Suspended', '0/1', '', '0s']],
    ['failure target', job({}, { conditions: [{ type: 'FailureTarget', status: 'True' }] }), ['job1', 'FailureTarget', '0/1', '', '0s']],
    [
      'success criteria met before Complete: still Running in kube 1.32',
      job({}, { conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }] }),
      ['job1', 'Running', '0/1', '', '0s'],
    ],
    ['being deleted', job({}, {}, { deletionTimestamp: ago(SECOND) }), ['job1', 'Terminating', '0/1', '', '0s']],
    [
      'complete wins over deletion',
      job({}, { conditions: [{ type: 'Complete', status: 'True' }] }, { deletionTimestamp: ago(SECOND) }),
      ['job1', 'Complete', '0/1', '', '0s'],
    ],
    [
      'a False condition does not count, and the first of a type decides',
      job({}, { conditions: [{ type: 'Failed', status: 'False' }, { type: 'Suspended', status: 'False' }, { type: 'Suspended', status: 'True' }] }),
      ['job1', 'Running', '0/1', '', '0s'],
    ],
  ])('%s', (_name, j, want) => {
    expect(cellsOf('batch', 'jobs', j).slice(0, 5)).toEqual(want);
  });

  it('print containers, images and selector wide', () => {
    expect(cellsOf('batch', 'jobs', job({ completions: 1 })).slice(5)).toEqual(
      ['fake-job-container1,fake-job-container2', 'fake-job-image1,fake-job-image2', 'job-name=job1'],
    );
  });
});

describe('cronjobs (TestPrintCronJob)', () => {
  const cron = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({
    metadata: { name: 'cronjob1', creationTimestamp: ago(-1900) },
    spec: {
      schedule: '0/5 * * * ?',
      jobTemplate: { spec: { template: { spec: { containers } }, selector: { matchLabels: { a: 'b' } } } },
      ...spec,
    },
    status,
  });

  it('have printCronJob’s columns', () => {
    expect(columnsOf('batch', 'cronjobs').map((c) => `${c[0]}:${c[1]}:${c[3]}`)).toEqual([
      'Name:string:0', 'Schedule:string:0', 'Timezone:string:0', 'Suspend:boolean:0', 'Active:integer:0',
      'Last Schedule:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1',
    ]);
  });

  it.each<[string, KubeObject, unknown[]]>([
    ['suspended, scheduled 30s ago', cron({ suspend: false }, { lastScheduleTime: ago(30 * SECOND) }), ['cronjob1', '0/5 * * * ?', '<none>', 'False', 0, '30s', '0s']],
    ['never scheduled', cron({ suspend: false }), ['cronjob1', '0/5 * * * ?', '<none>', 'False', 0, '<none>', '0s']],
    ['suspend unset, two active jobs', cron({}, { active: [{ name: 'a' }, { name: 'b' }] }), ['cronjob1', '0/5 * * * ?', '<none>', '<unset>', 2, '<none>', '0s']],
    ['with a time zone', cron({ timeZone: 'Europe/Paris', suspend: true }), ['cronjob1', '0/5 * * * ?', 'Europe/Paris', 'True', 0, '<none>', '0s']],
  ])('%s', (_name, c, want) => {
    expect(cellsOf('batch', 'cronjobs', c).slice(0, 7)).toEqual(want);
  });

  it('print the job template’s containers and selector wide', () => {
    expect(cellsOf('batch', 'cronjobs', cron({})).slice(7)).toEqual(
      ['fake-job-container1,fake-job-container2', 'fake-job-image1,fake-job-image2', 'a=b'],
    );
  });
});
