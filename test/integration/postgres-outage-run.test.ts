import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/runtime/embedded-postgres';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, post } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { until } from '../helpers/worker-process';

// The run's database is a PostgreSQL this test starts, stops and starts again (never the shared one).

const OUTAGE_MS = 5_000;

interface AttemptOfChunk {
  targetId: string;
  chunk: number;
  attempt: number;
}

/** The attempt at which each probeChunk activity finally completed, from the workflow's history. */
async function completedProbeAttempts(stack: Stack, runId: string): Promise<AttemptOfChunk[]> {
  const history = await stack.client.workflow.getHandle(workflowIdForRun(runId)).fetchHistory();
  const scheduled = new Map<string, { targetId: string; chunk: number }>();
  const started = new Map<string, number>();
  const completed: AttemptOfChunk[] = [];
  for (const event of history.events ?? []) {
    const id = String(event.eventId);
    const s = event.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name === 'probeChunk') {
      const input = JSON.parse(Buffer.from(s.input!.payloads![0]!.data!).toString('utf8')) as { targetId: string; fromSeq: number };
      scheduled.set(id, { targetId: input.targetId, chunk: input.fromSeq });
    }
    const st = event.activityTaskStartedEventAttributes;
    if (st) started.set(String(st.scheduledEventId), st.attempt ?? 1);
    const c = event.activityTaskCompletedEventAttributes;
    const chunk = c ? scheduled.get(String(c.scheduledEventId)) : undefined;
    if (c && chunk) completed.push({ ...chunk, attempt: started.get(String(c.scheduledEventId))! });
  }
  return completed;
}

describe('a run through a PostgreSQL outage', () => {
  let dir: string;
  let port: number;
  let pg: EmbeddedDatabase;
  let stack: Stack;
  let node: FakeNode;
  let observer: Sql | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rvs-outage-'));
    // As root PostgreSQL runs as the `postgres` user, which must reach the data dir.
    await chmod(dir, 0o755);
    port = await freePort();
    pg = await startEmbeddedPostgres(dir, () => undefined, port);
    const admin = createSql(pg.url, { max: 1 });
    await migrate(admin);
    await admin.end();
    stack = await startStack({ databaseUrl: pg.url });
    node = await startFakeNode(answers.delay(3));
  }, 60_000);
  afterAll(async () => {
    await observer?.end({ timeout: 1 });
    await node?.close();
    await stack?.close();
    await pg?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('succeeds with every sample exactly once and the outage attempts in retry_history', { timeout: 110_000 }, async () => {
    const planned = 8_000;
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        workload: { requests_per_target: planned, concurrency: 4, warmup_requests: 0 },
        // The endpoint's budget: two attempts. Our own outage must not spend it.
        retry: { max_attempts: 2, initial_interval_ms: 200, max_interval_ms: 1_000 },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const runId = created.body.id;

    await until(() => node.requests.length >= 1_500, 60_000, 'probing under way');
    await pg.stop();
    const sentAtStop = node.requests.length;
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    pg = await startEmbeddedPostgres(dir, () => undefined, port);
    const backAt = performance.now();

    // Watched through a pool of its own, so the test does not depend on the stack's recovering.
    observer = createSql(pg.url, { max: 1 });
    const db = observer;
    await until(
      async () => {
        const [row] = await db<{ status: string }[]>`select status from runs where id = ${runId}`;
        return ['success', 'failed', 'cancelled'].includes(row!.status);
      },
      90_000,
      'run finished',
    );
    // The figure docs/operations.md quotes.
    console.log(`run finished ${((performance.now() - backAt) / 1000).toFixed(1)} s after PostgreSQL was back (outage ${OUTAGE_MS / 1000} s)`);
    const [run] = await db<{ status: string; failure_reason: string | null }[]>`
      select status, failure_reason from runs where id = ${runId}`;
    expect(run, 'the outage must not fail the run').toEqual({ status: 'success', failure_reason: null });
    expect(sentAtStop).toBeLessThan(planned);

    const [counts] = await db<{ n: number; distinct_seq: number; min_seq: number; max_seq: number }[]>`
      select count(*)::int as n, count(distinct seq)::int as distinct_seq, min(seq) as min_seq, max(seq) as max_seq
      from run_samples where run_id = ${runId}`;
    expect(counts).toEqual({ n: planned, distinct_seq: planned, min_seq: 0, max_seq: planned - 1 });

    const history = await db<{ target_id: string; chunk_seq: number; attempt: number; error_type: string; activity: string }[]>`
      select target_id, chunk_seq, attempt, error_type, activity from run_retries where run_id = ${runId} order by chunk_seq, attempt`;
    expect(history.length, 'the outage is on record').toBeGreaterThan(0);
    expect(history.every((h) => h.error_type === 'infrastructure' || h.error_type === 'attempt_lost')).toBe(true);
    expect(history.some((h) => h.error_type === 'infrastructure')).toBe(true);
    // Every attempt before the one that completed its chunk is in the history, once.
    const completed = await completedProbeAttempts(stack, runId);
    for (const c of completed) {
      const recorded = history.filter((h) => h.activity === 'probeChunk' && h.target_id === c.targetId && h.chunk_seq === c.chunk);
      expect(recorded.map((h) => h.attempt), `chunk ${c.chunk}`).toEqual(Array.from({ length: c.attempt - 1 }, (_, i) => i + 1));
    }
    expect(completed.some((c) => c.attempt > 1)).toBe(true);
  });
});
