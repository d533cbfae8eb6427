import { describe, expect, it } from 'vitest';
import { watchCampaignPacer } from '../../src/metrics/pacer-metrics';
import { workerRegistry } from '../../src/metrics/registry';
import { CampaignPacer } from '../../src/probe/campaign-pacer';

/* The worker's campaign pacing as its metrics show it, read from the pacer at scrape time. */

async function gauges(): Promise<Record<string, number>> {
  const text = await workerRegistry.metrics();
  const values: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const match = /^(rvs_campaign_pacer_\w+) (\S+)$/.exec(line);
    if (match) values[match[1]!] = Number(match[2]);
  }
  return values;
}

describe('rvs_campaign_pacer_*: what the pacer is doing, at scrape time', () => {
  it('follows a campaign\u2019s calls in flight, the limit the loop delay sets, and interactive runs making campaigns yield', async () => {
    const pacer = new CampaignPacer({ maxLoopDelayMs: 20, sampleLoop: false, interactiveLingerMs: 0 });
    watchCampaignPacer(pacer);
    expect(await gauges()).toEqual({ rvs_campaign_pacer_limit: 100_000, rvs_campaign_pacer_in_flight: 0, rvs_campaign_pacer_campaigns: 0, rvs_campaign_pacer_interactive: 0 });

    const campaign = pacer.enter('campaign');
    const releases = await Promise.all([1, 2, 3].map(() => campaign.pace!.acquire(() => false)));
    // A loaded window (p99 above 20 ms) halves the limit from the calls in flight: 3 → 1.
    pacer.observeLoopDelay(50);
    const interactive = pacer.enter('interactive');
    expect(await gauges()).toEqual({ rvs_campaign_pacer_limit: 1, rvs_campaign_pacer_in_flight: 3, rvs_campaign_pacer_campaigns: 1, rvs_campaign_pacer_interactive: 1 });

    for (const release of releases) release!();
    interactive.leave();
    campaign.leave();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await gauges()).toEqual({ rvs_campaign_pacer_limit: 100_000, rvs_campaign_pacer_in_flight: 0, rvs_campaign_pacer_campaigns: 0, rvs_campaign_pacer_interactive: 0 });
  });
});
