/** The closed set of error codes the API returns, and the one place they map to statuses. */
export const ERROR_STATUS = {
  validation_error: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  idempotency_conflict: 409,
  run_not_finished: 409,
  samples_expired: 410,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const forbidden = (message = 'you do not have access to this resource') => new AppError('forbidden', message);
export const unauthorized = (message = 'missing or invalid credentials') => new AppError('unauthorized', message);
export const validationError = (details: ErrorDetail[], message = 'request is invalid') =>
  new AppError('validation_error', message, details);
export const conflict = (message: string) => new AppError('conflict', message);

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details: ErrorDetail[]; request_id: string };
}

export function errorEnvelope(error: AppError, requestId: string): ErrorEnvelope {
  return { error: { code: error.code, message: error.message, details: error.details, request_id: requestId } };
}
