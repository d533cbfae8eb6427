import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Sql } from '../src/db/client';
import type { SecretBox } from '../src/crypto/secret-box';
import { CampaignPacer } from '../src/probe/campaign-pacer';
import { watchCampaignPacer } from '../src/metrics/pacer-metrics';
import type { LoopBurn } from '../src/probe/prober-health';

/** What the worker builds the activities from (createActivities). */
export interface ActivityDeps {
  sql: Sql;
  box: SecretBox;
  allowPrivateTargets: boolean;
  /** Webhook deliveries to loopback and private addresses (RVS_ALLOW_PRIVATE_WEBHOOKS); absent: refused. */
  allowPrivateWebhooks?: boolean;
  /** RVS_PUBLIC_URL: the dashboard link in webhook payloads. */
  publicUrl?: string;
  /** First retry delay of a failed webhook delivery (tests shorten it). */
  webhookRetryInitialIntervalMs?: number;
  /** Overall deadline of one webhook delivery attempt (tests shorten it). */
  webhookDeadlineMs?: number;
  /** Webhook delivery attempts one tenant may have in flight on this worker (DEFAULT_WEBHOOK_ATTEMPTS_PER_TENANT). */
  webhookAttemptsPerTenant?: number;
  /** For scheduled triggers, which start the run workflow as the API does (services/schedules.ts). */
  config?: Config;
  temporal?: Client;
  /** Probe activities a tenant may have in flight when its row sets no cap (RVS_TENANT_MAX_PROBE_ACTIVITIES). */
  tenantMaxProbeActivities?: number;
  /** The worker's campaign pacing, shared by its probe activities; absent: campaigns are not paced. */
  pacer?: CampaignPacer;
  /**
   * Tests only: burns the worker's event loop while it probes, to stand in for a saturated worker.
   * activityDepsFromConfig never sets it: no configuration, suite or request can.
   */
  testLoopBurn?: LoopBurn;
}

/**
 * The worker's activity deps from its configuration: one place, so a new setting reaches the
 * production worker and the test stack's worker alike.
 */
export function activityDepsFromConfig(config: Config, sql: Sql, box: SecretBox, temporal: Client): ActivityDeps {
  return {
    sql,
    box,
    allowPrivateTargets: config.allowPrivateTargets,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    publicUrl: config.publicUrl,
    tenantMaxProbeActivities: config.tenantMaxProbeActivities,
    pacer: watchedPacer(new CampaignPacer({ maxLoopDelayMs: config.campaignMaxLoopDelayMs })),
    config,
    temporal,
  };
}

/** The worker's pacer, read by its metrics (rvs_campaign_pacer_*). */
function watchedPacer(pacer: CampaignPacer): CampaignPacer {
  watchCampaignPacer(pacer);
  return pacer;
}
