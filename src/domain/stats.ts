/** Run statistics in the spec's shape. Computed in Postgres; these types describe the result. */
export interface LatencySummary {
  avg_ms: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  sample_count: number;
}

export interface RunStats {
  calls: { total: number; successful: number; failed: number };
  tests: { successful: number; failed: number };
  latency: { successful: LatencySummary; all: LatencySummary };
}

export const emptyLatency = (): LatencySummary => ({ avg_ms: 0, p50_ms: 0, p95_ms: 0, p99_ms: 0, sample_count: 0 });

export const emptyStats = (): RunStats => ({
  calls: { total: 0, successful: 0, failed: 0 },
  tests: { successful: 0, failed: 0 },
  latency: { successful: emptyLatency(), all: emptyLatency() },
});
