// A small structural check of a value against a CRD's openAPIV3Schema: the subset the CRDs use (type, required,
// properties, items, minItems, enum, format byte/date-time, x-kubernetes-preserve-unknown-fields). Enough to
// show the examples are accepted and that required fields are really required; not a full apiserver validator.

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'boolean' | 'integer' | 'number';
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minimum?: number;
  enum?: unknown[];
  format?: string;
  description?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Problems found, each as "<path>: <what>"; empty when the value fits. */
export function check(value: unknown, schema: Schema, path = ''): string[] {
  const at = path || '<root>';
  const problems: string[] = [];
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at}: expected an object`];
      const obj = value as Record<string, unknown>;
      for (const r of schema.required ?? []) if (!(r in obj)) problems.push(`${at}: missing required field ${r}`);
      for (const [k, v] of Object.entries(obj)) {
        const sub = schema.properties?.[k];
        if (sub) problems.push(...check(v, sub, `${path}.${k}`));
        // The apiserver would prune it silently; for an example that is a typo.
        else if (schema.properties && !schema['x-kubernetes-preserve-unknown-fields']) problems.push(`${at}: unknown field ${k}`);
      }
      return problems;
    }
    case 'array': {
      if (!Array.isArray(value)) return [`${at}: expected an array`];
      if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${at}: needs at least ${schema.minItems} item(s)`);
      if (schema.items) value.forEach((v, i) => problems.push(...check(v, schema.items!, `${path}[${i}]`)));
      return problems;
    }
    case 'string':
      if (typeof value !== 'string') return [`${at}: expected a string`];
      if (schema.format === 'byte' && !BASE64.test(value)) problems.push(`${at}: not base64 (format: byte)`);
      if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) problems.push(`${at}: not a date-time`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return [`${at}: expected a boolean`];
      break;
    case 'integer':
      if (!Number.isInteger(value)) return [`${at}: expected an integer`];
      if (schema.minimum !== undefined && (value as number) < schema.minimum) problems.push(`${at}: below ${schema.minimum}`);
      break;
    case 'number':
      if (typeof value !== 'number') return [`${at}: expected a number`];
      break;
    case undefined:
      break;
  }
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${at}: not one of ${JSON.stringify(schema.enum)}`);
  return problems;
}

/** Every structural-schema rule the apiserver enforces on CRDs that this checker can see: each node has a type. */
export function untypedNodes(schema: Schema, path = ''): string[] {
  const out: string[] = [];
  if (schema.type === undefined && !schema['x-kubernetes-preserve-unknown-fields']) out.push(path || '<root>');
  for (const [k, v] of Object.entries(schema.properties ?? {})) out.push(...untypedNodes(v, `${path}.${k}`));
  if (schema.items) out.push(...untypedNodes(schema.items, `${path}[]`));
  if ('$ref' in schema) out.push(`${path || '<root>'}: $ref is not allowed in a structural schema`);
  return out;
}
