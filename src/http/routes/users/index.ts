import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getMe } from '../../../services/users';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { User } from './schemas';

/** The caller's identity. */
export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/users/me',
    operation({
      method: 'GET',
      scope: null,
      operationId: 'getCurrentUser',
      summary: 'The caller: API key or user, tenant, scopes',
      description: 'Verifies a credential; accepts either kind and needs no scope.',
      tag: 'users',
      success: { status: 200, description: 'the caller', schema: User },
    }),
    async (request) => exact(User, await getMe({ ctx: ctxOf(request) })),
  );
};
