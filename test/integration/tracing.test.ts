import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateApiKey, hashApiKeySecret } from '../../src/auth/api-key';
import { TENANT_SCOPES } from '../../src/auth/scopes';
import { loadConfig } from '../../src/config';
import { insertApiKey } from '../../src/db/api-keys';
import { ensureTenant } from '../../src/db/tenants';
import { createLogger } from '../../src/logger';
import { startApi, type RunningApi } from '../../src/server';
import { createSuite, post, waitForRun } from '../helpers/api';
import { startJaeger, type Jaeger, type JaegerTrace } from '../helpers/jaeger';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { useEmptyDatabase } from '../helpers/migration-database';
import { until } from '../helpers/processes';
import { killHard, startWorkerProcess } from '../helpers/worker-process';

/*
 * Traces end to end (DESIGN.md §18, src/telemetry/tracing.ts): the real API (startApi) and the
 * real worker process (src/worker.ts), both exporting OTLP/HTTP to a real receiver (Jaeger v2,
 * test/helpers/jaeger.ts); the trace of a run's trigger request must hold the workflow's and its
 * activities' spans, from the other process.
 */

const database = useEmptyDatabase('tracing');

describe('OpenTelemetry traces over OTLP', () => {
  const secretKey = randomBytes(32).toString('hex');
  const taskQueue = `test-${randomUUID()}`;
  // Service names of this file's own: the receiver is this file's too, but the names make the query exact.
  const apiService = `rvs-api-${randomUUID().slice(0, 8)}`;
  const workerService = `rvs-worker-${randomUUID().slice(0, 8)}`;
  let jaeger: Jaeger;
  let api: RunningApi;
  let worker: ChildProcess;
  let node: FakeNode;

  beforeAll(async () => {
    jaeger = await startJaeger();
    node = await startFakeNode(answers.ok('0x10'));
    const databaseUrl = new URL(inject('databaseUrl'));
    databaseUrl.pathname = `/${(await database.sql`select current_database() as name`)[0]!.name as string}`;
    const env = {
      DATABASE_URL: databaseUrl.toString(),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      RVS_SECRET_KEY: secretKey,
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    };
    const config = loadConfig({ ...env, PORT: '0', RVS_API_METRICS_PORT: '0', LOG_LEVEL: 'silent', OTEL_SERVICE_NAME: apiService });
    api = await startApi({ ...config, databaseUrl: config.databaseUrl!, temporal: { ...config.temporal, address: config.temporal.address! } }, createLogger('silent', 'test'));
    worker = startWorkerProcess({ taskQueue, secretKey, databaseUrl: env.DATABASE_URL, env: { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_SERVICE_NAME: workerService } });
  }, 120_000);
  afterAll(async () => {
    if (worker) await killHard(worker);
    await api?.close();
    await node?.close();
    await jaeger?.close();
  });

  it("one trace links the trigger request to the run's workflow and every activity, and carries no secret", async () => {
    const tenant = await ensureTenant(database.sql, `t-${randomUUID()}`, 'Traced');
    const key = generateApiKey();
    await insertApiKey(database.sql, { tenantId: tenant.id, name: 'test', prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes: TENANT_SCOPES });
    const auth = { authorization: `Bearer ${key.key}` };
    // A key in the endpoint's URL: it must reach no span.
    const secretPath = `/key-${randomBytes(8).toString('hex')}`;
    const { suiteId } = await createSuite(api.app, auth, {
      candidates: [`${node.url}${secretPath}`],
      config: { workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 0 } },
    });
    const run = await post<{ id: string }>(api.app, `/v1/suites/${suiteId}/runs`, auth);
    expect(run.status).toBe(201);
    expect((await waitForRun(api.app, auth, run.body.id, 120_000)).status).toBe('success');

    const triggerName = 'POST /v1/suites/:suiteId/runs';
    // The worker exports in batches (every 5 s): wait until the trigger's trace holds its spans.
    const trace = await until(
      async () => {
        const traces = await jaeger.traces(apiService);
        const found = traces.find((t) => t.spans.some((s) => s.operationName === triggerName));
        if (!found) return undefined;
        const names = operations(found);
        return ['RunWorkflow:runWorkflow', 'RunActivity:probeChunk', 'RunActivity:finalizeRun'].every((n) => names.has(n)) ? found : undefined;
      },
      90_000,
      "the trigger's trace with the run's workflow, probe and finalize spans",
    );
    const services = new Set(Object.values(trace.processes).map((p) => p.serviceName));
    expect(services).toEqual(new Set([apiService, workerService]));
    // Every span of the trace is in it by parentage, not by chance: one trace id, one root (the request).
    expect(new Set(trace.spans.map((s) => s.traceID))).toEqual(new Set([trace.traceID]));
    const roots = trace.spans.filter((s) => s.references.length === 0);
    expect(roots.map((s) => s.operationName)).toEqual([triggerName]);
    // The request's span names the route and its status, never the raw URL.
    const request = roots[0]!;
    expect(request.tags).toContainEqual({ key: 'http.response.status_code', type: 'int64', value: 201 });
    // One span per activity, not per call: 20 calls, a handful of activity spans.
    const probeSpans = trace.spans.filter((s) => s.operationName === 'RunActivity:probeChunk');
    expect(probeSpans.length).toBeGreaterThanOrEqual(1);
    expect(probeSpans.length).toBeLessThan(20);
    const text = JSON.stringify(trace);
    // No endpoint address (activity arguments are not recorded), no key; ids and the workflow's
    // search attributes are, as Temporal's interceptors record them.
    expect(text).not.toContain(secretPath);
    expect(text).not.toContain(node.url);
    expect(text).not.toContain(key.secret);
    expect(request.tags.map((t) => t.key)).not.toContain('url.full');
  });
});

function operations(trace: JaegerTrace): Set<string> {
  return new Set(trace.spans.map((s) => s.operationName));
}
