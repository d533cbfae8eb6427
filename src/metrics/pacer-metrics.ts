import { Counter, Gauge } from 'prom-client';
import type { CampaignPacer } from '../probe/campaign-pacer';
import { workerRegistry } from './registry';

/*
 * What the worker's campaign pacing (src/probe/campaign-pacer.ts, DESIGN §17) is doing, for an
 * operator asking "why is this campaign slow?" or "are interactive runs getting room?": read from
 * the worker's pacer at scrape time. One pacer per worker process (activityDepsFromConfig).
 */

let pacer: CampaignPacer | null = null;

/** Makes `next` the pacer the gauges read (the worker's, once it has its deps). */
export function watchCampaignPacer(next: CampaignPacer): void {
  pacer = next;
}

const readout = <K extends 'limit' | 'inFlight' | 'interactive' | 'campaigns'>(key: K) =>
  function collect(this: Gauge) {
    this.set(pacer === null ? 0 : pacer.state[key]);
  };

export const campaignPacerLimit = new Gauge({
  name: 'rvs_campaign_pacer_limit',
  help: 'Campaign calls this worker lets be in flight at once now (halved while its event-loop delay p99 is above RVS_CAMPAIGN_MAX_LOOP_DELAY_MS; 100000: unthrottled)',
  registers: [workerRegistry],
  collect: readout('limit'),
});
export const campaignPacerInFlight = new Gauge({
  name: 'rvs_campaign_pacer_in_flight',
  help: 'Campaign calls in flight on this worker',
  registers: [workerRegistry],
  collect: readout('inFlight'),
});
export const campaignPacerCampaigns = new Gauge({
  name: 'rvs_campaign_pacer_campaigns',
  help: 'Campaign-class probe activities running on this worker',
  registers: [workerRegistry],
  collect: readout('campaigns'),
});
export const campaignPacerInteractive = new Gauge({
  name: 'rvs_campaign_pacer_interactive',
  help: 'Interactive activities on this worker (or ended less than a second ago) that make its campaigns yield: above 0, no campaign call starts',
  registers: [workerRegistry],
  collect: readout('interactive'),
});

/** Probe activity attempts that found their tenant at its cap of probe activities in flight (they wait, then ask again). */
export const tenantProbeCapWaits = new Counter({
  name: 'rvs_tenant_probe_cap_waits_total',
  help: 'Probe activity attempts that found their tenant at its cap of probe activities in flight and waited (RVS_TENANT_MAX_PROBE_ACTIVITIES or the tenant\'s own cap)',
  registers: [workerRegistry],
});
