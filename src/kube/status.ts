// Kubernetes Status objects: what every error leaving the HTTP server becomes (STYLE §9).

export type StatusReason =
  | 'BadRequest' | 'Unauthorized' | 'Forbidden' | 'NotFound' | 'MethodNotAllowed' | 'NotAcceptable'
  | 'Conflict' | 'Gone' | 'Expired' | 'Invalid' | 'TooManyRequests' | 'InternalError'
  | 'ServiceUnavailable' | 'Timeout' | 'AlreadyExists' | 'UnsupportedMediaType' | 'RequestEntityTooLarge' | '';

/** metav1.StatusCause as it is marshalled: its Type is the JSON key `reason`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** An error that carries the Status it should be answered with. Identified by `code === 'KubeStatus'`. */
export class StatusError extends Error {
  readonly code = 'KubeStatus';
  constructor(readonly status: Status, options?: { cause?: unknown }) {
    super(status.message, options);
    this.name = 'StatusError';
  }
  get httpCode(): number {
    return this.status.code;
  }
}

export function isStatusError(e: unknown): e is StatusError {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'KubeStatus'
    && typeof (e as { status?: unknown }).status === 'object';
}

export function status(code: number, reason: StatusReason, message: string, details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) s.details = details;
  return s;
}

export const badRequest = (message: string): StatusError => new StatusError(status(400, 'BadRequest', message));
export const unauthorized = (message = 'Unauthorized'): StatusError => new StatusError(status(401, 'Unauthorized', message));
export const forbidden = (message: string, details?: StatusDetails): StatusError =>
  new StatusError(status(403, 'Forbidden', message, details));
export const notFound = (message = 'the server could not find the requested resource', details?: StatusDetails): StatusError =>
  new StatusError(status(404, 'NotFound', message, details ?? {}));
export const methodNotSupported = (verb: string, what: string): StatusError =>
  new StatusError(status(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${what}"`, {}));
export const notAcceptable = (message: string): StatusError => new StatusError(status(406, 'NotAcceptable', message));
export const conflict = (message: string, details?: StatusDetails): StatusError =>
  new StatusError(status(409, 'Conflict', message, details));
/** 410 Expired: a resourceVersion or continue token older than what is retained. */
export const expired = (message: string): StatusError => new StatusError(status(410, 'Expired', message));
export const invalid = (message: string, causes?: StatusCause[]): StatusError =>
  new StatusError(status(422, 'Invalid', message, causes ? { causes } : undefined));
export const tooManyRequests = (message: string, retryAfterSeconds: number): StatusError =>
  new StatusError(status(429, 'TooManyRequests', message, { retryAfterSeconds }));
export const internalError = (message: string): StatusError => new StatusError(status(500, 'InternalError', message));
export const serviceUnavailable = (message: string, retryAfterSeconds?: number): StatusError =>
  new StatusError(status(503, 'ServiceUnavailable', message, retryAfterSeconds ? { retryAfterSeconds } : undefined));
