// Shared by workflows, the worker and the client. Must stay free of Node built-ins: workflows import it.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const workflowIdForRun = (runId: string): string => `run-${runId}`;

/** One workflow per webhook delivery; the id is never reused, so a delivery is never started twice. */
export const workflowIdForWebhookDelivery = (deliveryId: string): string => `webhook-${deliveryId}`;
export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';

/** One Temporal Schedule per suite with a schedule; each fire starts scheduledTriggerWorkflow (src/temporal/schedules.ts). */
export const scheduleIdForSuite = (suiteId: string): string => `suite-${suiteId}`;
/** The service's own schedule that expires raw samples (src/temporal/sample-expiry-schedule.ts). */
export const SAMPLE_EXPIRY_SCHEDULE_ID = 'rvs-sample-expiry';

/**
 * The probe queue of a region (DESIGN.md §14): every worker polls its own region's besides the
 * main queue, and a run with vantage_points sends each region's probe activities there.
 */
export const probeTaskQueueForRegion = (region: string): string => `rvs-probe-${region}`;

/** Typed search attributes, registered on the dev server at start (docs/operations.md for a cluster). */
export const SEARCH_ATTRIBUTE_KEYS = {
  tenantId: defineSearchAttributeKey('RvsTenantId', SearchAttributeType.KEYWORD),
  suiteId: defineSearchAttributeKey('RvsSuiteId', SearchAttributeType.KEYWORD),
  chain: defineSearchAttributeKey('RvsChain', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('RvsStatus', SearchAttributeType.KEYWORD),
  verdict: defineSearchAttributeKey('RvsVerdict', SearchAttributeType.KEYWORD),
  /** The run's vantage points (a run without vantage_points sets none). */
  regions: defineSearchAttributeKey('RvsRegions', SearchAttributeType.KEYWORD_LIST),
} as const;
