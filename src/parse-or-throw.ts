import type { z } from 'zod';
import { formatJsonPath } from './domain/json-bounds';
import { validationError, type AppError, type ErrorDetail } from './errors';

/** Problems listed in one error: a body of 1 MiB can hold 100,000 unknown keys, each a detail. */
export const MAX_ERROR_DETAILS = 50;

/**
 * The validation_error for a failed zod parse, listing the bad fields by their paths (the first
 * MAX_ERROR_DETAILS). `where` prefixes every path (a nested part such as `config`). Used by the
 * services and by the routes' validator compiler, so both answer the same details.
 */
export function zodValidationError(error: z.ZodError, where?: string): AppError {
  // Field names are built like the input guard's: long or control-character keys are cut and escaped, not echoed.
  const details: ErrorDetail[] = error.issues.flatMap((issue) => {
    const path = issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: formatJsonPath([...path, key], where), message: 'unknown field' }));
    }
    return [{ field: formatJsonPath(path, where) || '(body)', message: issue.message }];
  });
  if (details.length <= MAX_ERROR_DETAILS) return validationError(details);
  return validationError(
    details.slice(0, MAX_ERROR_DETAILS),
    `request is invalid (${details.length.toLocaleString('en-US')} problems; the first ${MAX_ERROR_DETAILS} are listed)`,
  );
}

/** Parses with zod or throws validation_error listing the bad fields by their paths. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where?: string): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw zodValidationError(result.error, where);
}
