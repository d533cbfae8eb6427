import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, inject, it } from 'vitest';
import { NativeConnection } from '@temporalio/worker';
import { activityDepsFromConfig } from '../../activities';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createRegionWorker } from '../../src/worker';
import { createSuite, post, runWithHistoryBudget, waitForRun } from '../helpers/api';
import { answers, startFakeNode } from '../helpers/json-rpc-node';
import { startStack } from '../helpers/stack';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'histories');

/** Exports a history in the JSON the Temporal CLI and UI download, which replay accepts as is. */
async function exportHistory(file: string, workflowId: string, runId?: string): Promise<void> {
  const args = ['workflow', 'show', '--address', inject('temporalAddress'), '--workflow-id', workflowId, '--output', 'json'];
  if (runId) args.push('--run-id', runId);
  const { stdout } = await promisify(execFile)(inject('temporalCliPath'), args, { maxBuffer: 64 * 1024 * 1024 });
  await writeFile(path.join(FIXTURES, file), stdout);
}

/**
 * Not part of `npm test`: `npm run record:histories` runs representative runs on the real stack
 * and writes their histories to test/fixtures/histories, which the replay test replays.
 */
describe('record workflow histories', () => {
  it('records histories of representative runs', { timeout: 120_000 }, async () => {
    const stack = await startStack();
    const candidate = await startFakeNode(answers.delay(2));
    const reference = await startFakeNode(answers.ok());
    try {
      const { auth } = await stack.newTenant();
      const record = (name: string, runId: string) => exportHistory(`${name}.json`, workflowIdForRun(runId));
      const withReference = await createSuite(stack.app, auth, { candidates: [candidate.url], reference: reference.url });
      const ok = await post<{ id: string }>(stack.app, `/v1/suites/${withReference.suiteId}/runs`, auth);
      await waitForRun(stack.app, auth, ok.body.id);
      await record('success-with-reference', ok.body.id);

      const long = await createSuite(stack.app, auth, {
        candidates: [candidate.url],
        config: { workload: { requests_per_target: 100_000, concurrency: 2, warmup_requests: 0 } },
      });
      const cancelled = await post<{ id: string }>(stack.app, `/v1/suites/${long.suiteId}/runs`, auth);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await post(stack.app, `/v1/runs/${cancelled.body.id}/cancel`, auth);
      await waitForRun(stack.app, auth, cancelled.body.id);
      await record('cancelled', cancelled.body.id);

      // A run whose first execution continued as new (tiny history budget), recorded execution by execution.
      const idle = await startStack({ worker: false, env: { RVS_SECRET_KEY: stack.config.secretKey! } });
      try {
        const idleTenant = await idle.newTenant();
        const chunked = await createSuite(idle.app, idleTenant.auth, {
          candidates: [reference.url],
          config: { workload: { requests_per_target: 12_000, concurrency: 8, warmup_requests: 0 } },
        });
        const rolled = await runWithHistoryBudget(idle, stack, idleTenant.auth, chunked.suiteId, 20);
        await exportHistory('continued-as-new-first.json', rolled.workflowId, rolled.firstExecutionRunId);
        await record('continued-as-new-last', rolled.runId);
      } finally {
        await idle.close();
      }
    } finally {
      await candidate.close();
      await reference.close();
      await stack.close();
    }
  });

  // Recorded on its own (`npm run record:histories -- -t paired`) so the older fixtures stay the
  // histories of the code before paired probing.
  it('records a paired open-loop run (shared schedule anchor, patch paired-anchor)', { timeout: 120_000 }, async () => {
    const stack = await startStack();
    const candidate = await startFakeNode(answers.delay(2));
    const reference = await startFakeNode(answers.ok());
    try {
      const { auth } = await stack.newTenant();
      const paired = await createSuite(stack.app, auth, {
        candidates: [candidate.url],
        reference: reference.url,
        config: { workload: { requests_per_target: 40, rate_per_second: 50, concurrency: 2, warmup_requests: 0 } },
      });
      const run = await post<{ id: string }>(stack.app, `/v1/suites/${paired.suiteId}/runs`, auth);
      await waitForRun(stack.app, auth, run.body.id);
      await exportHistory('paired-open-loop.json', workflowIdForRun(run.body.id));
    } finally {
      await candidate.close();
      await reference.close();
      await stack.close();
    }
  });

  // Recorded on its own (`npm run record:histories -- -t vantage`): one region probed by its
  // worker's probe queue, one with no worker ending as vantage_unavailable (patch vantage-points).
  it('records a run with vantage points, one of them unavailable (patch vantage-points)', { timeout: 120_000 }, async () => {
    const stack = await startStack();
    const candidate = await startFakeNode(answers.delay(2));
    const region = `rec-${randomBytes(3).toString('hex')}`;
    const connection = await NativeConnection.connect({ address: stack.config.temporal.address! });
    const regionWorker = await createRegionWorker({
      connection,
      namespace: stack.config.temporal.namespace,
      region,
      deps: activityDepsFromConfig(stack.config, stack.sql, stack.box, stack.client),
    });
    const regionRun = regionWorker.run();
    try {
      const { auth } = await stack.newTenant();
      const suite = await createSuite(stack.app, auth, {
        candidates: [candidate.url],
        config: {
          workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 0 },
          vantage_points: [region, `${region}-nobody`],
          vantage_start_timeout_s: 2,
        },
      });
      const run = await post<{ id: string }>(stack.app, `/v1/suites/${suite.suiteId}/runs`, auth);
      await waitForRun(stack.app, auth, run.body.id);
      await exportHistory('vantage-points.json', workflowIdForRun(run.body.id));
    } finally {
      regionWorker.shutdown();
      await regionRun;
      await connection.close();
      await candidate.close();
      await stack.close();
    }
  });

  // Recorded on its own (`npm run record:histories -- -t run-steps`): the re-check and the
  // explanation as activities of their own before finalize (patch run-steps).
  it('records a run with a reference whose re-check steps run before finalize (patch run-steps)', { timeout: 120_000 }, async () => {
    const stack = await startStack();
    const candidate = await startFakeNode(answers.delay(2));
    const reference = await startFakeNode(answers.ok());
    try {
      const { auth } = await stack.newTenant();
      const suite = await createSuite(stack.app, auth, {
        candidates: [candidate.url],
        reference: reference.url,
        config: { workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 0 }, thresholds: { correctness_enabled: true } },
      });
      const run = await post<{ id: string }>(stack.app, `/v1/suites/${suite.suiteId}/runs`, auth);
      await waitForRun(stack.app, auth, run.body.id);
      await exportHistory('run-steps.json', workflowIdForRun(run.body.id));
    } finally {
      await candidate.close();
      await reference.close();
      await stack.close();
    }
  });
});
