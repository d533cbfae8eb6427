import { randomUUID } from 'node:crypto';
import type { WebhookEvent, WebhookFormat } from '../domain/webhook-events';
import type { Queryable, Sql } from './client';

export interface WebhookRow {
  id: string;
  tenant_id: string;
  url_redacted: string;
  url_encrypted: string;
  secret_encrypted: string;
  events: WebhookEvent[];
  format: WebhookFormat;
  created_at: Date;
  updated_at: Date;
}

export interface NewWebhook {
  tenantId: string;
  urlRedacted: string;
  urlEncrypted: string;
  secretEncrypted: string;
  events: readonly WebhookEvent[];
  format: WebhookFormat;
}

// First key of the two-key advisory lock that serialises webhook creates of one tenant, so its
// count and its insert cannot race (the migration lock uses the one-key form; other locks use
// other classes).
const WEBHOOK_CREATE_LOCK_CLASS = 0x57484b; // "WHK"

/**
 * Inserts the webhook unless its tenant already has `max`: undefined then. The count and the
 * insert run in one transaction under the tenant's create lock, so concurrent creates cannot pass
 * the cap together.
 */
export async function insertWebhook(sql: Sql, w: NewWebhook, max: number): Promise<WebhookRow | undefined> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${WEBHOOK_CREATE_LOCK_CLASS}, hashtext(${w.tenantId}::text))`;
    const [count] = await tx<{ n: number }[]>`select count(*)::int as n from webhooks where tenant_id = ${w.tenantId}`;
    if (count!.n >= max) return undefined;
    const [row] = await tx<WebhookRow[]>`
      insert into webhooks (id, tenant_id, url_redacted, url_encrypted, secret_encrypted, events, format)
      values (${randomUUID()}, ${w.tenantId}, ${w.urlRedacted}, ${w.urlEncrypted}, ${w.secretEncrypted},
              ${w.events as string[]}, ${w.format})
      returning *`;
    return row!;
  });
}

export async function findWebhook(sql: Queryable, id: string): Promise<WebhookRow | undefined> {
  const [row] = await sql<WebhookRow[]>`select * from webhooks where id = ${id}`;
  return row;
}

export async function listWebhooks(
  sql: Queryable,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: WebhookRow[]; total: number }> {
  const rows = await sql<WebhookRow[]>`
    select * from webhooks where tenant_id = ${tenantId}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from webhooks where tenant_id = ${tenantId}`;
  return { rows, total: count!.n };
}

export interface WebhookPatch {
  urlRedacted?: string;
  urlEncrypted?: string;
  secretEncrypted?: string;
  events?: readonly WebhookEvent[];
  format?: WebhookFormat;
}

export async function updateWebhook(sql: Queryable, id: string, tenantId: string, patch: WebhookPatch): Promise<WebhookRow | undefined> {
  const columns = Object.fromEntries(
    Object.entries({
      url_redacted: patch.urlRedacted,
      url_encrypted: patch.urlEncrypted,
      secret_encrypted: patch.secretEncrypted,
      events: patch.events,
      format: patch.format,
    }).filter(([, value]) => value !== undefined),
  );
  const [row] = await sql<WebhookRow[]>`
    update webhooks set ${sql(columns)}, updated_at = now()
    where id = ${id} and tenant_id = ${tenantId}
    returning *`;
  return row;
}

/** Its deliveries go with it (a delivery still retrying finds no row and stops). */
export async function deleteWebhook(sql: Queryable, id: string, tenantId: string): Promise<boolean> {
  const rows = await sql`delete from webhooks where id = ${id} and tenant_id = ${tenantId} returning id`;
  return rows.length > 0;
}

/** The tenant's webhooks subscribed to at least one of `events`; none while the tenant is disabled. */
export async function findSubscribedWebhooks(sql: Queryable, tenantId: string, events: readonly WebhookEvent[]): Promise<WebhookRow[]> {
  return sql<WebhookRow[]>`
    select w.* from webhooks w join tenants t on t.id = w.tenant_id
    where w.tenant_id = ${tenantId} and t.disabled_at is null and w.events && ${events as string[]}::text[]
    order by w.created_at, w.id`;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export type DeliveryErrorKind = 'http_status' | 'timeout' | 'connection_error' | 'address_refused' | 'invalid_url';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  tenant_id: string;
  run_id: string;
  event: WebhookEvent;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  last_response_code: number | null;
  last_latency_ms: number | null;
  last_error_kind: DeliveryErrorKind | null;
  created_at: Date;
  last_attempt_at: Date | null;
  finished_at: Date | null;
}

export interface NewDelivery {
  webhookId: string;
  tenantId: string;
  runId: string;
  event: WebhookEvent;
  payload: string;
}

/**
 * Records deliveries once: unique on (webhook, run, event), so a retried enqueue inserts nothing
 * new. Returns every pending delivery of the run, old and new (those whose workflow may not have
 * been started yet).
 */
export async function recordDeliveries(sql: Queryable, runId: string, deliveries: readonly NewDelivery[]): Promise<{ id: string }[]> {
  if (deliveries.length > 0) {
    await sql`
      insert into webhook_deliveries ${sql(
        deliveries.map((d) => ({
          id: randomUUID(),
          webhook_id: d.webhookId,
          tenant_id: d.tenantId,
          run_id: d.runId,
          event: d.event,
          payload: d.payload,
        })),
      )}
      on conflict (webhook_id, run_id, event) do nothing`;
  }
  return sql<{ id: string }[]>`
    select id from webhook_deliveries where run_id = ${runId} and status = 'pending' order by created_at, id`;
}

/**
 * A delivery with what sending it needs from its webhook; undefined once the webhook is deleted,
 * and while its tenant is disabled (nothing is sent for a disabled tenant).
 */
export async function findDeliveryToSend(
  sql: Queryable,
  deliveryId: string,
): Promise<(DeliveryRow & Pick<WebhookRow, 'url_encrypted' | 'secret_encrypted'>) | undefined> {
  const [row] = await sql<(DeliveryRow & Pick<WebhookRow, 'url_encrypted' | 'secret_encrypted'>)[]>`
    select d.*, w.url_encrypted, w.secret_encrypted
    from webhook_deliveries d
      join webhooks w on w.id = d.webhook_id
      join tenants t on t.id = d.tenant_id
    where d.id = ${deliveryId} and t.disabled_at is null`;
  return row;
}

export interface DeliveryAttempt {
  attempt: number;
  outcome: 'delivered' | 'failed';
  responseCode: number | null;
  latencyMs: number;
  errorKind: DeliveryErrorKind | null;
}

/**
 * Before an attempt sends anything: its row is written as `sending` (no answer yet), so an attempt
 * cut short by its worker's death — which may have reached the receiver — stays in the log. Earlier
 * attempts of the delivery still `sending` were lost that way: they become failed `attempt_lost`.
 * The delivery counts the attempt from here on.
 */
export async function recordAttemptStarted(sql: Queryable, deliveryId: string, attempt: number): Promise<void> {
  await sql`
    with lost as (
      update webhook_delivery_attempts set outcome = 'failed', error_kind = 'attempt_lost'
      where delivery_id = ${deliveryId} and attempt < ${attempt} and outcome = 'sending'
    ), started as (
      insert into webhook_delivery_attempts (delivery_id, attempt, outcome, response_code, latency_ms, error_kind)
      values (${deliveryId}, ${attempt}, 'sending', null, null, null)
      on conflict (delivery_id, attempt) do nothing
    )
    update webhook_deliveries set attempts = greatest(attempts, ${attempt}), last_attempt_at = now()
    where id = ${deliveryId} and status = 'pending'`;
}

/**
 * Completes one attempt with its answer and writes the delivery's latest state, in one statement.
 * A delivery that is no longer pending is not changed (an attempt that outlived its activity's
 * timeout); an attempt already completed keeps its first answer.
 */
export async function recordDeliveryAttempt(sql: Queryable, deliveryId: string, a: DeliveryAttempt): Promise<void> {
  await sql`
    with attempt as (
      insert into webhook_delivery_attempts (delivery_id, attempt, outcome, response_code, latency_ms, error_kind)
      values (${deliveryId}, ${a.attempt}, ${a.outcome}, ${a.responseCode}, ${a.latencyMs}, ${a.errorKind})
      on conflict (delivery_id, attempt) do update set
        outcome = excluded.outcome, response_code = excluded.response_code,
        latency_ms = excluded.latency_ms, error_kind = excluded.error_kind
      where webhook_delivery_attempts.outcome = 'sending'
    )
    update webhook_deliveries set
      attempts = greatest(attempts, ${a.attempt}),
      last_response_code = ${a.responseCode},
      last_latency_ms = ${a.latencyMs},
      last_error_kind = ${a.errorKind},
      last_attempt_at = now(),
      status = ${a.outcome === 'delivered' ? 'delivered' : 'pending'},
      finished_at = ${a.outcome === 'delivered' ? sql`now()` : null}
    where id = ${deliveryId} and status = 'pending'`;
}

/** Retries are over (24 h passed, or the target is refused for good). */
export async function markDeliveryFailed(sql: Queryable, deliveryId: string): Promise<boolean> {
  // The last attempt may have been lost with its worker: it ended without an answer.
  await sql`
    update webhook_delivery_attempts set outcome = 'failed', error_kind = 'attempt_lost'
    where delivery_id = ${deliveryId} and outcome = 'sending'`;
  const rows = await sql`
    update webhook_deliveries set status = 'failed', finished_at = now() where id = ${deliveryId} and status = 'pending' returning id`;
  return rows.length === 1;
}

export interface DeliveryListRow extends Omit<DeliveryRow, 'payload'> {
  attempt_log: { attempt: number; outcome: 'sending' | 'delivered' | 'failed'; response_code: number | null; latency_ms: number | null; error_kind: string | null; attempted_at: string }[];
}

/** One page of a webhook's deliveries, newest first, each with its attempts (oldest first). */
export async function listDeliveries(
  sql: Queryable,
  webhookId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: DeliveryListRow[]; total: number }> {
  const rows = await sql<DeliveryListRow[]>`
    select d.id, d.webhook_id, d.tenant_id, d.run_id, d.event, d.status, d.attempts, d.last_response_code,
      d.last_latency_ms, d.last_error_kind, d.created_at, d.last_attempt_at, d.finished_at,
      coalesce((
        select json_agg(json_build_object(
          'attempt', a.attempt, 'outcome', a.outcome, 'response_code', a.response_code,
          'latency_ms', a.latency_ms, 'error_kind', a.error_kind, 'attempted_at', a.attempted_at) order by a.attempt)
        from webhook_delivery_attempts a where a.delivery_id = d.id), '[]'::json) as attempt_log
    from webhook_deliveries d where d.webhook_id = ${webhookId}
    order by d.created_at desc, d.id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where webhook_id = ${webhookId}`;
  return { rows, total: count!.n };
}

/**
 * The suite's verdicts (pass or fail) before `run`, newest first, up to and including its last
 * pass, with each run's acknowledgement count: what `verdict.changed` and the acknowledgement
 * rule of `verdict.failed` read. Runs finished earlier only, so a retried enqueue reads the same.
 */
export async function suiteVerdictsBefore(
  sql: Queryable,
  runId: string,
): Promise<{ verdict: 'pass' | 'fail'; acknowledged_count: number }[]> {
  // Compared in SQL: finished_at has microseconds, a JavaScript Date only milliseconds.
  const rows = await sql<{ verdict: 'pass' | 'fail'; acknowledged_count: number }[]>`
    select r.verdict->>'verdict' as verdict, r.acknowledged_count
    from runs this join runs r on r.test_suite_id = this.test_suite_id and r.tenant_id = this.tenant_id
    where this.id = ${runId} and r.id <> this.id
      and r.finished_at is not null and r.verdict->>'verdict' in ('pass', 'fail')
      and (r.finished_at, r.id) < (this.finished_at, this.id)
    order by r.finished_at desc, r.id desc limit 1000`;
  const passAt = rows.findIndex((r) => r.verdict === 'pass');
  return passAt === -1 ? rows : rows.slice(0, passAt + 1);
}
