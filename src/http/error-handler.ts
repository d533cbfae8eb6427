import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../db/client';
import { AppError, errorEnvelope, type ErrorCode } from '../errors';

// Fastify's own errors, mapped once to the closed set of codes.
const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'request body must be application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'request body is larger than 1 MiB'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'request body is empty but the content type is application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['validation_error', 'Content-Length does not match the body'],
};

function toAppError(error: FastifyError | AppError): AppError {
  if (error instanceof AppError) return error;
  const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (mapped) return new AppError(mapped[0], mapped[1]);
  if (error instanceof SyntaxError && error.statusCode === 400) return new AppError('invalid_json', 'request body is not valid JSON');
  // The pool reconnects by itself within a second or so of the database coming back.
  if (isDatabaseUnavailable(error)) {
    return new AppError('service_unavailable', 'the database is unavailable; try again later', [], { 'retry-after': '5' });
  }
  // Anything else is our failure: the client gets a generic message, the log gets the error.
  return new AppError('internal_error', 'internal server error');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    void reply
      .code(appError.status)
      .headers(appError.headers)
      .send(errorEnvelope(appError, request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(errorEnvelope(new AppError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`), request.id));
  });
}
