import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../../../errors';

/*
 * Building blocks of every route's schemas. Response schemas are `z.object`: serialization
 * (fastify-type-provider-zod) strips any field a schema does not name, so nothing the presenter
 * returns leaves the server unless the schema says so, and the document shows every response
 * object closed (additionalProperties: false). A schema given an `id` with `component()` becomes
 * `components.schemas.<id>` of the OpenAPI document and is referenced by `$ref`.
 */

/** Registers a schema as a named component of the document (zod's global registry, which the type provider reads). */
export function component<S extends z.ZodType>(id: string, schema: S): S {
  return schema.meta({ id }) as S;
}

export const uuid = z.uuid();
/** Timestamps the presenters hold as Date (database columns): sent as Date#toJSON(), ISO-8601 UTC with milliseconds. */
export const timestamp = z.date();
/** Timestamps the presenters already hold as ISO-8601 strings (from stored JSON). */
export const isoTimestamp = z.iso.datetime();
export const int = z.number().int();
export const count = z.number().int().min(0);
export const url = z.string().meta({ format: 'uri' });
export const freeObject = z.record(z.string(), z.unknown());

/** A path parameter that must be a UUID: `{[name]: uuid}`, answered `<name> must be a UUID` otherwise. */
export const uuidParam = <N extends string>(name: N) =>
  z.strictObject({ [name]: z.uuid(`${name} must be a UUID`) } as Record<N, z.ZodUUID>);

// ---- pagination ---------------------------------------------------------------------------------

export const Pagination = component(
  'Pagination',
  z.object({
    total: count.describe('number of matching items, all pages together'),
    limit: int.min(1).max(200),
    offset: count,
    has_more: z.boolean().describe('offset + data.length < total'),
  }),
);

/** The list envelope of every list endpoint (services/pagination.ts page()), around the schema of one item. */
export function pageOf<S extends z.ZodType>(id: string, item: S) {
  return component(id, z.object({ data: z.array(item), pagination: Pagination }));
}

// ---- errors -------------------------------------------------------------------------------------

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
export const codesOf = (status: number) => ERROR_CODES.filter((code) => ERROR_STATUS[code] === status);

export const ErrorDetail = component(
  'ErrorDetail',
  z.object({
    field: z.string().describe('dotted path of the offending field, a path parameter name, or a header name'),
    message: z.string(),
  }),
);

const errorBody = (codes: readonly ErrorCode[]) =>
  z.object({
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
    message: z.string().describe('human-readable; never carries internal details'),
    details: z.array(ErrorDetail).describe('always present; empty when there is nothing to list'),
    request_id: z.string().describe('same value as the X-Request-Id response header'),
  });

export const ErrorEnvelope = component(
  'ErrorEnvelope',
  z.object({ error: errorBody(ERROR_CODES) }).describe('The body of every non-2xx response (src/errors.ts errorEnvelope).'),
);

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 414 | 415 | 429 | 500 | 503;
const ERROR_STATUSES: readonly ErrorStatus[] = [400, 401, 403, 404, 409, 410, 413, 414, 415, 429, 500, 503];

/** `Error<status>`: the envelope with `error.code` limited to the codes of that status. */
export const ErrorOfStatus = Object.fromEntries(
  ERROR_STATUSES.map((status) => [
    status,
    component(
      `Error${status}`,
      z.object({ error: errorBody(codesOf(status)) }).describe(`The error envelope of a ${status} response.`),
    ),
  ]),
) as Record<ErrorStatus, typeof ErrorEnvelope>;
