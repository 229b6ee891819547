// Kubernetes Status bodies for every failure the simulator answers, and the error that carries one to the HTTP edge.

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: Record<string, unknown>;
  code: number;
}

/** A failure with its Status; identified by `code` (STYLE §10), rendered by the one catch in the server. */
export class SimStatusError extends Error {
  readonly code = 'SimStatusError';
  constructor(readonly status: KubeStatus) {
    super(status.message);
    this.name = 'SimStatusError';
  }
}

export function isStatusError(e: unknown): e is SimStatusError {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'SimStatusError';
}

export function statusBody(code: number, reason: string, message: string, details?: Record<string, unknown>, metadata: { continue?: string } = {}): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

function fail(code: number, reason: string, message: string, details?: Record<string, unknown>, metadata?: { continue?: string }): SimStatusError {
  return new SimStatusError(statusBody(code, reason, message, details, metadata));
}

/** `gr` is the qualified resource ("pods", "deployments.apps"), as kube names it in messages. */
function splitGr(gr: string): { group?: string; kind: string } {
  const dot = gr.indexOf('.');
  return dot < 0 ? { kind: gr } : { group: gr.slice(dot + 1), kind: gr.slice(0, dot) };
}

/** One field's fault in a 422: `reason` as kube's field.ErrorType names it (FieldValueInvalid unless said). */
export interface FieldCause {
  field: string;
  detail: string;
  reason?: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueNotSupported';
}

/** 422 Invalid for every fault found: kube lists more than one in brackets. */
function invalidFields(kind: string, name: string, group: string, causes: FieldCause[]): SimStatusError {
  const text = causes.map((c) => `${c.field}: ${c.detail}`);
  const listed = text.length === 1 ? text[0] : `[${text.join(', ')}]`;
  return fail(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${listed}`, {
    name, group, kind, causes: causes.map((c) => ({ reason: c.reason ?? 'FieldValueInvalid', message: c.detail, field: c.field })),
  });
}

export const errors = {
  notFound: (gr: string, name: string) => fail(404, 'NotFound', `${gr} "${name}" not found`, { name, ...splitGr(gr) }),
  noRoute: () => fail(404, 'NotFound', 'the server could not find the requested resource', {}),
  alreadyExists: (gr: string, name: string) => fail(409, 'AlreadyExists', `${gr} "${name}" already exists`, { name, ...splitGr(gr) }),
  conflict: (gr: string, name: string) => fail(409, 'Conflict', `Operation cannot be fulfilled on ${gr} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, ...splitGr(gr) }),
  badRequest: (message: string) => fail(400, 'BadRequest', message),
  invalid: (kind: string, name: string, field: string, detail: string, group = '') => invalidFields(kind, name, group, [{ field, detail }]),
  invalidFields,
  forbidden: (message: string) => fail(403, 'Forbidden', message),
  methodNotAllowed: () => fail(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'),
  /** A body in a format this simulator does not decode (protobuf). */
  unsupportedBody: (type: string) => fail(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json (got ${type})`),
  /** A PATCH of a type not served; a custom resource has no strategic merge patch. */
  unsupportedMediaType: (type: string, custom = false) => fail(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json${custom ? '' : ', application/strategic-merge-patch+json'} (got ${type})`),
  expired: (message: string, continueToken?: string) => fail(410, 'Expired', message, undefined, continueToken ? { continue: continueToken } : undefined),
  tooLargeResourceVersion: (requested: number, current: number) =>
    fail(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 }),
  unauthorized: () => fail(401, 'Unauthorized', 'Unauthorized'),
  injected: (code: number, retryAfterSeconds?: number) => {
    const reason = code === 429 ? 'TooManyRequests' : code === 503 ? 'ServiceUnavailable' : code === 504 ? 'Timeout' : code === 500 ? 'InternalError' : code === 409 ? 'Conflict' : 'Unknown';
    const message = code === 429 ? 'Too many requests, please try again later.' : code === 503 ? 'the server is currently unable to handle the request' : `simulated failure (HTTP ${code})`;
    return fail(code, reason, message, retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined);
  },
};
