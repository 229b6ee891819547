// CEL admission policies (admissionregistration.k8s.io): ports of printValidatingAdmissionPolicy,
// printValidatingAdmissionPolicyBinding and their 1.32 alpha Mutating twins.

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf } from './columns.js';
import { arr, at, objAt, str } from './fields.js';
import { labelSelectorStructString } from './labels.js';
import type { ResourcePrinter } from './types.js';

const PARAM_KIND_COLUMN = column(
  'ParamKind',
  'string',
  'ParamKind specifies the kind of resources used to parameterize this policy',
);

/** `apiVersion/kind` of spec.paramKind, `<unset>` for a policy without parameters. */
function paramKind(o: KubeObject): string {
  const kind = objAt(o, 'spec', 'paramKind');
  return kind === undefined ? '<unset>' : `${str(kind.apiVersion)}/${str(kind.kind)}`;
}

/** A policy printer: how many rules of `field` (validations, mutations) it holds, and its param kind. */
function policyPrinter(countColumn: string, countDescription: string, field: string): ResourcePrinter {
  return {
    columns: [NAME_COLUMN, column(countColumn, 'integer', countDescription), PARAM_KIND_COLUMN, AGE_COLUMN],
    cells(o, now) {
      return [nameOf(o), arr(at(o, 'spec', field)).length, paramKind(o), ageOf(o, now)];
    },
  };
}

export const validatingAdmissionPolicyPrinter = policyPrinter(
  'Validations',
  'Validations indicates the number of validation rules defined in this configuration',
  'validations',
);

export const mutatingAdmissionPolicyPrinter = policyPrinter(
  'Mutations',
  'Mutation indicates the number of mutations rules defined in this configuration',
  'mutations',
);

/**
 * The ParamRef cell: `namespace/name` for a named param, with namespace `*` when none is given (kube
 * cannot tell a cluster-scoped param from here); else the selector in Go struct notation; else `<unset>`.
 */
function paramRef(o: KubeObject): string {
  const ref = objAt(o, 'spec', 'paramRef');
  if (ref === undefined) return '<unset>';
  const name = str(ref.name);
  if (name !== '') return str(ref.namespace) === '' ? `*/${name}` : `${str(ref.namespace)}/${name}`;
  const selector = objAt(ref, 'selector');
  return selector === undefined ? '<unset>' : labelSelectorStructString(selector);
}

/** Validating and mutating policy bindings print the same: the bound policy and the param reference. */
export const admissionPolicyBindingPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [nameOf(o), str(at(o, 'spec', 'policyName')), paramRef(o), ageOf(o, now)];
  },
};
