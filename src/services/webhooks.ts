import { z } from 'zod';
import {
  deleteWebhook as deleteWebhookRow,
  findWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks as listWebhookRows,
  updateWebhook,
  type DeliveryListRow,
  type WebhookRow,
} from '../db/webhooks';
import { redactUrl } from '../domain/redact-url';
import { WEBHOOK_EVENTS, WEBHOOK_FORMATS, type WebhookEvent, type WebhookFormat } from '../domain/webhook-events';
import { generateWebhookSecret, webhookSecretKey } from '../domain/webhook-signature';
import { conflict, notFound, validationError } from '../errors';
import { isAlwaysRefusedHost } from '../net/address-guard';
import type { Ctx } from './context';
import { loadOwned } from './load-owned';
import { privateAddressRefusal, userinfoDecodes, USERINFO_MESSAGE } from './outbound-url';
import { page, type Page } from './pagination';

/**
 * A tenant's webhooks at most: every finished run of the tenant is checked against each of them,
 * and each may start a delivery workflow retried for 24 hours.
 */
export const MAX_WEBHOOKS_PER_TENANT = 20;

/** Webhook fields without defaults, so PATCH can leave them out. */
const webhookFields = {
  // Validated like an endpoint URL: an IP literal in a range never reached is refused here,
  // loopback and private ones by the verbs (they depend on RVS_ALLOW_PRIVATE_WEBHOOKS); names
  // are judged by the outbound guard at every delivery.
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(2048)
    .refine((url) => !URL.canParse(url) || !isAlwaysRefusedHost(new URL(url).hostname), 'link-local and reserved addresses are never called')
    .refine(userinfoDecodes, USERINFO_MESSAGE),
  events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1, 'give at least one event')
    .max(WEBHOOK_EVENTS.length)
    .transform((events) => WEBHOOK_EVENTS.filter((event) => events.includes(event))),
  // The message never repeats the value: it is a secret.
  secret: z.string().max(200).refine((secret) => webhookSecretKey(secret) !== null, 'must be whsec_ followed by the base64 of 24 to 64 bytes'),
  format: z.enum(WEBHOOK_FORMATS),
};

export const createWebhookInput = z.strictObject({
  url: webhookFields.url,
  events: webhookFields.events,
  secret: webhookFields.secret.optional(),
  format: webhookFields.format.default('standard'),
});

/** A given `secret` replaces the old one (rotation); it is not shown back. */
export const patchWebhookInput = z
  .strictObject({
    url: webhookFields.url.optional(),
    events: webhookFields.events.optional(),
    secret: webhookFields.secret.optional(),
    format: webhookFields.format.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change');

export interface WebhookResponse {
  id: string;
  url: string;
  events: WebhookEvent[];
  format: WebhookFormat;
  created_at: Date;
  updated_at: Date;
}

/** The URL is shown redacted (it may carry a token, as Slack's do) and the secret never. */
export function presentWebhook(row: WebhookRow): WebhookResponse {
  return {
    id: row.id,
    url: row.url_redacted,
    events: row.events,
    format: row.format,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * A webhook is not a probe target: a receiver on loopback or a private network is reachable only
 * with RVS_ALLOW_PRIVATE_WEBHOOKS (the delivery log would otherwise tell a tenant which internal
 * ports answer and with what status). Refused here as delivery would refuse it.
 */
function assertDeliverable(ctx: Ctx, url: string): void {
  const refusal = privateAddressRefusal(url, ctx.deps.config.allowPrivateWebhooks, 'RVS_ALLOW_PRIVATE_WEBHOOKS');
  if (refusal) throw validationError([{ field: 'url', message: refusal }]);
}

/**
 * The secret is returned here once (given or generated) and never again: the route marks it a
 * secret response field, so an Idempotency-Key replay answers without it. A tenant that already
 * has MAX_WEBHOOKS_PER_TENANT is refused (409 `conflict`).
 */
export async function createWebhook({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.infer<typeof createWebhookInput>;
}): Promise<WebhookResponse & { secret: string }> {
  assertDeliverable(ctx, input.url);
  const { box } = ctx.deps;
  const secret = input.secret ?? generateWebhookSecret();
  const row = await insertWebhook(
    ctx.deps.sql,
    {
      tenantId: ctx.principal.tenantId,
      urlRedacted: redactUrl(input.url),
      urlEncrypted: box.encrypt(input.url),
      secretEncrypted: box.encrypt(secret),
      events: input.events,
      format: input.format,
    },
    MAX_WEBHOOKS_PER_TENANT,
  );
  if (!row) throw conflict(`a tenant has at most ${MAX_WEBHOOKS_PER_TENANT} webhooks; delete one before adding another`);
  return { ...presentWebhook(row), secret };
}

function loadWebhook(ctx: Ctx, webhookId: string): Promise<WebhookRow> {
  return loadOwned(ctx, 'webhook', findWebhook, webhookId);
}

export async function getWebhook({ ctx, input }: { ctx: Ctx; input: { webhookId: string } }): Promise<WebhookResponse> {
  return presentWebhook(await loadWebhook(ctx, input.webhookId));
}

export async function listWebhooks({ ctx, input }: { ctx: Ctx; input: { limit: number; offset: number } }): Promise<Page<WebhookResponse>> {
  const { rows, total } = await listWebhookRows(ctx.deps.sql, ctx.principal.tenantId, input);
  return page(rows.map(presentWebhook), total, input.limit, input.offset);
}

/** Deliveries still retrying use the new URL and secret from their next attempt on. */
export async function patchWebhook({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { webhookId: string; patch: z.infer<typeof patchWebhookInput> };
}): Promise<WebhookResponse> {
  await loadWebhook(ctx, input.webhookId);
  const { patch } = input;
  if (patch.url !== undefined) assertDeliverable(ctx, patch.url);
  const { box } = ctx.deps;
  const row = await updateWebhook(ctx.deps.sql, input.webhookId, ctx.principal.tenantId, {
    urlRedacted: patch.url === undefined ? undefined : redactUrl(patch.url),
    urlEncrypted: patch.url === undefined ? undefined : box.encrypt(patch.url),
    secretEncrypted: patch.secret === undefined ? undefined : box.encrypt(patch.secret),
    events: patch.events,
    format: patch.format,
  });
  if (!row) throw notFound('webhook');
  return presentWebhook(row);
}

/** Its delivery log goes with it; a delivery still retrying stops at its next attempt. */
export async function deleteWebhook({ ctx, input }: { ctx: Ctx; input: { webhookId: string } }): Promise<void> {
  await loadWebhook(ctx, input.webhookId);
  if (!(await deleteWebhookRow(ctx.deps.sql, input.webhookId, ctx.principal.tenantId))) throw notFound('webhook');
}

/** A delivery as the API shows it: its row without the tenant (the log never holds the body, URL or secret). */
export type DeliveryResponse = Omit<DeliveryListRow, 'tenant_id'>;

function presentDelivery({ tenant_id: _tenantId, ...delivery }: DeliveryListRow): DeliveryResponse {
  return { ...delivery, attempt_log: delivery.attempt_log.map((a) => ({ ...a, attempted_at: new Date(a.attempted_at).toISOString() })) };
}

/** The webhook's deliveries, newest first: each with its attempts (never the body, URL or secret). */
export async function listWebhookDeliveries({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { webhookId: string; limit: number; offset: number };
}): Promise<Page<DeliveryResponse>> {
  await loadWebhook(ctx, input.webhookId);
  const { rows, total } = await listDeliveries(ctx.deps.sql, input.webhookId, input);
  return page(rows.map(presentDelivery), total, input.limit, input.offset);
}
