import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker, type WorkflowBundle } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { activityDepsFromConfig } from '../../activities';
import { buildApp } from '../../src/app';
import { generateApiKey, hashApiKeySecret } from '../../src/auth/api-key';
import { createJwtVerifier } from '../../src/auth/jwt';
import { TENANT_SCOPES, type Scope } from '../../src/auth/scopes';
import { loadConfig, type Config } from '../../src/config';
import { SecretBox } from '../../src/crypto/secret-box';
import { createSql, type Sql } from '../../src/db/client';
import { insertApiKey } from '../../src/db/api-keys';
import { ensureTenant } from '../../src/db/tenants';
import { createLogger } from '../../src/logger';
import type { LoopBurn } from '../../src/probe/prober-health';
import { bundleWorkflows } from '../../src/temporal/bundle-workflows';
import { createRunWorker } from '../../src/worker';

export interface Stack {
  app: FastifyInstance;
  sql: Sql;
  box: SecretBox;
  client: Client;
  config: Config;
  taskQueue: string;
  /** Every log line the API wrote, when started with `captureLogs` (at trace level). */
  logs: string[];
  /** A fresh tenant per test keeps tests independent without truncating anything. */
  newTenant(scopes?: readonly Scope[]): Promise<{ tenantId: string; key: string; auth: { authorization: string } }>;
  close(): Promise<void>;
}

let runtimeInstalled = false;
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  runtimeInstalled = true;
}

let bundle: Promise<WorkflowBundle> | undefined;
/** One workflow bundle per test file (webpack is the slow part of creating a worker). */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundle ??= bundleWorkflows();
  return bundle;
}

/** The real API, a real worker on its own task queue, the real database and Temporal server. */
export async function startStack(
  options: {
    worker?: boolean;
    env?: Record<string, string>;
    captureLogs?: boolean;
    databaseUrl?: string;
    /** Burns the worker's event loop while it probes (ActivityDeps.testLoopBurn). */
    testLoopBurn?: LoopBurn;
  } = {},
): Promise<Stack> {
  installQuietRuntime();
  const taskQueue = `test-${randomUUID()}`;
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl ?? inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    RVS_SECRET_KEY: randomBytes(32).toString('hex'),
    RVS_ALLOW_PRIVATE_TARGETS: 'true',
    RVS_PUBLIC_URL: 'http://rvs.test',
    LOG_LEVEL: 'silent',
    // Quotas are shared through the database by every test file; tests of the limits lower them.
    RVS_RATE_LIMIT_PER_MINUTE: '1000000',
    RVS_TRIGGER_LIMIT_PER_MINUTE: '100000',
    RVS_AUTH_FAILURE_LIMIT_PER_MINUTE: '100000',
    RVS_DASHBOARD_RATE_LIMIT_PER_MINUTE: '1000000',
    ...options.env,
  });
  const sql = createSql(config.databaseUrl!);
  const box = new SecretBox(config.secretKey!);
  const connection = await Connection.connect({ address: config.temporal.address! });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const jwt = createJwtVerifier(config.jwt);
  const logs: string[] = [];
  const logger = options.captureLogs
    ? createLogger('trace', 'test', { write: (line: string) => void logs.push(line) })
    : createLogger('silent', 'test');
  const app = buildApp({ config, sql, box, temporal: client, jwt }, logger);
  await app.ready();

  let worker: Worker | undefined;
  let workerRun: Promise<void> | undefined;
  let nativeConnection: NativeConnection | undefined;
  if (options.worker !== false) {
    nativeConnection = await NativeConnection.connect({ address: config.temporal.address! });
    worker = await createRunWorker({
      connection: nativeConnection,
      namespace: config.temporal.namespace,
      taskQueue,
      deps: { ...activityDepsFromConfig(config, sql, box, client), ...(options.testLoopBurn ? { testLoopBurn: options.testLoopBurn } : {}) },
      workflowBundle: await workflowBundle(),
    });
    workerRun = worker.run();
  }

  return {
    app,
    sql,
    box,
    client,
    config,
    taskQueue,
    logs,
    async newTenant(scopes = TENANT_SCOPES) {
      const slug = `t-${randomUUID()}`;
      const tenant = await ensureTenant(sql, slug, `Tenant ${slug}`);
      const key = generateApiKey();
      await insertApiKey(sql, { tenantId: tenant.id, name: 'test', prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes });
      return { tenantId: tenant.id, key: key.key, auth: { authorization: `Bearer ${key.key}` } };
    },
    async close() {
      await app.close();
      await jwt?.close();
      if (worker && workerRun) {
        worker.shutdown();
        await workerRun;
      }
      await nativeConnection?.close();
      await connection.close();
      await sql.end({ timeout: 5 });
    },
  };
}
