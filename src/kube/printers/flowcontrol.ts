// API Priority and Fairness (flowcontrol.apiserver.k8s.io): ports of printFlowSchema and
// printPriorityLevelConfiguration.

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf } from './columns.js';
import { DOC } from './descriptions.js';
import { at, int, objAt, objects, optInt, str } from './fields.js';
import type { ResourcePrinter } from './types.js';

export const flowSchemaPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('PriorityLevel', 'string', DOC.fsPriorityLevel),
    column('MatchingPrecedence', 'string', DOC.fsMatchingPrecedence),
    column('DistinguisherMethod', 'string', DOC.fsDistinguisherMethod),
    AGE_COLUMN,
    column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  cells(o, now) {
    const method = objAt(o, 'spec', 'distinguisherMethod');
    // The first Dangling condition's status; `?` while the controller has not judged the reference yet.
    const dangling = objects(at(o, 'status', 'conditions')).find((c) => c.type === 'Dangling');
    return [
      nameOf(o),
      str(at(o, 'spec', 'priorityLevelConfiguration', 'name')),
      // Column type string, but kube sends the int32 as a number.
      int(at(o, 'spec', 'matchingPrecedence')),
      method === undefined ? '<none>' : str(method.type),
      ageOf(o, now),
      dangling === undefined ? '?' : str(dangling.status),
    ];
  },
};

/**
 * The four numbers of a Limited level, each `<none>` when kube has no struct to read it from: all four
 * for Exempt levels, the queuing three when a Limited level rejects instead of queuing.
 */
function limitCells(o: KubeObject): [unknown, unknown, unknown, unknown] {
  const limited = objAt(o, 'spec', 'limited');
  if (limited === undefined) return ['<none>', '<none>', '<none>', '<none>'];
  // v1beta1/v1beta2 name the shares assuredConcurrencyShares; conversion to the internal type renames them.
  const shares = optInt(limited.nominalConcurrencyShares) ?? int(limited.assuredConcurrencyShares);
  const queuing = objAt(limited, 'limitResponse', 'queuing');
  if (queuing === undefined) return [shares, '<none>', '<none>', '<none>'];
  return [shares, int(queuing.queues), int(queuing.handSize), int(queuing.queueLengthLimit)];
}

export const priorityLevelConfigurationPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', DOC.plType),
    column('NominalConcurrencyShares', 'string', DOC.plNominalConcurrencyShares),
    column('Queues', 'string', DOC.plQueues),
    column('HandSize', 'string', DOC.plHandSize),
    column('QueueLengthLimit', 'string', DOC.plQueueLengthLimit),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [nameOf(o), str(at(o, 'spec', 'type')), ...limitCells(o), ageOf(o, now)];
  },
};
