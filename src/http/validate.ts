import { z } from 'zod';
import { validationError } from '../errors';

/** Parses with zod or throws validation_error listing every bad field by its path. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where?: string): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw validationError(
    result.error.issues.flatMap((issue) => {
      const base = [where, ...issue.path.map(String)].filter(Boolean).join('.');
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => ({ field: base ? `${base}.${key}` : key, message: 'unknown field' }));
      }
      return [{ field: base || '(body)', message: issue.message }];
    }),
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
