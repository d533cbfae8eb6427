import { createServer } from 'node:net';
import type { MetricsExporterConfig } from '@temporalio/worker';

/** A scrape of the Temporal runtime's exporter that takes longer than this is served without it. */
const SCRAPE_TIMEOUT_MS = 2_000;

/**
 * The Temporal SDK's own worker metrics (task slots, schedule-to-start latency, poll failures,
 * sticky cache, request failures …) come from its Rust core, which serves them on a Prometheus
 * endpoint of its own (`Runtime.install({ telemetryOptions: { metrics: { prometheus } } })`).
 * Rather than a second port per worker for operators to scrape, open and document, the core's
 * endpoint listens on a loopback port the OS chose and the worker's /metrics appends its text
 * (temporalMetricsText), so the one scrape target carries both. Names follow the Prometheus
 * conventions: counters end in `_total`, durations are in seconds with a `_seconds` suffix.
 */
export function temporalPrometheusExporter(bindAddress: string): MetricsExporterConfig {
  return {
    prometheus: { bindAddress, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true },
  };
}

/**
 * A loopback address for the core's exporter. The core cannot be asked for port 0 and report the
 * port it got, so this takes a port the OS just handed out; losing it to another process in
 * between fails Runtime.install, and the worker then runs without the SDK's metrics (worker.ts).
 */
export function loopbackAddressForTemporalMetrics(): Promise<string> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(`127.0.0.1:${port}`));
    });
  });
}

/**
 * Fetches the core exporter's text for the worker's /metrics. Its families are all `temporal_*`,
 * so appending them to ours cannot repeat a family. Throws when the exporter does not answer
 * (the caller serves its own families then).
 */
export async function temporalMetricsText(bindAddress: string): Promise<string> {
  const response = await fetch(`http://${bindAddress}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`the Temporal runtime's metrics answered ${response.status}`);
  return response.text();
}
