import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Sql } from '../src/db/client';
import type { SecretBox } from '../src/crypto/secret-box';
import { claimRun } from './claim-run';
import { deliverWebhook, enqueueWebhooks, markWebhookDeliveryFailed } from './deliver-webhook';
import { ClientCache } from './client-cache';
import { finalizeRun } from './finalize-run';
import { planRun } from './plan-run';
import { probeChunk } from './probe-chunk';
import { triggerScheduledRun } from './scheduled-trigger';
import type { FinalizeRunInput, ProbeChunkInput, RetrySummary } from './types';

export interface ActivityDeps {
  sql: Sql;
  box: SecretBox;
  allowPrivateTargets: boolean;
  /** RVS_PUBLIC_URL: the dashboard link in webhook payloads. */
  publicUrl?: string;
  /** First retry delay of a failed webhook delivery (tests shorten it). */
  webhookRetryInitialIntervalMs?: number;
  /** For scheduled triggers, which start the run workflow as the API does (services/schedules.ts). */
  config?: Config;
  temporal?: Client;
}

/** Activities are built from their dependencies; workflows import only the type of this object. */
export function createActivities(deps: ActivityDeps, clients: ClientCache = new ClientCache()) {
  const probeDeps = { ...deps, clients };
  return {
    claimRun: (input: { runId: string }) => claimRun(deps.sql, input),
    planRun: (input: { runId: string; retry: RetrySummary }) => planRun(deps, input),
    probeChunk: (input: ProbeChunkInput) => probeChunk(probeDeps, input),
    finalizeRun: (input: FinalizeRunInput) => finalizeRun(deps, input),
    enqueueWebhooks: (input: { runId: string }) => enqueueWebhooks(deps, input),
    deliverWebhook: (input: { deliveryId: string }) => deliverWebhook(deps, input),
    markWebhookDeliveryFailed: (input: { deliveryId: string }) => markWebhookDeliveryFailed(deps, input),
    triggerScheduledRun: (input: { suiteId: string }) => triggerScheduledRun(deps, input),
  };
}

export type Activities = ReturnType<typeof createActivities>;
