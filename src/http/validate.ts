import { z } from 'zod';

export { MAX_ERROR_DETAILS, parseOrThrow } from '../parse-or-throw';
export { page, paginationQuery, type Page } from '../services/pagination';

export const uuidParam = <N extends string>(name: N) =>
  z.strictObject({ [name]: z.uuid(`${name} must be a UUID`) } as Record<N, z.ZodUUID>);
