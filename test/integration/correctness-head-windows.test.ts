import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type Activities } from '../../activities';
import { findRunTargets } from '../../src/db/run-targets';
import { recordHead } from '../../src/db/run-heads';
import { classifyDifferingSamples, compareWithReference } from '../../src/db/samples-correctness';
import { writeSampleChunk, type SampleRow } from '../../src/db/samples-ingest';
import { createSuite, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

/*
 * The head-moved rule of classifyDifferingSamples in real Postgres, one boundary per row: a
 * differing pair of a head-dependent method is excused only when the candidate's or the
 * reference's recorded heads changed between the reads around that side's sample
 * (last read at or before it, first read after it).
 */

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000);

type Heads = [seconds: number, head: number][];

interface Case {
  name: string;
  method?: string;
  candidateHeads: Heads;
  referenceHeads: Heads;
  /** When each side's differing sample started, seconds after T0. */
  candidateAt?: number;
  referenceAt?: number;
  excused: boolean;
}

describe('correctness: a head-dependent difference is excused only when a recorded head moved around it', () => {
  let stack: Stack;
  let activities: Activities;
  beforeAll(async () => {
    stack = await startStack({ worker: false });
    activities = createActivities({ sql: stack.sql, box: stack.box, allowPrivateTargets: true });
  });
  afterAll(async () => {
    await stack.close();
  });

  function sample(runId: string, targetId: string, role: SampleRow['role'], method: string, seconds: number): SampleRow {
    return {
      run_id: runId,
      target_id: targetId,
      seq: 0,
      role,
      method,
      started_at: at(seconds),
      latency_us: 1_000,
      ok: true,
      outcome: 'ok',
      http_status: null,
      rpc_error_code: null,
      response_hash: role === 'primary' ? 'c'.repeat(32) : 'r'.repeat(32),
      matches_reference: null,
    };
  }

  it.each<Case>([
    { name: 'no head read at all', candidateHeads: [], referenceHeads: [], excused: false },
    { name: 'both heads frozen around the samples', candidateHeads: [[0, 54], [10, 54]], referenceHeads: [[0, 54], [10, 54]], excused: false },
    { name: 'frozen heads at different heights (lag, not movement)', candidateHeads: [[0, 53], [10, 53]], referenceHeads: [[0, 54], [10, 54]], excused: false },
    { name: 'the candidate head moved around its sample', candidateHeads: [[0, 54], [10, 55]], referenceHeads: [[0, 54], [10, 54]], excused: true },
    { name: 'the reference head moved around its sample', candidateHeads: [[0, 54], [10, 54]], referenceHeads: [[0, 54], [10, 55]], excused: true },
    { name: 'a move in an earlier window only', candidateHeads: [[0, 54], [4, 55], [10, 55]], referenceHeads: [[0, 55], [10, 55]], excused: false },
    { name: 'a move in a later window only', candidateHeads: [[0, 54], [6, 54], [10, 55]], referenceHeads: [[0, 54], [10, 54]], excused: false },
    { name: 'moved before, but no read after the sample', candidateHeads: [[0, 54], [3, 55]], referenceHeads: [[0, 54], [3, 55]], excused: false },
    { name: 'the sample started at the very read that opens a moving window', candidateHeads: [[5, 54], [10, 55]], referenceHeads: [], excused: true },
    { name: 'the sample started at the read that closes a moving window', candidateHeads: [[0, 54], [5, 55], [10, 55]], referenceHeads: [], excused: false },
    { name: 'heads moved, but the method is not head-dependent', method: 'eth_chainId', candidateHeads: [[0, 54], [10, 55]], referenceHeads: [[0, 54], [10, 55]], excused: false },
  ])('$name → excused $excused', async ({ method = 'eth_getBalance', candidateHeads, referenceHeads, candidateAt = 5, referenceAt = 5, excused }) => {
    const { auth } = await stack.newTenant();
    // Never probed: the endpoints only have to exist.
    const setup = await createSuite(stack.app, auth, {
      candidates: ['http://127.0.0.1:9/candidate'],
      reference: 'http://127.0.0.1:9/reference',
      config: {
        workload: { methods: [{ method, params: [] }], requests_per_target: 1, concurrency: 1, warmup_requests: 0 },
        thresholds: { correctness_enabled: true },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const runId = created.body.id;
    await activities.claimRun({ runId });
    const targets = await findRunTargets(stack.sql, runId);
    const candidate = targets.find((t) => t.role === 'primary')!;
    const reference = targets.find((t) => t.role === 'reference')!;
    for (const [target, seconds, heads] of [
      [candidate, candidateAt, candidateHeads],
      [reference, referenceAt, referenceHeads],
    ] as const) {
      await writeSampleChunk(stack.sql, { runId, targetId: target.id, fromSeq: 0, toSeq: 1 }, [sample(runId, target.id, target.role, method, seconds)]);
      for (const [s, head] of heads) await recordHead(stack.sql, { runId, targetId: target.id, observedAt: at(s), head: BigInt(head) });
    }

    const classified = await stack.sql.begin(async (tx) => {
      await compareWithReference(tx, runId, [candidate.id], reference.id);
      return classifyDifferingSamples(tx, runId, [candidate.id], reference.id, { headDependentMethods: ['eth_getBalance'], limit: 10 });
    });
    expect(classified.counts).toEqual([{ method, mismatched: excused ? 0 : 1, head_moved: excused ? 1 : 0, confirmed: 0, resolved: 0, recheck_failed: 0 }]);
    expect(classified.examples).toHaveLength(excused ? 0 : 1);
  });
});
