import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getRunMetrics } from '../../../services/runs/metrics';
import { listRunSamples, listSamplesQuery as samplesQuery } from '../../../services/runs/samples';
import { listHeadsQuery as headsQuery, listRunHeads } from '../../../services/runs/heads';
import { cancelRun } from '../../../services/runs/cancel';
import { getRun } from '../../../services/runs/get';
import { listRuns, listRunsQuery as listRunsQueryOfService } from '../../../services/runs/list';
import { triggerRun, triggerRunInput } from '../../../services/runs/trigger';
import { getVerdict, verdictQuery as verdictQueryOfService } from '../../../services/runs/verdict';
import * as suiteTrend from '../../../services/suite-trend';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { suiteParams } from '../suites/schemas';
import { HeadArrivalPage, Run, RunMetrics, RunPage, runParams, SamplePage, SuiteTrendPage, Verdict } from './schemas';

const listRunsQuery = listRunsQueryOfService.extend({
  suite_id: listRunsQueryOfService.shape.suite_id.describe('only runs of this suite'),
  status: listRunsQueryOfService.shape.status.describe('only runs in this status'),
});
const verdictQuery = verdictQueryOfService.extend({
  wait: verdictQueryOfService.shape.wait.describe('seconds (0–60) to hold the request until the run has finished (long poll)'),
});
const suiteTrendQuery = suiteTrend.suiteTrendQuery.extend({
  branch: suiteTrend.suiteTrendQuery.shape.branch.describe('only runs of this branch (runs naming none count as the baseline branch they were requested under)'),
});
const listSamplesQuery = samplesQuery.extend({
  target_id: samplesQuery.shape.target_id.describe('only samples of this target'),
  method: samplesQuery.shape.method.describe('only calls of this JSON-RPC method'),
  outcome: samplesQuery.shape.outcome.describe('only samples with this outcome'),
});
const listHeadsQuery = headsQuery.extend({
  target_id: headsQuery.shape.target_id.describe('only heads of this target'),
});

/** Runs of the caller's suites: trigger, read, cancel, verdict, metrics, samples, and a suite's trend. */
export const runRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/suites/:suiteId/runs',
    operation({
      method: 'POST',
      scope: 'runs:write',
      operationId: 'triggerRun',
      summary: 'Trigger a run of a suite',
      description:
        'Starts the Temporal workflow `run-<id>` and answers at once with the queued run. The body is optional. ' +
        '`targets` replaces the suite\'s candidates for this run only (endpoint ids of the tenant, or ephemeral endpoints `{url, name?, headers?}` kept encrypted and owned by the run); ' +
        '`branch` and `commit` name what CI built: only runs of the suite\'s `baseline.branch` (or naming none) form and join its baseline. ' +
        'Run triggers have their own, stricter quota.',
      tag: 'runs',
      params: suiteParams,
      body: triggerRunInput,
      success: { status: 201, description: 'the run, queued', schema: Run },
      errors: {
        400: [
          '`baseline_run_id` names no run of the caller\'s tenant',
          'a `targets` item names no endpoint of the caller\'s tenant on the suite\'s chain, repeats one or names the reference',
          'an ephemeral target\'s `url` is not http(s), or its host is link-local or reserved (never probed); a header is refused',
          'the suite watches heads by subscription (`freshness.via: subscribe`) and a target has no `ws_url` (a target given by `url` never has one)',
        ],
        429: ['over the run-trigger quota of the credential or of its tenant'],
        503: ['the workflow service is unavailable; the run was recorded as failed'],
      },
    }),
    async (request, reply) => {
      const run = await triggerRun({
        ctx: ctxOf(request),
        input: { suiteId: request.params.suiteId, body: request.body, idempotency: request.idempotency },
      });
      return reply.code(201).header('location', `/v1/runs/${run.id}`).send(exact(Run, run));
    },
  );

  app.get(
    '/v1/suites/:suiteId/trend',
    operation({
      method: 'GET',
      // It reads runs (their verdicts and stats), so it takes runs:read like every other run read.
      scope: 'runs:read',
      operationId: 'getSuiteTrend',
      summary: 'The suite\'s finished runs, newest first: verdict, candidate p50/p95/p99 with intervals, match rate, baseline limits',
      description:
        'One point per finished run (success, failed or cancelled). Needs runs:read: it reads runs, like every other run read. ' +
        'Intervals are null for runs judged before they were stored; baseline is null for a run without a baseline comparison.',
      tag: 'runs',
      params: suiteParams,
      querystring: suiteTrendQuery,
      success: { status: 200, description: 'a page of trend points', schema: SuiteTrendPage },
    }),
    async (request) => exact(SuiteTrendPage, await suiteTrend.getSuiteTrend({ ctx: ctxOf(request), input: { ...request.params, ...request.query } })),
  );

  app.get(
    '/v1/runs',
    operation({
      method: 'GET',
      scope: 'runs:read',
      operationId: 'listRuns',
      summary: 'List runs, newest first',
      tag: 'runs',
      querystring: listRunsQuery,
      success: { status: 200, description: 'a page of runs', schema: RunPage },
    }),
    async (request) => exact(RunPage, await listRuns({ ctx: ctxOf(request), input: request.query })),
  );

  app.get(
    '/v1/runs/:runId',
    operation({
      method: 'GET',
      scope: 'runs:read',
      operationId: 'getRun',
      summary: 'Get a run: status, progress, stats, targets, retry history',
      tag: 'runs',
      params: runParams,
      success: { status: 200, description: 'the run', schema: Run },
    }),
    async (request) => exact(Run, await getRun({ ctx: ctxOf(request), input: request.params })),
  );

  app.post(
    '/v1/runs/:runId/cancel',
    operation({
      method: 'POST',
      scope: 'runs:write',
      operationId: 'cancelRun',
      summary: 'Cancel a queued or running run',
      description: 'Asks the workflow to stop; probes stop within about a second and the run ends `cancelled`.',
      tag: 'runs',
      params: runParams,
      success: { status: 202, description: 'the run; cancellation was requested', schema: Run },
      errors: { 409: ['`conflict`: the run is already finished'] },
    }),
    async (request, reply) => {
      const run = await cancelRun({ ctx: ctxOf(request), input: request.params });
      return reply.code(202).send(exact(Run, run));
    },
  );

  app.get(
    '/v1/runs/:runId/verdict',
    operation({
      method: 'GET',
      scope: 'runs:read',
      operationId: 'getRunVerdict',
      summary: 'The verdict of a finished run, with its CI exit code',
      tag: 'runs',
      params: runParams,
      querystring: verdictQuery,
      success: { status: 200, description: 'the verdict', schema: Verdict },
      errors: { 409: ['`run_not_finished`: the run is not terminal (yet, after `wait`)'] },
      config: { longPollParameter: 'wait' },
    }),
    async (request) =>
      exact(Verdict, await getVerdict({ ctx: ctxOf(request), input: { runId: request.params.runId, waitSeconds: request.query.wait } })),
  );

  app.get(
    '/v1/runs/:runId/metrics',
    operation({
      method: 'GET',
      scope: 'runs:read',
      operationId: 'getRunMetrics',
      summary: 'Latency over time per target, and per method',
      tag: 'runs',
      params: runParams,
      success: { status: 200, description: 'the metrics', schema: RunMetrics },
      errors: { 410: ['`samples_expired`: computed from the raw samples, which were deleted past their retention; the verdict keeps the run\'s statistics'] },
    }),
    async (request) => exact(RunMetrics, await getRunMetrics({ ctx: ctxOf(request), input: request.params })),
  );

  app.get(
    '/v1/runs/:runId/samples',
    operation({
      method: 'GET',
      scope: 'runs:read',
      operationId: 'listRunSamples',
      summary: 'The measured calls of a run, by target and sequence',
      tag: 'runs',
      params: runParams,
      querystring: listSamplesQuery,
      success: { status: 200, description: 'a page of samples', schema: SamplePage },
      errors: { 410: ['`samples_expired`: the run\'s raw samples were deleted past their retention (RVS_SAMPLE_RETENTION_DAYS, or the tenant\'s or suite\'s sample_retention_days); its verdict, stats and trend point are kept'] },
    }),
    async (request) => exact(SamplePage, await listRunSamples({ ctx: ctxOf(request), input: { runId: request.params.runId, query: request.query } })),
  );

  app.get(
    '/v1/runs/:runId/heads',
    operation({
      method: 'GET',
      scope: 'runs:read',
      operationId: 'listRunHeads',
      summary: 'The heads the run\'s head watch stored (config.freshness), in arrival order',
      description: 'One item per head each target and the reference announced (a head seen again after a resumed watch is stored once). Empty for a run without a head watch.',
      tag: 'runs',
      params: runParams,
      querystring: listHeadsQuery,
      success: { status: 200, description: 'a page of head arrivals', schema: HeadArrivalPage },
    }),
    async (request) => exact(HeadArrivalPage, await listRunHeads({ ctx: ctxOf(request), input: { runId: request.params.runId, query: request.query } })),
  );
};
