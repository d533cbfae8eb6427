import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, type MetricsExporterConfig, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { activityDepsFromConfig, createActivities, type ActivityDeps } from '../activities';
import { loadConfigOrExit } from './config';
import { SecretBox } from './crypto/secret-box';
import { createSql } from './db/client';
import { ensureSampleExpirySchedule } from './temporal/sample-expiry-schedule';
import { createLogger } from './logger';
import { activityMetricsInterceptor } from './metrics/activity-metrics';
import { serveMetrics } from './metrics/metrics-server';
import { workerMetricsRegistry } from './metrics/registry';
import { loopbackAddressForTemporalMetrics, temporalMetricsText, temporalPrometheusExporter } from './metrics/temporal-metrics';
import { EventLoopSlotSupplier, eventLoopTuner } from './runtime/event-loop-slots';
import { exitOnUncaughtError, onShutdownSignal, SHUTDOWN_DEADLINE_MS } from './runtime/shutdown';
import { resolveSecretKey } from './runtime/secret-key';
import { bundleWorkflowsInChildProcess } from './temporal/bundle-workflows';
import { connectTemporal } from './temporal/connection';
import { startTracing, WORKFLOW_TRACING_MODULE, type Tracing } from './telemetry/tracing';
import { probeTaskQueueForRegion } from './temporal/constants';
import { ClientCache } from '../activities/client-cache';
import { getHeapStatistics } from 'node:v8';
import { MAX_RESPONSE_BYTES } from './probe/json-rpc-client';
import { heapPlanRefusal, parsedAnswersHeapPlan } from './probe/json-shape-budget';


/** Signals are handled by our entry points, which also close the API and child processes. */
const TEMPORAL_LOG_LEVEL = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  silent: 'ERROR',
} as const;

export function installTemporalRuntime(logLevel: keyof typeof TEMPORAL_LOG_LEVEL, metrics?: MetricsExporterConfig): void {
  Runtime.install({
    shutdownSignals: [],
    logger: new DefaultLogger(TEMPORAL_LOG_LEVEL[logLevel]),
    ...(metrics ? { telemetryOptions: { metrics } } : {}),
  });
}

/**
 * Installs the Temporal runtime with its Prometheus exporter on a loopback port, unless the
 * worker serves no metrics; returns that exporter's address (null: none). An exporter that
 * cannot start costs the SDK's metrics, never the worker.
 */
async function installTemporalRuntimeWithMetrics(
  logLevel: keyof typeof TEMPORAL_LOG_LEVEL,
  metricsPort: number,
  log: { error(obj: object, msg: string): void },
): Promise<string | null> {
  if (metricsPort !== 0) {
    try {
      const address = await loopbackAddressForTemporalMetrics();
      installTemporalRuntime(logLevel, temporalPrometheusExporter(address));
      return address;
    } catch (error) {
      log.error({ err: error }, "the Temporal SDK's metrics exporter could not start; continuing without its metrics");
    }
  }
  installTemporalRuntime(logLevel);
  return null;
}

/**
 * How many activities a worker runs at once. With a slot supplier, as many as its event loop
 * allows (DESIGN §17: a saturated worker stops taking probe tasks instead of running them late);
 * without, a fixed 20 — probing is I/O-bound, and this bounds how many targets one worker probes.
 */
function activitySlots(slots: EventLoopSlotSupplier | undefined) {
  return slots ? { tuner: eventLoopTuner(slots) } : { maxConcurrentActivityTaskExecutions: 20 };
}

/** The activity interceptors, with the tracing ones and the workflow spans' sink when traces are on. */
function tracedInterceptors(tracing: Tracing | null): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!tracing) return { interceptors: { activity: [activityMetricsInterceptor] } };
  return { interceptors: { activity: [...tracing.worker.activityInterceptors, activityMetricsInterceptor] }, sinks: tracing.worker.sinks };
}

export async function createRunWorker(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  workflowBundle?: WorkflowBundle;
  /** Shared with the region's probe worker of the same process (createRegionWorker). */
  clients?: ClientCache;
  /** Activity slots that follow the event loop, shared with the region's worker; absent: a fixed 20 (tests). */
  slots?: EventLoopSlotSupplier;
  /** Traces (src/telemetry/tracing.ts); a given workflowBundle must then hold WORKFLOW_TRACING_MODULE. */
  tracing?: Tracing | null;
}): Promise<Worker> {
  const tracing = options.tracing ?? null;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: options.workflowBundle ?? { codePath: await bundleWorkflowsInChildProcess(tracing ? [WORKFLOW_TRACING_MODULE] : []) },
    activities: createActivities(options.deps, options.clients),
    ...tracedInterceptors(tracing),
    ...activitySlots(options.slots),
    // Heartbeats carry the last committed sequence number: sent at most a second late (the
    // default throttle is 80% of the heartbeat timeout), a killed worker loses at most a second.
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
  });
}

/**
 * The worker's vantage point (DESIGN.md §14): activities only, on rvs-probe-<region>, where a run
 * with vantage_points sends the region's probe chunks. Same limits as the main worker's.
 */
export async function createRegionWorker(options: {
  connection: NativeConnection;
  namespace: string;
  region: string;
  deps: ActivityDeps;
  clients?: ClientCache;
  slots?: EventLoopSlotSupplier;
  tracing?: Tracing | null;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: probeTaskQueueForRegion(options.region),
    activities: createActivities(options.deps, options.clients),
    ...tracedInterceptors(options.tracing ?? null),
    ...activitySlots(options.slots),
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
  });
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger(config.logLevel, 'rvs-worker');
  if (!config.databaseUrl || !config.temporal.address) {
    process.stderr.write('npm run worker needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs both for you)\n');
    process.exit(1);
  }
  exitOnUncaughtError(logger);
  // What the worker may hold of parsed answers at once must fit its heap: a hostile node's answers
  // are bounded per answer (json-shape-budget.ts), so a heap too small for the bound is refused
  // here, readably, rather than found by a crash mid-run.
  const heapPlan = parsedAnswersHeapPlan(getHeapStatistics().heap_size_limit, MAX_RESPONSE_BYTES);
  if (!heapPlan.fits) {
    process.stderr.write(`${heapPlanRefusal(heapPlan)}\n`);
    process.exit(1);
  }
  const temporalMetrics = await installTemporalRuntimeWithMetrics(config.logLevel, config.workerMetricsPort, logger);
  const sql = createSql(config.databaseUrl);
  const box = new SecretBox(await resolveSecretKey(config.secretKey, config.dataDir));
  const target = { ...config.temporal, address: config.temporal.address };
  const connection = await connectTemporal(target, (options) => NativeConnection.connect(options));
  // A schedule's fire triggers its run as the API does, which starts the run workflow with a client.
  const clientConnection = await connectTemporal(target, (options) => Connection.connect(options));
  const tracing = startTracing(config.tracing, 'rvs-worker');
  const temporal = new Client({ connection: clientConnection, namespace: config.temporal.namespace, ...(tracing && { interceptors: tracing.clientInterceptors }) });
  const deps = activityDepsFromConfig(config, sql, box, temporal);
  const clients = new ClientCache();
  const slots = new EventLoopSlotSupplier(config.workerSlots);
  const worker = await createRunWorker({ connection, namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue, deps, clients, slots, tracing });
  const regionWorker = await createRegionWorker({ connection, namespace: config.temporal.namespace, region: config.region, deps, clients, slots, tracing });
  const metrics = await serveMetrics({
    registry: workerMetricsRegistry(),
    host: config.metricsHost,
    port: config.workerMetricsPort,
    // The SDK's families in the same scrape; if its exporter does not answer, ours are served alone.
    ...(temporalMetrics && {
      append: () =>
        temporalMetricsText(temporalMetrics).catch((error: unknown) => {
          logger.warn({ err: error }, "the Temporal SDK's metrics were left out of a scrape");
          return '';
        }),
    }),
    log: logger,
  });
  onShutdownSignal(() => {
    // Activities are cancelled at once (shutdownGraceTime 0) and Temporal retries them elsewhere;
    // this bounds the rest (a database that does not answer) below an orchestrator's 30 s.
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    worker.shutdown();
    regionWorker.shutdown();
  });
  await ensureSampleExpirySchedule(temporal, config.temporal.taskQueue);
  logger.info(
    { taskQueue: config.temporal.taskQueue, region: config.region, probeTaskQueue: probeTaskQueueForRegion(config.region), activitySlots: config.workerSlots },
    'worker started',
  );
  await Promise.all([worker.run(), regionWorker.run()]);
  slots.close();
  await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'traces could not all be exported'));
  await metrics?.close();
  await clientConnection.close();
  await connection.close();
  await sql.end({ timeout: 5 });
  logger.info('worker stopped');
  process.exit(0);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
