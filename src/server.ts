import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { createJwtVerifier } from './auth/jwt';
import { loadConfigOrExit, type Config } from './config';
import { SecretBox } from './crypto/secret-box';
import { createSql } from './db/client';
import { migrate } from './db/migrate';
import { createLogger, type Logger } from './logger';
import { serveMetrics, type MetricsServer } from './metrics/metrics-server';
import { apiMetricsRegistry } from './metrics/registry';
import { createRunCountsCollector } from './metrics/runs-gauge';
import { exitOnUncaughtError, onShutdownSignal, SHUTDOWN_DEADLINE_MS } from './runtime/shutdown';
import { resolveSecretKey } from './runtime/secret-key';
import { bootstrapDefaultTenant } from './services/bootstrap';
import { connectTemporal } from './temporal/connection';
import { startTracing } from './telemetry/tracing';
import { ORPHAN_MAX_AGE_MS, startRunReconciler } from './services/run-reconciler';

/** How long a shutdown waits for in-flight requests before closing their connections. */
const DRAIN_MS = 10_000;
const SQL_END_TIMEOUT_S = 5;

export interface RunningApi {
  app: FastifyInstance;
  url: string;
  /** The bootstrap key when one was generated now; printed once, never stored in clear. */
  generatedApiKey: string | null;
  /** The Prometheus /metrics server (null when RVS_API_METRICS_PORT is 0 or could not be bound). */
  metrics: MetricsServer | null;
  close(): Promise<void>;
}

/** Connects, migrates, bootstraps the default tenant and listens. */
export async function startApi(
  config: Config & { databaseUrl: string; temporal: { address: string } },
  logger: Logger,
): Promise<RunningApi> {
  const sql = createSql(config.databaseUrl);
  let connection: Connection;
  try {
    // Temporal first: a wrong certificate or address fails the start before anything is written.
    connection = await connectTemporal(config.temporal, (options) => Connection.connect(options));
  } catch (error) {
    await sql.end({ timeout: SQL_END_TIMEOUT_S });
    throw error;
  }
  await migrate(sql);
  const generatedApiKey = await bootstrapDefaultTenant(sql, config.bootstrapApiKey);
  const box = new SecretBox(await resolveSecretKey(config.secretKey, config.dataDir));
  const tracing = startTracing(config.tracing, 'rvs-api');
  const temporal = new Client({ connection, namespace: config.temporal.namespace, ...(tracing && { interceptors: tracing.clientInterceptors }) });
  const jwt = createJwtVerifier(config.jwt);
  const app = buildApp({ config, sql, box, temporal, jwt }, logger, tracing ? { tracer: tracing.tracer } : {});
  const address = await app.listen({ port: config.port, host: config.host });
  // Runs a killed API process committed without starting their workflow (see run-reconciler.ts).
  const lease = config.idempotencyLeaseMs;
  const reconciler = startRunReconciler(
    { sql, temporal, config, log: logger },
    { graceMs: lease, giveUpMs: Math.max(ORPHAN_MAX_AGE_MS, 2 * lease), intervalMs: Math.min(15_000, lease / 2) },
  );
  // Prometheus scrapes its own port, apart from the API's and on RVS_METRICS_HOST, not HOST
  // (docs/operations.md).
  const metrics = await serveMetrics({
    registry: apiMetricsRegistry(),
    host: config.metricsHost,
    port: config.apiMetricsPort,
    collect: createRunCountsCollector(sql),
    log: logger,
  });
  return {
    app,
    url: address.replace('0.0.0.0', 'localhost'),
    generatedApiKey,
    metrics,
    async close() {
      await reconciler.stop();
      await metrics?.close();
      // In-flight requests get DRAIN_MS to finish before the connections they use are closed;
      // idle keep-alive connections close at once, and new requests meanwhile get a 503. A
      // request still running after that (a long poll, a query stuck on a lock) is cut off:
      // an orchestrator's stop timeout is usually 30 s.
      const cutOff = setTimeout(() => app.server.closeAllConnections(), DRAIN_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(cutOff);
      }
      await jwt?.close();
      await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'traces could not all be exported'));
      await connection.close();
      // Queries still waiting after this are ended with CONNECTION_DESTROYED.
      await sql.end({ timeout: SQL_END_TIMEOUT_S });
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger(config.logLevel, 'rvs-api');
  const { databaseUrl, temporal } = config;
  if (!databaseUrl || !temporal.address) {
    process.stderr.write('npm run api needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs both for you)\n');
    process.exit(1);
  }
  exitOnUncaughtError(logger);
  const api = await startApi({ ...config, databaseUrl, temporal: { ...temporal, address: temporal.address } }, logger);
  if (api.generatedApiKey) process.stdout.write(`bootstrap API key (shown once): ${api.generatedApiKey}\n`);
  logger.info({ url: api.url }, 'api started');
  onShutdownSignal(async () => {
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    await api.close().catch((error: unknown) => logger.error({ err: error }, 'shutdown step failed'));
    logger.info('api stopped');
    process.exit(0);
  });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`api failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
