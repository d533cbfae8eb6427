import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { isDatabaseUnavailable } from '../db/client';
import { AppError, errorEnvelope, type ErrorCode } from '../errors';
import { zodValidationError } from '../parse-or-throw';

/**
 * Validates the request parts a route declares (its zod params, querystring and body schemas).
 * A failure is the API's validation_error with every bad field by its path, exactly what
 * parseOrThrow gives a service. A missing body counts as `{}`, so a body whose fields are all
 * optional may be left out. Fastify checks params, then body, then querystring.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data ?? {});
    return result.success ? { value: result.data } : { error: zodValidationError(result.error) };
  };

// Fastify's own errors, mapped once to the closed set of codes.
const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'request body must be application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'request body is larger than 1 MiB'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'request body is empty but the content type is application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['validation_error', 'Content-Length does not match the body'],
  FST_ERR_BAD_URL: ['validation_error', 'the URL is malformed (invalid percent-encoding)'],
  FST_ERR_MAX_PARAM_LENGTH: ['uri_too_long', 'a path parameter is longer than 100 characters'],
  FST_ERR_VALIDATION: ['validation_error', 'request is invalid'],
  // RFC 10008: a QUERY request must carry a Content-Type. No route takes QUERY, so it is a 404
  // anyway; this mapping is for the case a route ever does (sendError answers the 404 first).
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: ['validation_error', 'a request with this method must have a Content-Type header'],
};

// Any other 4xx error of Fastify's (code FST_…) is the client's doing: its status picks the code.
const FASTIFY_STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  404: 'not_found',
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'request_header_fields_too_large',
};

function fastifyClientError(error: FastifyError): AppError | null {
  const status = error.statusCode ?? 0;
  if (!error.code?.startsWith('FST_') || status < 400 || status > 499) return null;
  return new AppError(FASTIFY_STATUS_CODES[status] ?? 'validation_error', 'the request is invalid');
}

/**
 * The client went away while its body was being read: Node fails the body stream with
 * `Error: aborted` (code ECONNRESET). That is the client's doing, and the answer cannot be
 * delivered anyway, so it is neither a 500 nor an error-level log.
 */
function isClientAbort(error: FastifyError | AppError): boolean {
  // Both, so that a reset of our own connection (to the database, say) stays a 500.
  return !(error instanceof AppError) && error.code === 'ECONNRESET' && error.message === 'aborted';
}

function toAppError(error: FastifyError | AppError): AppError {
  if (error instanceof AppError) return error;
  if (isClientAbort(error)) return new AppError('validation_error', 'the client closed the connection before the request body was complete');
  const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (mapped) return new AppError(mapped[0], mapped[1]);
  const clientError = fastifyClientError(error);
  if (clientError) return clientError;
  if (error instanceof SyntaxError && error.statusCode === 400) return new AppError('invalid_json', 'request body is not valid JSON');
  // The pool reconnects by itself within a second or so of the database coming back.
  if (isDatabaseUnavailable(error)) {
    return new AppError('service_unavailable', 'the database is unavailable; try again later', [], { 'retry-after': '5' });
  }
  // Anything else is our failure: the client gets a generic message, the log gets the error.
  return new AppError('internal_error', 'internal server error');
}

function notFoundError(request: FastifyRequest): AppError {
  return new AppError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`);
}

/**
 * The most a refused upload is read and dropped for (the body limit is 1 MiB): past it, or past a
 * declared Content-Length above it, the connection is closed instead.
 */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

/**
 * A body refused before it was read (413): Fastify answers with `Connection: close` (and Node does
 * for a client that sent it), and Node then closes the socket with the upload still arriving —
 * the client's kernel gets a reset and may drop our 413 unread. Instead the connection stays open
 * while Node reads and drops the rest of the body (`req._dump`, or the flowing stream Fastify
 * left), so the client reads its 413; an explicit keep-alive is the only way to stop Node's close,
 * and a client that asked to close closes once it has the answer. Bounded: MAX_DRAINED_BYTES, and
 * the request timeout (the whole request must arrive within it) cuts a client that never finishes.
 */
function drainRefusedUpload(request: FastifyRequest, reply: FastifyReply): void {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (!(declared <= MAX_DRAINED_BYTES) || request.raw.complete) return;
  reply.header('connection', 'keep-alive');
  let drained = 0;
  request.raw.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAINED_BYTES) request.raw.socket.destroy();
  });
}

function sendError(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply): void {
  // A method no route takes lands on the not-found route; Fastify may refuse it before our 404
  // handler runs (QUERY without a Content-Type): the client gets the 404 it would have got.
  const appError = request.is404 && error.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE' ? notFoundError(request) : toAppError(error);
  if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  else if (isClientAbort(error)) request.log.info({ code: error.code }, 'client aborted the request');
  // Nothing a client sends is an error of ours: log its 4xx at info, with Fastify's code, never at error.
  else if (!(error instanceof AppError)) request.log.info({ code: error.code, status: appError.status }, 'request refused');
  if (appError.code === 'payload_too_large') drainRefusedUpload(request, reply);
  void reply
    .code(appError.status)
    .header('x-request-id', request.id)
    .headers(appError.headers)
    .send(errorEnvelope(appError, request.id));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorEnvelope(notFoundError(request), request.id));
  });
}

/**
 * Fastify's `frameworkErrors` option: errors the router raises before a route (and so before any
 * hook) runs — a malformed percent-encoding in the path (FST_ERR_BAD_URL), a path parameter over
 * maxParamLength (FST_ERR_MAX_PARAM_LENGTH, 414). Without it Fastify answers its own body shape
 * and no X-Request-Id.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(error, request, reply);
}

// Node's HTTP parser errors, before any request exists: the only ones that deserve their own status.
const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['request_header_fields_too_large', 'the request headers are larger than the server accepts (16 KiB)'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'the request was not received in time'],
};
/** How long a socket answered with a parser error may linger while the client reads the answer. */
const CLIENT_ERROR_LINGER_MS = 5_000;

/**
 * Fastify's `clientErrorHandler` option, Node's `clientError` event: the HTTP parser refused the
 * bytes (oversized headers, a malformed request line or header), so there is no request, no route
 * and no hook. Answers a minimal, well-formed HTTP/1.1 response carrying the error envelope and a
 * fresh request id (also logged, to correlate), then closes the connection.
 */
export function handleClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer (Node's own handler returns here too).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = randomUUID();
  const [code, message] = CLIENT_ERRORS[error.code ?? ''] ?? ['validation_error', 'the request is not valid HTTP/1.1'];
  const appError = new AppError(code, message);
  this.log.info({ reqId: requestId, code: error.code, status: appError.status }, 'client error');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorEnvelope(appError, requestId));
  socket.end(
    [
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
  // Read and drop what the client still sends, so closing is a FIN it can read the answer before, not a reset.
  socket.resume();
  socket.setTimeout(CLIENT_ERROR_LINGER_MS, () => socket.destroy());
}
