// CRD additionalPrinterColumns (apiextensions-apiserver's tableconvertor) and the default convertor.

import { describe, expect, it } from 'vitest';
import { customResourcePrinter, defaultPrinter, resourcePrinterFor, tableFor, type PrinterColumn } from '../../../src/kube/printers/index.js';
import type { KubeObject } from '../../../src/kube/types.js';
import { DAY, HOUR, NOW, ago } from './clock.js';

const certificate: KubeObject = {
  apiVersion: 'cert-manager.io/v1',
  kind: 'Certificate',
  metadata: { name: 'web-tls', namespace: 'shop', creationTimestamp: ago(3 * DAY) },
  spec: { secretName: 'web-tls', dnsNames: ['a.example.com', 'b.example.com'], duration: 2160, renewRatio: 0.66 },
  status: {
    conditions: [
      { type: 'Issuing', status: 'False' },
      { type: 'Ready', status: 'True', message: 'Certificate is up to date and has not expired' },
    ],
    notAfter: '2024-08-30T12:00:00Z',
    renewalTime: ago(HOUR),
    revision: 4,
    details: { issuer: { name: 'le', kind: 'ClusterIssuer' }, note: '<b>&</b>' },
  },
};

const columns: PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Secret', type: 'string', jsonPath: '.spec.secretName' },
  { name: 'Issuer', type: 'string', jsonPath: '.spec.issuerRef.name', priority: 1 },
  { name: 'Status', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].message', priority: 1, description: 'Ready message' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

describe('CRD printer columns', () => {
  it('put Name first, then the CRD’s columns with kube’s default descriptions', () => {
    const printer = customResourcePrinter(columns);
    expect(printer.columns.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Secret', 'string', '', 0],
      ['Issuer', 'string', '', 1],
      ['Status', 'string', '', 1],
      ['Age', 'date', '', 0],
    ]);
    expect(printer.columns[2]?.description).toBe('Custom resource definition column (in JSONPath format): .spec.secretName');
    expect(printer.columns[4]?.description).toBe('Ready message');
  });

  it('evaluate each path against the object; a missing field leaves the cell null', () => {
    expect(customResourcePrinter(columns).cells(certificate, NOW)).toEqual(
      ['web-tls', 'True', 'web-tls', null, 'Certificate is up to date and has not expired', '3d'],
    );
  });

  it('serve Age alone when the CRD declares no columns', () => {
    const printer = customResourcePrinter([]);
    expect(printer.columns.map((c) => [c.name, c.type])).toEqual([['Name', 'string'], ['Age', 'date']]);
    expect(printer.cells(certificate, NOW)).toEqual(['web-tls', '3d']);
    expect(printer.cells({ metadata: { name: 'new' } }, NOW)).toEqual(['new', null]);
  });

  const cell = (type: string, jsonPath: string, o: KubeObject = certificate) =>
    customResourcePrinter([{ name: 'C', type, jsonPath }]).cells(o, NOW)[1];

  it.each<[string, string, unknown]>([
    ['.status.revision', 'string', '4'],
    ['.spec.renewRatio', 'string', '0.66'],
    ['.status.conditions[0].status', 'string', 'False'],
    ['.spec.dnsNames', 'string', '["a.example.com","b.example.com"]'],
    ['.status.details', 'string', '{"issuer":{"kind":"ClusterIssuer","name":"le"},"note":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e"}'],
    ['.spec.dnsNames[*]', 'string', 'a.example.com'],
    ['.status.revision', 'integer', 4],
    ['.spec.renewRatio', 'integer', 0],
    ['.spec.secretName', 'integer', null],
    ['.spec.renewRatio', 'number', 0.66],
    ['.status.revision', 'number', 4],
    ['.spec.secretName', 'boolean', null],
    ['.status.notAfter', 'date', '<invalid>'],
    ['.status.renewalTime', 'date', '60m'],
    ['.status.revision', 'date', null],
    ['.status.revision', 'object', null],
  ])('%s as %s', (jsonPath, type, want) => {
    expect(cell(type, jsonPath)).toEqual(want);
  });

  it('format values as Go would print them', () => {
    const o: KubeObject = { metadata: { name: 'x' }, spec: { on: true, big: 1234567.5, tiny: 0.00001, whole: 1e6, none: null, when: '', nulltext: 'null', later: ago(-DAY) } };
    expect(cell('string', '.spec.on', o)).toBe('true');
    expect(cell('boolean', '.spec.on', o)).toBe(true);
    expect(cell('string', '.spec.big', o)).toBe('1.2345675e+06');
    expect(cell('string', '.spec.tiny', o)).toBe('1e-05');
    expect(cell('string', '.spec.whole', o)).toBe('1000000');
    // jsonpath prints a null it found as <no value>; other types leave the cell null.
    expect(cell('string', '.spec.none', o)).toBe('<no value>');
    expect(cell('integer', '.spec.none', o)).toBeNull();
    expect(cell('date', '.spec.when', o)).toBe('<unknown>');
    expect(cell('date', '.spec.nulltext', o)).toBe('<unknown>');
    expect(cell('date', '.spec.later', o)).toBe('<invalid>');
  });

  it('leave the cell null when evaluation fails', () => {
    expect(cell('string', '.spec.dnsNames[7]')).toBeNull();
    expect(cell('string', '.spec.secretName[0]')).toBeNull();
  });

  it('fall back to the default convertor for a path kube could not parse', () => {
    expect(customResourcePrinter([{ name: 'Bad', type: 'string', jsonPath: '.spec[0,1]' }])).toBe(defaultPrinter);
  });

  it('come after the Cluster column in tableFor', () => {
    const printer = tableFor({ group: 'cert-manager.io', resource: 'certificates' }, columns);
    expect(printer.columns.map((c) => c.name)).toEqual(['Cluster', 'Name', 'Ready', 'Secret', 'Issuer', 'Status', 'Age']);
  });
});

describe('the default convertor', () => {
  it('prints Name and Created At in RFC 3339 for built-ins without a printer', () => {
    for (const gr of [{ group: 'rbac.authorization.k8s.io', resource: 'roles' }, { group: '', resource: 'limitranges' }, { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' }]) {
      expect(resourcePrinterFor(gr)).toBe(defaultPrinter);
    }
    expect(defaultPrinter.columns.map((c) => [c.name, c.type, c.format])).toEqual([['Name', 'string', 'name'], ['Created At', 'date', '']]);
    expect(defaultPrinter.cells({ metadata: { name: 'admin', creationTimestamp: '2024-05-01T08:30:00Z' } }, NOW)).toEqual(['admin', '2024-05-01T08:30:00Z']);
    expect(defaultPrinter.cells({ metadata: { name: 'off', creationTimestamp: '2024-05-01T10:30:00.750+02:00' } }, NOW)).toEqual(['off', '2024-05-01T08:30:00Z']);
    expect(defaultPrinter.cells({ metadata: { name: 'zero' } }, NOW)).toEqual(['zero', '0001-01-01T00:00:00Z']);
  });

  it('is not used for a custom resource whose CRD is unknown: that gets Name and Age', () => {
    const printer = resourcePrinterFor({ group: 'example.com', resource: 'widgets' });
    expect(printer.columns.map((c) => c.name)).toEqual(['Name', 'Age']);
    expect(printer.cells({ metadata: { name: 'w', creationTimestamp: ago(5 * HOUR) } }, NOW)).toEqual(['w', '5h']);
  });
});
