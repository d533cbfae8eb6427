import { z } from 'zod';
import { component, count, int, isoTimestamp, url, uuid } from '../shared/schemas';
import { role, Run, RunMetrics, SuiteTrendPage, verdictFields } from '../runs/schemas';

export const DashboardData = component(
  'DashboardData',
  z.object({
    run: Run.omit({ dashboard_url: true }).describe('the Run without dashboard_url: a link holder never gets a renewed link'),
    verdict: z.object(verdictFields).nullable().describe('the Verdict without dashboard_url; null until the run is finished'),
    metrics: RunMetrics,
    histogram: z
      .strictObject({
        from_ms: z.number(),
        bucket_ms: z.number(),
        buckets: int.min(1),
        targets: z.array(
          z.object({
            target_id: uuid,
            endpoint_name: z.string(),
            role,
            counts: z.array(count),
            overflow: count,
            total: count,
          }),
        ),
      })
      .nullable()
      .describe('latency distribution of successful calls; null before the first one, and once the raw samples expired'),
    samples_expired_at: isoTimestamp
      .nullable()
      .describe('when the run\'s raw samples were deleted past their retention (metrics then have no bucket nor method row); null while they are kept'),
    temporal_ui_url: url.nullable(),
    generated_at: isoTimestamp,
  }),
);

export const DashboardSuiteTrend = component(
  'DashboardSuiteTrend',
  z.object({
    run_id: uuid.describe('the run whose link was used'),
    suite: z.object({ id: uuid, name: z.string() }),
    trend: SuiteTrendPage,
    run_links: z
      .array(z.object({ run_id: uuid, path: z.string().describe('/dashboard/runs/{run_id}?token=…') }))
      .describe('a link to each listed run\'s page: read-only, expiring with the token used (never later)'),
    link_expires_at: isoTimestamp.describe('when the token used, and every link in run_links, expires'),
    generated_at: isoTimestamp,
  }),
);
