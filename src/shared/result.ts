// The Result envelope every request returns: errors cross process boundaries as plain data, never as throws.

export type ErrorCode = 'bad-request' | 'unknown-channel' | 'not-found' | 'unavailable' | 'io' | 'internal';

export interface ResultError {
  code: ErrorCode;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ResultError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (code: ErrorCode, message: string): Result<never> => ({
  ok: false,
  error: { code, message },
});

/** Thrown by request handlers to answer a typed failure instead of `internal`. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
