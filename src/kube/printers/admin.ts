// Cluster administration kinds: ports of printRoleBinding, printClusterRoleBinding, printPriorityClass,
// printRuntimeClass, printLease, the webhook configuration printers, printCertificateSigningRequest,
// printClusterTrustBundle, and kube-aggregator's APIService convertor.

import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf, wide } from './columns.js';
import { DOC } from './descriptions.js';
import { humanDuration } from './duration.js';
import { arr, at, bool, int, objAt, objects, optInt, optStr, str } from './fields.js';
import type { ResourcePrinter } from './types.js';

/** Port of rbac.SubjectsStrings: users, groups and `namespace/name` service accounts. */
function subjects(list: unknown): [users: string, groups: string, serviceAccounts: string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of objects(list)) {
    if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
    else if (s.kind === 'User') users.push(str(s.name));
    else if (s.kind === 'Group') groups.push(str(s.name));
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingPrinter(kind: string, roleRefDoc: string): ResourcePrinter {
  return {
    columns: [
      NAME_COLUMN,
      column('Role', 'string', roleRefDoc),
      AGE_COLUMN,
      wide('Users', 'string', `Users in the ${kind}`),
      wide('Groups', 'string', `Groups in the ${kind}`),
      wide('ServiceAccounts', 'string', `ServiceAccounts in the ${kind}`),
    ],
    cells(o, now) {
      const roleRef = `${str(at(o, 'roleRef', 'kind'))}/${str(at(o, 'roleRef', 'name'))}`;
      return [nameOf(o), roleRef, ageOf(o, now), ...subjects(o.subjects)];
    },
  };
}

export const roleBindingPrinter = bindingPrinter('roleBinding', DOC.roleBindingRoleRef);
export const clusterRoleBindingPrinter = bindingPrinter('clusterRoleBinding', DOC.clusterRoleBindingRoleRef);

export const priorityClassPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Value', 'integer', DOC.pcValue),
    column('Global-Default', 'boolean', DOC.pcGlobalDefault),
    AGE_COLUMN,
    column('PreemptionPolicy', 'string', DOC.pcPreemptionPolicy),
  ],
  cells(o, now) {
    return [nameOf(o), int(o.value), bool(o.globalDefault), ageOf(o, now), optStr(o.preemptionPolicy) ?? ''];
  },
};

export const runtimeClassPrinter: ResourcePrinter = {
  // kube looks the description up in ObjectMeta's docs, which have no `handler`: it is empty.
  columns: [NAME_COLUMN, column('Handler', 'string', ''), AGE_COLUMN],
  cells(o, now) {
    return [nameOf(o), str(o.handler), ageOf(o, now)];
  },
};

export const leasePrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('Holder', 'string', DOC.leaseHolder), AGE_COLUMN],
  cells(o, now) {
    return [nameOf(o), str(at(o, 'spec', 'holderIdentity')), ageOf(o, now)];
  },
};

/** Mutating and validating webhook configurations print the same: how many webhooks they hold. */
export const webhookConfigurationPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [nameOf(o), arr(o.webhooks).length, ageOf(o, now)];
  },
};

/** Port of extractCSRStatus: Denied over Approved over Pending, then Failed and Issued flags. */
function csrStatus(o: Record<string, unknown>): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of objects(at(o, 'status', 'conditions'))) {
    if (c.type === 'Approved') approved = true;
    else if (c.type === 'Denied') denied = true;
    else if (c.type === 'Failed') failed = true;
  }
  let status = denied ? 'Denied' : approved ? 'Approved' : 'Pending';
  if (failed) status += ',Failed';
  if (str(at(o, 'status', 'certificate')) !== '') status += ',Issued';
  return status;
}

export const certificateSigningRequestPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    column('SignerName', 'string', DOC.csrSignerName),
    column('Requestor', 'string', DOC.csrRequest),
    column('RequestedDuration', 'string', DOC.csrExpirationSeconds),
    column('Condition', 'string', DOC.csrConditions),
  ],
  cells(o, now) {
    const seconds = optInt(at(o, 'spec', 'expirationSeconds'));
    return [
      nameOf(o),
      ageOf(o, now),
      str(at(o, 'spec', 'signerName')) || '<none>',
      str(at(o, 'spec', 'username')),
      seconds === undefined ? '<none>' : humanDuration(seconds * 1000),
      csrStatus(o),
    ];
  },
};

/** ClusterTrustBundles print no Age column in kube 1.32. */
export const clusterTrustBundlePrinter: ResourcePrinter = {
  columns: [NAME_COLUMN, column('SignerName', 'string', DOC.ctbSignerName)],
  cells(o) {
    return [nameOf(o), str(at(o, 'spec', 'signerName')) || '<none>'];
  },
};

/** kube-aggregator's APIService table: the backing service (or Local) and the Available condition. */
export const apiServicePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const service = objAt(o, 'spec', 'service');
    const available = objects(at(o, 'status', 'conditions')).find((c) => c.type === 'Available');
    let status = 'Unknown';
    if (available !== undefined) {
      const s = str(available.status);
      const reason = str(available.reason);
      status = s === 'True' || reason === '' ? s : `${s} (${reason})`;
    }
    return [
      nameOf(o),
      service === undefined ? 'Local' : `${str(service.namespace)}/${str(service.name)}`,
      status,
      ageOf(o, now),
    ];
  },
};
