import { z } from 'zod';

const integerString = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .optional()
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(z.number().int().min(min).max(max));

/** `limit` and `offset` of every list: query-string values, parsed to integers. */
export const paginationQuery = z.object({
  limit: integerString(1, 200, 50).describe('page size, 1–200, default 50'),
  offset: integerString(0, 1_000_000_000, 0).describe('items to skip, default 0'),
});

/** The list envelope every list verb returns. */
export interface Page<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
}

export function page<T>(data: T[], total: number, limit: number, offset: number): Page<T> {
  return { data, pagination: { total, limit, offset, has_more: offset + data.length < total } };
}
