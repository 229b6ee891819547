// StorageError: driver errors interpreted once, at the dialect edge (STYLE §8), identified by code.

export type StorageErrorCode =
  /** The object or table asked for does not exist. */
  | 'NotFound'
  /** A uniqueness or concurrency conflict. */
  | 'Conflict'
  /** The database cannot be reached or is shutting down: retry later. */
  | 'Unavailable'
  /** The query input is invalid (e.g. a malformed or foreign continue token): answer 400. */
  | 'Invalid'
  /** The schema is newer than this binary or not migrated. */
  | 'SchemaMismatch'
  /** Anything else: a bug or a corrupted database. */
  | 'Internal';

export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly kind = 'StorageError';
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isStorageError(e: unknown): e is StorageError {
  return typeof e === 'object' && e !== null && (e as { kind?: unknown }).kind === 'StorageError';
}

/** A storage call given up after its deadline (lib/lifecycle.ts deadline()): retryable, as storage being unreachable is. */
export class UnansweredError extends StorageError {
  constructor(readonly ms: number) {
    super('Unavailable', `storage did not answer within ${ms} ms`, true);
  }
}

/**
 * A write refused because its writer no longer holds the lease that fences it (Storage.fenceWrites): another writer
 * took over. Retryable as every Conflict is: the writer's leader election notices the loss and stops it meanwhile.
 */
export function fencedError(what: string, lease: string): StorageError {
  return new StorageError('Conflict', `${what}: refused: this writer no longer holds storage lease ${lease} (another writer took over)`, true);
}
