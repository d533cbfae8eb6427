import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { paginationQuery } from '../../../services/pagination';
import * as webhooks from '../../../services/webhooks';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { CreatedWebhook, Webhook, WebhookDeliveryPage, WebhookPage, webhookParams } from './schemas';

/** Webhooks of the caller's tenant and their delivery log. */
export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/webhooks',
    operation({
      method: 'POST',
      scope: 'webhooks:write',
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to run events',
      description:
        'Deliveries follow the Standard Webhooks specification (webhook-id, webhook-timestamp, webhook-signature). Without `secret` one is generated. The secret is returned in this answer only.',
      tag: 'webhooks',
      body: webhooks.createWebhookInput,
      success: { status: 201, description: 'the webhook, with its secret (this once)', schema: CreatedWebhook },
      errors: { 409: [`\`conflict\`: the tenant already has ${webhooks.MAX_WEBHOOKS_PER_TENANT} webhooks (the most a tenant has)`] },
      // The secret is shown once: an Idempotency-Key replay answers without it.
      config: { secretResponseFields: ['secret'] },
    }),
    async (request, reply) => {
      const webhook = await webhooks.createWebhook({ ctx: ctxOf(request), input: request.body });
      return reply.code(201).header('location', `/v1/webhooks/${webhook.id}`).header('cache-control', 'no-store').send(exact(CreatedWebhook, webhook));
    },
  );

  app.get(
    '/v1/webhooks',
    operation({
      method: 'GET',
      scope: 'webhooks:read',
      operationId: 'listWebhooks',
      summary: 'List webhooks, newest first',
      tag: 'webhooks',
      querystring: paginationQuery,
      success: { status: 200, description: 'a page of webhooks', schema: WebhookPage },
    }),
    async (request) => exact(WebhookPage, await webhooks.listWebhooks({ ctx: ctxOf(request), input: request.query })),
  );

  app.get(
    '/v1/webhooks/:webhookId',
    operation({
      method: 'GET',
      scope: 'webhooks:read',
      operationId: 'getWebhook',
      summary: 'Get a webhook',
      tag: 'webhooks',
      params: webhookParams,
      success: { status: 200, description: 'the webhook', schema: Webhook },
    }),
    async (request) => exact(Webhook, await webhooks.getWebhook({ ctx: ctxOf(request), input: request.params })),
  );

  app.patch(
    '/v1/webhooks/:webhookId',
    operation({
      method: 'PATCH',
      scope: 'webhooks:write',
      operationId: 'updateWebhook',
      summary: 'Change a webhook (a new `secret` rotates it; it is not shown back)',
      tag: 'webhooks',
      params: webhookParams,
      body: webhooks.patchWebhookInput,
      success: { status: 200, description: 'the changed webhook', schema: Webhook },
    }),
    async (request) => exact(Webhook, await webhooks.patchWebhook({ ctx: ctxOf(request), input: { ...request.params, patch: request.body } })),
  );

  app.delete(
    '/v1/webhooks/:webhookId',
    operation({
      method: 'DELETE',
      scope: 'webhooks:write',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook and its delivery log',
      tag: 'webhooks',
      params: webhookParams,
      success: { status: 204, description: 'deleted' },
    }),
    async (request, reply) => {
      await webhooks.deleteWebhook({ ctx: ctxOf(request), input: request.params });
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/webhooks/:webhookId/deliveries',
    operation({
      method: 'GET',
      scope: 'webhooks:read',
      operationId: 'listWebhookDeliveries',
      summary: 'Deliveries of a webhook, newest first, with every attempt',
      tag: 'webhooks',
      params: webhookParams,
      querystring: paginationQuery,
      success: { status: 200, description: 'a page of deliveries', schema: WebhookDeliveryPage },
    }),
    async (request) => exact(WebhookDeliveryPage, await webhooks.listWebhookDeliveries({ ctx: ctxOf(request), input: { ...request.params, ...request.query } })),
  );
};
