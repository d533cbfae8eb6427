import type { Queryable } from '../src/db/client';
import { findEndpoint } from '../src/db/endpoints';
import { findRun } from '../src/db/runs';
import { findRunTargets, type RunTargetRow } from '../src/db/run-targets';
import { upsertRunIntegrity, type IntegrityCallFinding } from '../src/db/run-integrity';
import { renderParams, type RunPlan } from '../src/chains/registry';
import type { IntegrityAnchor, IntegrityCall, IntegrityFinding, IntegrityVerifier, PinCall } from '../src/chains/types';
import { runSettingsOf, targetsByRole, type RunSettings } from '../src/domain/run-plan';
import type { JsonRpcClient } from '../src/probe/json-rpc-client';
import { openEndpointClient } from './endpoint-client';
import { heartbeating } from './heartbeating';
import type { RecheckDeps } from './recheck-head-moved';
import { runEndingStep } from './run-ending-step';
import { runPlanOrFail } from './run-plan';

/*
 * The integrity step (issue 34, DESIGN.md §15): after probing and before finalize, in its own
 * activity (finalize does no network I/O). For each candidate, the run's distinct calls (the
 * workload's entries as the run rendered them at its pinned block) are asked again and the
 * family's verifier proves each answer against a header linked to the run's anchor, fetching the
 * proofs it needs from the same candidate. Every request of the step counts against the suite's
 * budget (config.integrity.max_requests per candidate); none is stored as a probe sample. One row
 * per candidate in run_integrity (migration 040): counts, extra requests, the anchor, findings.
 */

/** Distinct calls verified per candidate. */
export const MAX_INTEGRITY_CALLS = 32;
/** No call starts later than this after the step began (the run waits for nothing longer). */
const INTEGRITY_TIME_BUDGET_MS = 60_000;
/** A finding's texts are cut to this many characters. */
const MAX_TEXT = 400;

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);
/** An error as a reason: what the endpoint client said, without any URL (an endpoint's key may be in it). */
const reasonOf = (error: unknown) => cut((error instanceof Error ? error.message : String(error)).replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>'));

/** The run's distinct calls, rendered as the probes sent them (the pinned block and context filled in). */
export function integrityCalls(plan: RunPlan): IntegrityCall[] {
  const seen = new Set<string>();
  const calls: IntegrityCall[] = [];
  for (const entry of plan.workload.methods) {
    const rendered = renderParams(plan.chain, entry.params, plan.pinnedBlock, plan.pinnedContext);
    const params = Array.isArray(rendered) ? rendered : [];
    const key = JSON.stringify([entry.method, params]);
    if (seen.has(key)) continue;
    seen.add(key);
    calls.push({ method: entry.method, params });
    if (calls.length === MAX_INTEGRITY_CALLS) break;
  }
  return calls;
}

/** A finding as stored: the call named (params as JSON, cut short), texts bounded. */
export function storedFinding(call: IntegrityCall, finding: IntegrityFinding): IntegrityCallFinding {
  const named = { method: call.method, params: cut(JSON.stringify(call.params)) };
  switch (finding.kind) {
    case 'proven':
      return { ...named, kind: 'proven', block: finding.block };
    case 'wrong':
      return { ...named, kind: 'wrong', block: finding.block, path: cut(finding.path), message: cut(finding.message) };
    default:
      return { ...named, kind: 'not_provable', reason: cut(finding.reason) };
  }
}

/** A PinCall to `client` that refuses once `max` requests were sent; `sent()` counts them. */
export function budgetedCall(client: JsonRpcClient, max: number): { call: PinCall; sent: () => number } {
  let sent = 0;
  return {
    call: async (method, params) => {
      if (sent >= max) throw new Error(`the budget of ${max} extra requests is spent`);
      sent += 1;
      return client.result(method, params);
    },
    sent: () => sent,
  };
}

export async function verifyIntegrity(deps: RecheckDeps, input: { runId: string }): Promise<{ verified: number }> {
  // Its worker lost too often: nothing stored, the check says nothing was verified.
  return runEndingStep(() => verifyIntegrityOnce(deps, input), async () => ({ verified: 0 }));
}

async function verifyIntegrityOnce(deps: RecheckDeps, input: { runId: string }): Promise<{ verified: number }> {
  return heartbeating(async () => {
    const run = await findRun(deps.sql, input.runId);
    if (!run || run.verdict) return { verified: 0 };
    const settings = runSettingsOf(run);
    if (!settings.integrity) return { verified: 0 };
    const plan = runPlanOrFail(run);
    const verifier = plan.chain.integrity;
    // A family without proofs: finalize says the check does not apply.
    if (!verifier) return { verified: 0 };
    const { candidates, reference } = targetsByRole(await findRunTargets(deps.sql, run.id));
    const calls = integrityCalls(plan);
    const chainSlug = (run.config_snapshot as { chain?: { slug?: unknown } }).chain?.slug;
    const anchor = await anchorOf(deps, deps.sql, settings, plan, verifier, reference);
    const deadlineMs = Date.now() + INTEGRITY_TIME_BUDGET_MS;
    let verified = 0;
    for (const target of candidates) {
      verified += await verifyCandidate(deps, plan, settings.integrity, verifier, target, calls, { anchor, chainSlug: typeof chainSlug === 'string' ? chainSlug : null }, deadlineMs);
    }
    return { verified };
  });
}

/** The run's anchor: the trusted block, else the reference's hash of the pinned block (when the family reads one), else null. */
async function anchorOf(
  deps: RecheckDeps,
  sql: Queryable,
  settings: RunSettings,
  plan: RunPlan,
  verifier: IntegrityVerifier,
  reference: RunTargetRow | undefined,
): Promise<IntegrityAnchor | null> {
  const trusted = settings.integrity?.trusted_block;
  if (trusted) return { number: BigInt(trusted.number), hash: trusted.hash.toLowerCase(), source: 'trusted_block' };
  if (!reference || plan.pinnedBlock === null || !verifier.anchorAt) return null;
  const endpoint = await findEndpoint(sql, reference.endpoint_id);
  if (!endpoint) return null;
  let client: JsonRpcClient | null = null;
  try {
    client = openEndpointClient(deps, endpoint, { timeoutMs: plan.workload.timeout_ms, connections: 1, chain: plan.chain });
    const opened = client;
    const hash = await verifier.anchorAt((method, params) => opened.result(method, params), BigInt(plan.pinnedBlock));
    return hash === null ? null : { number: BigInt(plan.pinnedBlock), hash, source: 'reference' };
  } catch {
    // The reference did not say: self-consistency only (the verdict says which anchor it had).
    return null;
  } finally {
    await client?.close();
  }
}

async function verifyCandidate(
  deps: RecheckDeps,
  plan: RunPlan,
  config: NonNullable<RunSettings['integrity']>,
  verifier: IntegrityVerifier,
  target: RunTargetRow,
  calls: readonly IntegrityCall[],
  { anchor, chainSlug }: { anchor: IntegrityAnchor | null; chainSlug: string | null },
  deadlineMs: number,
): Promise<number> {
  const endpoint = await findEndpoint(deps.sql, target.endpoint_id);
  if (!endpoint) return 0;
  const findings: IntegrityCallFinding[] = [];
  let client: JsonRpcClient | null = null;
  let sent = () => 0;
  try {
    client = openEndpointClient(deps, endpoint, { timeoutMs: plan.workload.timeout_ms, connections: 2, chain: plan.chain });
    const budget = budgetedCall(client, config.max_requests);
    sent = budget.sent;
    const context = { call: budget.call, anchor, maxAnchorDistance: config.max_anchor_distance, chain: { slug: chainSlug }, memo: new Map<string, unknown>() };
    for (const call of calls) {
      const reason = verifier.notProvable(call.method);
      if (reason !== null) {
        findings.push(storedFinding(call, { kind: 'not_provable', reason }));
        continue;
      }
      if (Date.now() > deadlineMs) {
        findings.push(storedFinding(call, { kind: 'not_provable', reason: 'the step ran out of time before this call' }));
        continue;
      }
      let answer: unknown;
      try {
        answer = await budget.call(call.method, call.params);
      } catch (error) {
        findings.push(storedFinding(call, { kind: 'not_provable', reason: `asked again, the endpoint did not answer: ${reasonOf(error)}` }));
        continue;
      }
      findings.push(storedFinding(call, await verifier.verify(call, answer, context)));
    }
  } catch (error) {
    findings.push({ method: '(endpoint)', params: '[]', kind: 'not_provable', reason: `the endpoint could not be asked: ${reasonOf(error)}` });
  } finally {
    await client?.close();
  }
  const count = (kind: IntegrityCallFinding['kind']) => findings.filter((f) => f.kind === kind).length;
  await upsertRunIntegrity(deps.sql, {
    run_id: target.run_id,
    target_id: target.id,
    proven: count('proven'),
    wrong: count('wrong'),
    not_provable: count('not_provable'),
    extra_requests: sent(),
    anchor_number: anchor ? anchor.number.toString() : null,
    anchor_hash: anchor ? anchor.hash : null,
    anchor_source: anchor ? anchor.source : null,
    findings,
  });
  return findings.length;
}
