import { z } from 'zod';
import { formatJsonPath } from '../domain/json-bounds';
import { validationError } from '../errors';

/** Problems listed in one error: a body of 1 MiB can hold 100,000 unknown keys, each a detail. */
export const MAX_ERROR_DETAILS = 50;

/** Parses with zod or throws validation_error listing the bad fields by their paths (the first MAX_ERROR_DETAILS). */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where?: string): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  // Field names are built like the input guard's: long or control-character keys are cut and escaped, not echoed.
  const details = result.error.issues.flatMap((issue) => {
    const path = issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: formatJsonPath([...path, key], where), message: 'unknown field' }));
    }
    return [{ field: formatJsonPath(path, where) || '(body)', message: issue.message }];
  });
  if (details.length <= MAX_ERROR_DETAILS) throw validationError(details);
  throw validationError(
    details.slice(0, MAX_ERROR_DETAILS),
    `request is invalid (${details.length.toLocaleString('en-US')} problems; the first ${MAX_ERROR_DETAILS} are listed)`,
  );
}

export const uuidParam = <N extends string>(name: N) =>
  z.strictObject({ [name]: z.uuid(`${name} must be a UUID`) } as Record<N, z.ZodUUID>);

const integerString = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .optional()
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(z.number().int().min(min).max(max));

export const paginationQuery = z.object({
  limit: integerString(1, 200, 50),
  offset: integerString(0, 1_000_000_000, 0),
});

export interface Page<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
}

export function page<T>(data: T[], total: number, limit: number, offset: number): Page<T> {
  return { data, pagination: { total, limit, offset, has_more: offset + data.length < total } };
}
