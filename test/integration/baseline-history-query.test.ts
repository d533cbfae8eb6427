import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillRunSummaries, findRun } from '../../src/db/runs';
import { findPassingHistory, findPreviousSuccessfulRun } from '../../src/db/run-history';
import { createSuite, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

/**
 * Which earlier runs the baseline may use, in Postgres: only runs of the same suite, tenant and
 * candidate endpoints whose verdict passed — a run that succeeded but failed its verdict never
 * becomes a baseline (issue 11: a regressed run had become the next run's baseline).
 */
describe('baseline history queries', () => {
  let stack: Stack;
  beforeAll(async () => {
    // No worker: the runs stay queued and the test writes their outcomes itself.
    stack = await startStack({ worker: false });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('takes the newest passing runs of the same suite and candidates, newest first, within the window', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/a'] });
    const trigger = async () => {
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      expect(created.status).toBe(201);
      return created.body.id;
    };
    // Rows as stored before migration 032 (no history summary): the lookup falls back to their
    // verdict and snapshot; after backfillRunSummaries it reads the summary, with the same answer.
    const finish = async (id: string, index: number, outcome: { verdict: 'pass' | 'fail' | 'error'; p95Us?: number; p95Ms?: number; status?: string }) => {
      const checks = outcome.p95Us === undefined ? [] : [{ name: 'latency_p95', status: 'pass', message: '', details: { p95: 0, threshold: 0, p95_us: outcome.p95Us } }];
      await stack.sql`
        update runs set status = ${outcome.status ?? 'success'},
          requested_at = ${new Date(Date.UTC(2026, 0, 1, 0, index))}, finished_at = ${new Date(Date.UTC(2026, 0, 1, 0, index, 30))},
          verdict = ${stack.sql.json({ verdict: outcome.verdict, checks } as never)},
          stats = ${stack.sql.json({ latency: { successful: { p95_ms: outcome.p95Ms ?? 0 } } } as never)}
        where id = ${id}`;
    };
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await trigger());
    await finish(ids[0]!, 0, { verdict: 'pass', p95Us: 40_100 });
    await finish(ids[1]!, 1, { verdict: 'pass', p95Ms: 41 }); // judged before p95_us was stored
    await finish(ids[2]!, 2, { verdict: 'fail', p95Us: 90_000 }); // regressed: never a baseline
    await finish(ids[3]!, 3, { verdict: 'pass', p95Us: 42_300 });
    await finish(ids[4]!, 4, { verdict: 'error', status: 'failed' });
    await finish(ids[5]!, 5, { verdict: 'pass', p95Us: 43_000 });
    // Another candidate set (the suite's targets changed): a different endpoint, not comparable.
    await finish(ids[6]!, 6, { verdict: 'pass', p95Us: 10_000 });
    await stack.sql`
      update runs set config_snapshot = jsonb_set(config_snapshot, '{suite,config,targets}', '[{"endpoint_id": "99999999-9999-4999-8999-999999999999", "role": "primary"}]')
      where id = ${ids[6]!}`;
    await finish(ids[7]!, 7, { verdict: 'fail', p95Us: 95_000 });
    const current = await trigger();
    await stack.sql`update runs set requested_at = ${new Date(Date.UTC(2026, 0, 1, 1))} where id = ${current}`;
    const run = (await findRun(stack.sql, current))!;

    expect(await findPassingHistory(stack.sql, run, 10)).toEqual([
      { run_id: ids[5], p95_us: 43_000 },
      { run_id: ids[3], p95_us: 42_300 },
      { run_id: ids[1], p95_us: 41_000 },
      { run_id: ids[0], p95_us: 40_100 },
    ]);
    expect((await findPassingHistory(stack.sql, run, 2)).map((h) => h.run_id)).toEqual([ids[5], ids[3]]);
    // previous_success skips the failed verdicts too (and, as before, any candidate set).
    expect((await findPreviousSuccessfulRun(stack.sql, run))?.id).toBe(ids[6]);
    await stack.sql`update runs set verdict = jsonb_set(verdict, '{verdict}', '"fail"') where id = ${ids[6]!}`;
    expect((await findPreviousSuccessfulRun(stack.sql, run))?.id).toBe(ids[5]);

    // Another tenant's suite with passing runs changes nothing; this run's own history is its tenant's.
    const other = await stack.newTenant();
    const otherSetup = await createSuite(stack.app, other.auth, { candidates: ['http://127.0.0.1:9/a'] });
    const foreign = await post<{ id: string }>(stack.app, `/v1/suites/${otherSetup.suiteId}/runs`, other.auth);
    await finish(foreign.body.id, 8, { verdict: 'pass', p95Us: 1 });
    expect((await findPassingHistory(stack.sql, run, 10)).map((h) => h.run_id)).not.toContain(foreign.body.id);

    // Summarised (migration 032's columns, as finishRun writes them): the same answers.
    expect(await backfillRunSummaries(stack.sql)).toBeGreaterThanOrEqual(9);
    const [summary] = await stack.sql<{ verdict_value: string; candidate_endpoints: string[] }[]>`
      select verdict_value, candidate_endpoints from runs where id = ${ids[6]!}`;
    expect(summary).toEqual({ verdict_value: 'fail', candidate_endpoints: ['99999999-9999-4999-8999-999999999999'] });
    expect(await findPassingHistory(stack.sql, run, 10)).toEqual([
      { run_id: ids[5], p95_us: 43_000 },
      { run_id: ids[3], p95_us: 42_300 },
      { run_id: ids[1], p95_us: 41_000 },
      { run_id: ids[0], p95_us: 40_100 },
    ]);
    expect((await findPassingHistory(stack.sql, run, 2)).map((h) => h.run_id)).toEqual([ids[5], ids[3]]);
    expect((await findPreviousSuccessfulRun(stack.sql, run))?.id).toBe(ids[5]);
    expect((await findPassingHistory(stack.sql, run, 10)).map((h) => h.run_id)).not.toContain(foreign.body.id);
  });
});
