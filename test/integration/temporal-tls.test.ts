import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureServer, type IncomingHttpHeaders } from 'node:http2';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key';
import { loadConfig } from '../../src/config';
import { createSql, type Sql } from '../../src/db/client';
import { createLogger } from '../../src/logger';
import { workerNodeOptions } from '../../src/runtime/worker-heap';
import { startApi, type RunningApi } from '../../src/server';
import { connectTemporal } from '../../src/temporal/connection';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { killGroup, spawnInGroup, type Spawned } from '../helpers/processes';
import { makeTestPki, startTlsTerminator, type TestPki, type TlsTerminator } from '../helpers/tls-terminator';
import { until } from '../helpers/worker-process';

// The API and the worker reach Temporal only through a TLS terminator that demands a client
// certificate; the dev server itself speaks plaintext on a port neither of them is given.
describe('Temporal over mutual TLS', () => {
  const databaseName = `temporal_tls_${randomBytes(4).toString('hex')}`;
  // A stand-in for a Temporal Cloud key: the dev server ignores it, but it must never be printed.
  const temporalApiKey = `tcloud-${randomBytes(24).toString('hex')}`;
  const secretKey = randomBytes(32).toString('hex');
  const bootstrapKey = generateApiKey().key;
  let pki: TestPki;
  let terminator: TlsTerminator;
  let admin: Sql;
  let databaseUrl: string;
  let node: FakeNode;
  let api: RunningApi | undefined;
  let worker: Spawned | undefined;
  const apiLogs: string[] = [];

  const tlsEnv = (overrides: Record<string, string> = {}) => ({
    TEMPORAL_ADDRESS: terminator.address,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey,
    TEMPORAL_TLS_SERVER_NAME: pki.serverName,
    TEMPORAL_API_KEY: temporalApiKey,
    ...overrides,
  });

  const startTlsApi = (taskQueue: string, overrides: Record<string, string> = {}) => {
    const config = loadConfig({
      ...tlsEnv(overrides),
      DATABASE_URL: databaseUrl,
      TEMPORAL_TASK_QUEUE: taskQueue,
      HOST: '127.0.0.1',
      PORT: '0',
      RVS_API_METRICS_PORT: '0',
      RVS_SECRET_KEY: secretKey,
      RVS_BOOTSTRAP_API_KEY: bootstrapKey,
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'info',
    });
    const logger = createLogger('info', 'api', { write: (line: string) => void apiLogs.push(line) });
    return startApi({ ...config, databaseUrl, temporal: { ...config.temporal, address: config.temporal.address! } }, logger);
  };

  const startTlsWorker = (taskQueue: string, overrides: Record<string, string> = {}) =>
    spawnInGroup(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
      ...tlsEnv(overrides),
      NODE_OPTIONS: workerNodeOptions(undefined),
      DATABASE_URL: databaseUrl,
      TEMPORAL_TASK_QUEUE: taskQueue,
      RVS_SECRET_KEY: secretKey,
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      RVS_WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    });

  beforeAll(async () => {
    pki = await makeTestPki();
    terminator = await startTlsTerminator(pki, inject('temporalAddress'));
    node = await startFakeNode(answers.ok('0x10'));
    // A database of this file's own: the API migrates it and its reconciler sweeps it.
    admin = createSql(inject('databaseUrl'), { max: 1 });
    await admin.unsafe(`create database ${databaseName}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
  });
  afterEach(async () => {
    if (worker) killGroup(worker);
    await worker?.exited;
    worker = undefined;
    await api?.close();
    api = undefined;
  });
  afterAll(async () => {
    await node?.close();
    await terminator?.close();
    await admin?.unsafe(`drop database if exists ${databaseName} with (force)`);
    await admin?.end();
    await pki?.remove();
  });

  it('the API triggers a run and the worker completes it; a schedule is created by the API and fired by the worker', async () => {
    const taskQueue = `tls-${randomBytes(4).toString('hex')}`;
    worker = startTlsWorker(taskQueue);
    api = await startTlsApi(taskQueue);
    const auth = { authorization: `Bearer ${bootstrapKey}` };

    const { suiteId } = await createSuite(api.app, auth, {
      candidates: [node.url],
      config: { workload: { requests_per_target: 5, concurrency: 1, warmup_requests: 0 } },
    });
    const run = await post<{ id: string }>(api.app, `/v1/suites/${suiteId}/runs`, auth);
    expect(run.status).toBe(201);
    const finished = await waitForRun(api.app, auth, run.body.id, 90_000);
    expect(finished.status, worker.output()).toBe('success');

    // The Temporal Schedule is written by the API's client; its fire runs on the worker, whose
    // own client starts the run workflow.
    const scheduled = await api.app.inject({ method: 'PATCH', url: `/v1/suites/${suiteId}`, headers: auth, payload: { schedule: { interval_s: 3600 } } });
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    expect((await post(api.app, `/v1/suites/${suiteId}/schedule/trigger`, auth)).status).toBe(202);
    const scheduledRun = async () =>
      (await get<{ data: { id: string; triggered_by: string; status: string }[] }>(api!.app, `/v1/runs?suite_id=${suiteId}`, auth)).body.data.find(
        (r) => r.triggered_by === 'schedule',
      );
    await until(async () => (await scheduledRun())?.status === 'success', 60_000, 'the scheduled run');
    await post(api.app, `/v1/suites/${suiteId}/schedule/pause`, auth);

    // API client, worker polling connection, worker client: every one came through the terminator.
    expect(terminator.authorizedConnections()).toBeGreaterThanOrEqual(3);
    const everything = `${apiLogs.join('')}\n${worker.output()}`;
    expect(everything).not.toContain(temporalApiKey);
  });

  it('a CA that did not sign the server certificate fails the start of the API and of the worker with an error saying so', async () => {
    const taskQueue = `tls-${randomBytes(4).toString('hex')}`;
    const wrongCa = { TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.otherCaCert };
    const expected = new RegExp(
      `cannot connect to Temporal at ${terminator.address.replace(/\./g, '\\.')} over TLS \\(CA ${pki.otherCaCert.replace(/\./g, '\\.')}, client certificate .*, server name ${pki.serverName.replace(/\./g, '\\.')}, an API key\\): .*certificate`,
    );
    await expect(startTlsApi(taskQueue, wrongCa)).rejects.toThrow(expected);

    worker = startTlsWorker(taskQueue, wrongCa);
    const exit = await worker.exited;
    expect(exit.code, worker.output()).toBe(1);
    expect(worker.output()).toMatch(expected);
    expect(`${apiLogs.join('')}\n${worker.output()}`).not.toContain(temporalApiKey);
  });

  it('without a client certificate the terminator refuses the handshake, and the error says so', async () => {
    const taskQueue = `tls-${randomBytes(4).toString('hex')}`;
    const config = loadConfig({ ...tlsEnv(), TEMPORAL_TLS_CLIENT_CERT_PATH: '', TEMPORAL_TLS_CLIENT_KEY_PATH: '' });
    expect(config.temporal.tls?.clientCertPath).toBeUndefined();
    await expect(startTlsApi(taskQueue, { TEMPORAL_TLS_CLIENT_CERT_PATH: '', TEMPORAL_TLS_CLIENT_KEY_PATH: '' })).rejects.toThrow(
      /cannot connect to Temporal at .* over TLS \(CA .*ca\.pem, server name .*, an API key\): .*certificate required/i,
    );
  });

  it('the API key reaches the server as `authorization: Bearer` over TLS, from the client and from the worker connection', async () => {
    // A gRPC-speaking HTTP/2 server that records the request headers and refuses every call as
    // UNAUTHENTICATED (not retried), as a cluster refusing a key would.
    const [cert, key] = await Promise.all([readFile(pki.serverCert), readFile(pki.serverKey)]);
    const seen: IncomingHttpHeaders[] = [];
    const server = createSecureServer({ cert, key, ALPNProtocols: ['h2'] }, () => undefined);
    server.on('stream', (stream, headers) => {
      seen.push(headers);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'key refused' }, { endStream: true });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const config = loadConfig({
        TEMPORAL_ADDRESS: `127.0.0.1:${(server.address() as { port: number }).port}`,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
        TEMPORAL_TLS_SERVER_NAME: pki.serverName,
        TEMPORAL_API_KEY: temporalApiKey,
      });
      const target = { ...config.temporal, address: config.temporal.address! };
      const client = connectTemporal(target, (options) => Connection.connect({ ...options, connectTimeout: 5_000 }));
      await expect(client).rejects.toThrow(/cannot connect to Temporal at .* over TLS \(.*an API key\): .*key refused/);
      await expect(client).rejects.not.toThrow(temporalApiKey);
      const clientCalls = seen.length;
      expect(clientCalls).toBeGreaterThanOrEqual(1);
      await expect(connectTemporal(target, (options) => NativeConnection.connect(options))).rejects.toThrow(/cannot connect to Temporal/);
      expect(seen.length).toBeGreaterThan(clientCalls);
      for (const headers of seen) expect(headers.authorization).toBe(`Bearer ${temporalApiKey}`);
    } finally {
      server.close();
    }
  });

  it('an unreadable or malformed certificate file is named in the error', async () => {
    const taskQueue = `tls-${randomBytes(4).toString('hex')}`;
    await expect(startTlsApi(taskQueue, { TEMPORAL_TLS_SERVER_CA_CERT_PATH: `${pki.dir}/missing.pem` })).rejects.toThrow(
      `TEMPORAL_TLS_SERVER_CA_CERT_PATH=${pki.dir}/missing.pem cannot be read: ENOENT`,
    );
    await expect(startTlsApi(taskQueue, { TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientKey })).rejects.toThrow(
      `TEMPORAL_TLS_CLIENT_CERT_PATH=${pki.clientKey} is not a PEM certificate`,
    );
  });
});
