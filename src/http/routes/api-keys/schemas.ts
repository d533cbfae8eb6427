import { z } from 'zod';
import { component, pageOf, timestamp, uuid, uuidParam } from '../shared/schemas';
import { scope } from '../users/schemas';

export const keyParams = uuidParam('keyId');

const apiKeyFields = {
  id: uuid,
  name: z.string(),
  prefix: z.string().regex(/^rvs_[A-Za-z0-9]{12}$/).describe('the public start of the key'),
  scopes: z.array(scope),
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
};

export const ApiKey = component('ApiKey', z.object(apiKeyFields));

export const ApiKeyCreated = component(
  'ApiKeyCreated',
  z.object({
    ...apiKeyFields,
    key: z
      .string()
      .optional()
      .describe('the whole key, rvs_<prefix>_<secret>; shown only in this response, never stored, so absent from an Idempotency-Key replay'),
  }),
);

export const ApiKeyPage = pageOf('ApiKeyPage', ApiKey);
