import { performance } from 'node:perf_hooks';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Client, errors } from 'undici';
import type { SecretBox } from '../src/crypto/secret-box';
import type { Sql } from '../src/db/client';
import { findRun } from '../src/db/runs';
import { TERMINAL_RUN_STATUSES } from '../src/domain/run-model';
import {
  findDeliveryToSend,
  findSubscribedWebhooks,
  markDeliveryFailed,
  recordAttemptStarted,
  recordDeliveries,
  recordDeliveryAttempt,
  suiteVerdictsBefore,
  type DeliveryErrorKind,
  type NewDelivery,
} from '../src/db/webhooks';
import { eventsForRun, webhookBody, type RunEventSummary } from '../src/domain/webhook-events';
import { signWebhook } from '../src/domain/webhook-signature';
import { webhookDeliveries } from '../src/metrics/registry';
import { guardedLookup, OutboundAddressRefusedError, refusedLiteral } from '../src/net/guarded-lookup';
import { DASHBOARD_TOKEN_TTL_MS, signDashboardToken } from '../src/services/dashboard-token';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, workflowIdForWebhookDelivery } from '../src/temporal/constants';
import type { webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import { heartbeating } from './heartbeating';
import type { TenantAttempts } from './tenant-attempts';

export interface WebhookDeps {
  sql: Sql;
  box: SecretBox;
  /** RVS_ALLOW_PRIVATE_WEBHOOKS, not the probes' setting; absent: loopback and private receivers are refused. */
  allowPrivateWebhooks?: boolean;
  /** Base of the dashboard link in payloads; without it payloads carry no link. */
  publicUrl?: string;
  /** First retry delay of a failed delivery (doubles up to an hour; tests shorten it). */
  webhookRetryInitialIntervalMs?: number;
  /** Overall deadline of one attempt (DELIVERY_DEADLINE_MS; tests shorten it). */
  webhookDeadlineMs?: number;
  /** The worker's per-tenant bound on attempts in flight (createActivities makes one); absent: none. */
  tenantAttempts?: TenantAttempts;
}

/** How long an attempt put off by the per-tenant bound waits before Temporal tries it again. */
export const TENANT_BUSY_RETRY_MS = 5_000;

export const DEFAULT_WEBHOOK_RETRY_INITIAL_MS = 10_000;
/**
 * One attempt — connect, send, the receiver's status line and headers — ends within this, however
 * the receiver paces its bytes: undici's own timeouts are idle timeouts, which a receiver dripping
 * a byte now and then never trips, and a held attempt holds a worker's activity slot.
 */
export const DELIVERY_DEADLINE_MS = 15_000;

/**
 * After a run is finalized: records one delivery per (subscribed webhook, event) and starts a
 * delivery workflow for every delivery still pending. Both steps are idempotent (unique rows;
 * workflow id webhook-<deliveryId> that is never reused), so a retried enqueue sends nothing twice.
 */
export async function enqueueWebhooks(deps: WebhookDeps, input: { runId: string }): Promise<{ deliveries: number }> {
  const run = await findRun(deps.sql, input.runId);
  if (!run || !TERMINAL_RUN_STATUSES.includes(run.status) || !run.verdict || !run.finished_at) return { deliveries: 0 };
  const status = run.status as 'success' | 'failed' | 'cancelled';
  const earlier = await suiteVerdictsBefore(deps.sql, run.id);
  const previousVerdict = earlier[0]?.verdict ?? null;
  const events = eventsForRun({
    status,
    verdict: run.verdict.verdict,
    previousVerdict,
    failureAcknowledged: earlier.some((r) => r.verdict === 'fail' && r.acknowledged_count > 0),
  });
  const webhooks = await findSubscribedWebhooks(deps.sql, run.tenant_id, events);
  const snapshot = run.config_snapshot;
  const summary: RunEventSummary = {
    runId: run.id,
    suite: { id: snapshot.suite.id, name: snapshot.suite.name },
    chain: { id: snapshot.chain.id, name: snapshot.chain.name, slug: snapshot.chain.slug },
    status,
    triggeredBy: run.triggered_by,
    verdict: run.verdict.verdict,
    previousVerdict,
    exitCode: run.verdict.exit_code,
    summary: run.verdict.summary,
    markdownSummary: run.verdict.markdown_summary,
    failureReason: run.failure_reason,
    finishedAt: run.finished_at,
    dashboardUrl:
      deps.publicUrl === undefined
        ? null
        : `${deps.publicUrl}/dashboard/runs/${run.id}?token=${signDashboardToken(deps.box, run.id, new Date(Date.now() + DASHBOARD_TOKEN_TTL_MS))}`,
  };
  const deliveries: NewDelivery[] = webhooks.flatMap((webhook) =>
    events
      .filter((event) => webhook.events.includes(event))
      .map((event) => ({ webhookId: webhook.id, tenantId: run.tenant_id, runId: run.id, event, payload: webhookBody(webhook.format, event, summary) })),
  );
  const pending = await recordDeliveries(deps.sql, run.id, deliveries);
  const { client, info } = Context.current();
  for (const { id } of pending) {
    try {
      await client.workflow.start<typeof webhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
        workflowId: workflowIdForWebhookDelivery(id),
        taskQueue: info.taskQueue,
        // A delivery workflow that already ran (a retried enqueue) must not run again.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [{ deliveryId: id, initialIntervalMs: deps.webhookRetryInitialIntervalMs ?? DEFAULT_WEBHOOK_RETRY_INITIAL_MS }],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return { deliveries: pending.length };
}

type ErrorKind = DeliveryErrorKind;

interface SendResult {
  responseCode: number | null;
  errorKind: ErrorKind | null;
}

function errorKindOf(error: unknown, signal: AbortSignal): ErrorKind {
  // The deadline, or the activity's cancellation (worker shutdown, Temporal's own timeout): either
  // way the receiver had not answered in time.
  if (signal.aborted) return 'timeout';
  if (error instanceof OutboundAddressRefusedError || (error instanceof Error && error.cause instanceof OutboundAddressRefusedError)) {
    return 'address_refused';
  }
  if (
    error instanceof errors.ConnectTimeoutError ||
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError
  ) {
    return 'timeout';
  }
  return 'connection_error';
}

/**
 * One POST through the outbound guard: an IP literal is checked here (no DNS lookup happens for
 * it), a name at connect time by the guarded lookup. Credentials in the URL's userinfo become
 * Basic auth. Redirects are not followed (a 3xx is a failed attempt). The status code decides the
 * attempt as soon as the headers are in; the body is never read. `signal` ends the attempt
 * (deadline or cancellation) in whatever phase it is. Never throws.
 */
async function send(url: URL, headers: Record<string, string>, body: string, allowPrivate: boolean, signal: AbortSignal): Promise<SendResult> {
  if (refusedLiteral(url, allowPrivate) !== null) {
    return { responseCode: null, errorKind: 'address_refused' };
  }
  // The signal bounds the whole attempt; undici's own timeouts stay as a second line, no longer
  // than the default deadline.
  const client = new Client(url.origin, {
    connect: { timeout: DELIVERY_DEADLINE_MS, lookup: guardedLookup(allowPrivate) as never },
    headersTimeout: DELIVERY_DEADLINE_MS,
    bodyTimeout: DELIVERY_DEADLINE_MS,
  });
  // Destroying the client fails every request it holds, even one still waiting for its connection.
  const onAbort = () => void client.destroy().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const auth =
      url.username || url.password
        ? { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` }
        : {};
    const response = await client.request({
      method: 'POST',
      path: `${url.pathname}${url.search}`,
      headers: { ...auth, ...headers },
      body,
      signal,
    });
    // Nothing in the body matters, and a receiver may drip it forever.
    response.body.on('error', () => undefined).destroy();
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { responseCode: response.statusCode, errorKind: ok ? null : 'http_status' };
  } catch (error) {
    return { responseCode: null, errorKind: errorKindOf(error, signal) };
  } finally {
    signal.removeEventListener('abort', onAbort);
    // destroy, not close: close would wait for the request in flight, i.e. for the receiver.
    await client.destroy().catch(() => undefined);
  }
}

/**
 * One attempt of one delivery (Standard Webhooks): the same webhook-id and body on every attempt,
 * the attempt's own timestamp, signed with the webhook's current secret. Every attempt is written
 * to webhook_delivery_attempts before it is sent (`sending`) and completed with its answer, and
 * logged — status code, latency, error kind; never the URL or the secret. A failed attempt throws
 * for Temporal to retry; a refused address fails for good. An attempt beyond the worker's
 * per-tenant bound (deps.tenantAttempts) is put off unsent and unlogged.
 */
export async function deliverWebhook(deps: WebhookDeps, input: { deliveryId: string }): Promise<{ outcome: 'delivered' | 'gone' }> {
  const delivery = await findDeliveryToSend(deps.sql, input.deliveryId);
  // The webhook was deleted (its deliveries with it), or an earlier attempt already finished it.
  if (!delivery || delivery.status !== 'pending') return { outcome: 'gone' };
  const { info, log, cancellationSignal } = Context.current();
  const release = deps.tenantAttempts ? deps.tenantAttempts.tryAcquire(delivery.tenant_id) : () => undefined;
  if (release === null) {
    // Nothing was sent, so nothing goes in the attempt log; the slot is given back at once and
    // Temporal tries again shortly (this counts against the delivery's 24 hours, not its receiver).
    webhookDeliveries.inc({ outcome: 'deferred' });
    throw ApplicationFailure.create({
      type: 'WebhookTenantBusy',
      message: `the tenant already has ${deps.tenantAttempts!.limit} delivery attempts in flight on this worker`,
      nextRetryDelay: TENANT_BUSY_RETRY_MS,
    });
  }
  try {
    return await attemptDelivery(deps, delivery, { attempt: info.attempt, log, cancellationSignal });
  } finally {
    release();
  }
}

async function attemptDelivery(
  deps: WebhookDeps,
  delivery: NonNullable<Awaited<ReturnType<typeof findDeliveryToSend>>>,
  { attempt, log, cancellationSignal }: { attempt: number; log: Context['log']; cancellationSignal: AbortSignal },
): Promise<{ outcome: 'delivered' | 'gone' }> {
  let url: URL | null;
  try {
    url = new URL(deps.box.decrypt(delivery.url_encrypted));
    // Stored before creation refused it: a userinfo that cannot be decoded fails every attempt alike.
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    url = null;
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'run-verification-service',
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(deps.box.decrypt(delivery.secret_encrypted), delivery.id, timestamp, delivery.payload),
  };
  // In the log before anything is sent: should this worker die before the answer, the attempt
  // (which may have reached the receiver) still shows, and the next one marks it lost.
  await recordAttemptStarted(deps.sql, delivery.id, attempt);
  const signal = AbortSignal.any([AbortSignal.timeout(deps.webhookDeadlineMs ?? DELIVERY_DEADLINE_MS), cancellationSignal]);
  const started = performance.now();
  // Heartbeats while waiting for the receiver: a worker lost mid-attempt is retried within the
  // heartbeat timeout (seconds), not at the attempt's start-to-close timeout.
  const result: SendResult = await heartbeating(async () =>
    url === null ? { responseCode: null, errorKind: 'invalid_url' } : send(url, headers, delivery.payload, deps.allowPrivateWebhooks === true, signal),
  );
  const latencyMs = Math.round(performance.now() - started);
  const outcome = result.errorKind === null ? 'delivered' : 'failed';
  await recordDeliveryAttempt(deps.sql, delivery.id, { attempt, outcome, responseCode: result.responseCode, latencyMs, errorKind: result.errorKind });
  log.info('webhook delivery attempt', {
    deliveryId: delivery.id,
    webhookId: delivery.webhook_id,
    runId: delivery.run_id,
    event: delivery.event,
    attempt,
    outcome,
    responseCode: result.responseCode,
    latencyMs,
    errorKind: result.errorKind,
  });
  if (outcome === 'delivered') {
    webhookDeliveries.inc({ outcome: 'delivered' });
    return { outcome: 'delivered' };
  }
  // Messages name the kind of failure only: the URL may carry credentials.
  const message =
    result.errorKind === 'http_status' ? `the receiver answered HTTP ${result.responseCode}` : `the delivery failed: ${result.errorKind}`;
  if (result.errorKind === 'address_refused' || result.errorKind === 'invalid_url') {
    webhookDeliveries.inc({ outcome: 'refused' });
    throw ApplicationFailure.nonRetryable(message, 'OutboundAddressRefused');
  }
  webhookDeliveries.inc({ outcome: 'retried' });
  throw ApplicationFailure.retryable(message, 'WebhookDeliveryFailed');
}

/** The delivery workflow gave up (24 hours of retries, or a refused target). */
export async function markWebhookDeliveryFailed(deps: Pick<WebhookDeps, 'sql'>, input: { deliveryId: string }): Promise<void> {
  if (await markDeliveryFailed(deps.sql, input.deliveryId)) webhookDeliveries.inc({ outcome: 'failed' });
}
