import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { workflowIdForRun } from '../../src/temporal/constants';
import { runWorkflow } from '../../workflows/run-workflow';

type Auth = { authorization: string };

export async function post<T = Record<string, unknown>>(app: FastifyInstance, url: string, auth: Auth, payload?: unknown) {
  const response = await app.inject({ method: 'POST', url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: response.statusCode, body: response.json<T>(), headers: response.headers };
}

export async function get<T = Record<string, unknown>>(app: FastifyInstance, url: string, auth: Auth) {
  const response = await app.inject({ method: 'GET', url, headers: auth });
  return { status: response.statusCode, body: response.json<T>(), headers: response.headers };
}

export interface SuiteSetup {
  chainId: string;
  endpointIds: string[];
  referenceId: string | null;
  suiteId: string;
}

/** Creates a chain, one endpoint per URL (the first ones candidates) and a suite, through the API. */
export async function createSuite(
  app: FastifyInstance,
  auth: Auth,
  options: { candidates: string[]; reference?: string; config?: Record<string, unknown>; headers?: Record<string, string> },
): Promise<SuiteSetup> {
  const chain = await post<{ id: string }>(app, '/v1/chains', auth, { name: 'Local', slug: `local-${Date.now()}-${Math.random().toString(36).slice(2)}`, chain_id: 1337 });
  expect(chain.status).toBe(201);
  const createEndpoint = async (url: string, name: string) => {
    const endpoint = await post<{ id: string }>(app, '/v1/endpoints', auth, {
      chain_id: chain.body.id,
      name,
      url,
      headers: options.headers ?? {},
      timeout_ms: 2_000,
    });
    expect(endpoint.status).toBe(201);
    return endpoint.body.id;
  };
  const endpointIds: string[] = [];
  for (const [i, url] of options.candidates.entries()) endpointIds.push(await createEndpoint(url, `candidate ${i}`));
  const referenceId = options.reference ? await createEndpoint(options.reference, 'reference') : null;
  const suite = await post<{ id: string }>(app, '/v1/suites', auth, {
    chain_id: chain.body.id,
    name: 'suite under test',
    config: {
      targets: endpointIds.map((endpoint_id) => ({ endpoint_id })),
      reference_endpoint_id: referenceId,
      workload: { requests_per_target: 50, concurrency: 4, warmup_requests: 2, timeout_ms: 2_000 },
      retry: { max_attempts: 2, initial_interval_ms: 200 },
      ...options.config,
    },
  });
  expect(suite.status, JSON.stringify(suite.body)).toBe(201);
  return { chainId: chain.body.id, endpointIds, referenceId, suiteId: suite.body.id };
}

const TERMINAL = ['success', 'failed', 'cancelled'];

/** Polls GET /v1/runs/:id until the run is terminal; returns the last body. */
export async function waitForRun(app: FastifyInstance, auth: Auth, runId: string, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await get<Record<string, any>>(app, `/v1/runs/${runId}`, auth);
    expect(run.status).toBe(200);
    if (TERMINAL.includes(run.body.status)) return run.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Triggers a run through `idle` (an API whose queue no worker serves), then replaces its workflow
 * with one on `worker`'s queue that has a tiny history budget, so it continues as new between
 * chunks. Returns the run id, the workflow id and its first execution's run id, once it finished.
 */
export async function runWithHistoryBudget(
  idle: { app: FastifyInstance },
  worker: { client: Client; taskQueue: string },
  auth: Auth,
  suiteId: string,
  maxHistoryEvents: number,
) {
  const created = await post<{ id: string }>(idle.app, `/v1/suites/${suiteId}/runs`, auth);
  const workflowId = workflowIdForRun(created.body.id);
  await worker.client.workflow.getHandle(workflowId).terminate('replaced by a test with a small history budget');
  const handle = await worker.client.workflow.start(runWorkflow, {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [{ runId: created.body.id, maxHistoryEvents }],
  });
  await handle.result();
  return { runId: created.body.id, workflowId, firstExecutionRunId: handle.firstExecutionRunId };
}
