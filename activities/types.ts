// Inputs and results of activities: ids and small summaries only — never samples, URLs or
// headers (Temporal keeps every payload in the workflow history and shows it in its UI).

export interface RetrySummary {
  maxAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maxIntervalMs: number;
}

export interface ClaimRunResult {
  outcome: 'claimed' | 'already_claimed' | 'terminal';
  targets: { targetId: string; role: 'primary' | 'reference' }[];
  retry: RetrySummary;
  callsPlanned: number;
}

export interface ProbeTargetInput {
  runId: string;
  targetId: string;
  retry: RetrySummary;
}

export interface ProbeTargetResult {
  targetId: string;
  calls: number;
  failed: number;
}

export interface FinalizeRunInput {
  runId: string;
  status: 'success' | 'failed' | 'cancelled';
  failureReason: string | null;
}

export interface FinalizeRunResult {
  status: 'success' | 'failed' | 'cancelled';
  verdict: 'pass' | 'fail' | 'error';
  exitCode: number;
}

/** Heartbeat details of a probe chunk: where a retried attempt resumes. */
export interface ProbeProgress {
  nextSeq: number;
}
