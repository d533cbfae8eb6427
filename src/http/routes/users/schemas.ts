import { z } from 'zod';
import { SCOPES } from '../../../auth/scopes';
import { component, uuid } from '../shared/schemas';

export const scope = z.enum(SCOPES);

export const User = component(
  'User',
  z.object({
    id: z.string().describe('the API key id, or the JWT subject'),
    kind: z.enum(['api_key', 'user']),
    tenant: z.object({ id: uuid, name: z.string() }),
    scopes: z.array(scope),
    name: z.string(),
    email: z.string().nullable(),
  }),
);
