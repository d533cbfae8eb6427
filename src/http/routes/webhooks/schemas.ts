import { z } from 'zod';
import { WEBHOOK_EVENTS, WEBHOOK_FORMATS } from '../../../domain/webhook-events';
import { component, count, int, pageOf, timestamp, url, uuid, uuidParam } from '../shared/schemas';

export const webhookParams = uuidParam('webhookId');

const webhookFields = {
  id: uuid,
  url: url.describe('redacted: scheme, host and port; userinfo, every path segment and the query are ****'),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  format: z.enum(WEBHOOK_FORMATS).describe('`standard`: {type, timestamp, data}; `slack`: a Block Kit {text, blocks} message'),
  created_at: timestamp,
  updated_at: timestamp,
};

/** A webhook as services/webhooks.ts presentWebhook returns it: never the secret. */
export const Webhook = component('Webhook', z.object(webhookFields));

/** The create answer: the only one that carries the secret. */
export const CreatedWebhook = component(
  'CreatedWebhook',
  z.object({
    ...webhookFields,
    secret: z
      .string()
      .describe('`whsec_` + base64 key signing every delivery (Standard Webhooks); shown once, here, and never again (an Idempotency-Key replay omits it)'),
  }),
);

export const WebhookPage = pageOf('WebhookPage', Webhook);

export const WebhookDelivery = component(
  'WebhookDelivery',
  z.object({
    id: uuid.describe('also the webhook-id header of every attempt'),
    webhook_id: uuid,
    event: z.enum(WEBHOOK_EVENTS),
    run_id: uuid,
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: count,
    last_response_code: int.nullable(),
    last_latency_ms: count.nullable(),
    last_error_kind: z
      .enum(['http_status', 'timeout', 'connection_error', 'address_refused', 'invalid_url'])
      .nullable()
      .describe('why the last attempt failed; null after a delivered one'),
    created_at: timestamp,
    last_attempt_at: timestamp.nullable(),
    finished_at: timestamp.nullable().describe('delivered, or given up after 24 hours of retries'),
    attempt_log: z.array(
      z.object({
        attempt: int.min(1),
        outcome: z
          .enum(['sending', 'delivered', 'failed'])
          .describe('`sending`: sent or being sent, no answer yet (written before the request goes out)'),
        response_code: int.nullable(),
        latency_ms: count.nullable().describe('null while `sending`, and for an attempt lost with its worker'),
        error_kind: z
          .string()
          .nullable()
          .describe('as last_error_kind, or `attempt_lost`: the worker sending it died before the answer (the receiver may have had it)'),
        attempted_at: z.iso.datetime(),
      }),
    ),
  }),
);

export const WebhookDeliveryPage = pageOf('WebhookDeliveryPage', WebhookDelivery);
