import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { loadConfigOrExit } from './config';
import { SecretBox } from './crypto/secret-box';
import { createSql } from './db/client';
import { createLogger } from './logger';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './runtime/embedded-postgres';
import { onShutdownSignal } from './runtime/shutdown';
import { resolveSecretKey } from './runtime/secret-key';
import { startApi } from './server';
import { resolveTemporalCli, TemporalCliMissingError } from './temporal/cli';
import { startDevServer, type DevServer } from './temporal/dev-server';
import { createRunWorker, installTemporalRuntime } from './worker';

const say = (line: string) => process.stdout.write(`${line}\n`);

/** Everything on one machine: PostgreSQL and Temporal (unless given), migrations, worker and API. */
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger(config.logLevel, 'rvs');
  await mkdir(config.dataDir, { recursive: true });
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => logger.error({ err: e }, 'shutdown step failed'));
  };
  onShutdownSignal(async () => {
    say('shutting down...');
    await stopAll();
    process.exit(0);
  });

  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const db: EmbeddedDatabase = await startEmbeddedPostgres(config.dataDir, say);
    cleanups.push(() => db.stop());
    databaseUrl = db.url;
  }

  let temporalAddress = config.temporal.address;
  let temporalUi = 'the Temporal UI of your cluster';
  if (!temporalAddress) {
    const cliPath = await resolveTemporalCli({ cliPath: config.temporal.cliPath, pathVariable: process.env.PATH, log: say });
    const server: DevServer = await startDevServer({
      cliPath,
      port: 7233,
      uiPort: 8233,
      dbFile: path.join(config.dataDir, 'temporal.db'),
      namespace: config.temporal.namespace,
      log: say,
    });
    cleanups.push(() => server.stop());
    temporalAddress = server.address;
    temporalUi = server.uiUrl ?? temporalUi;
  }

  installTemporalRuntime(config.logLevel);
  const api = await startApi({ ...config, databaseUrl, temporal: { ...config.temporal, address: temporalAddress } }, logger);
  const workerSql = createSql(databaseUrl);
  const box = new SecretBox(await resolveSecretKey(config.secretKey, config.dataDir));
  const connection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await createRunWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    deps: { sql: workerSql, box, allowPrivateTargets: config.allowPrivateTargets },
  });
  const workerDone = worker.run();
  // Stop order: no new requests, then drain the worker, then the servers it needed.
  cleanups.push(async () => {
    await workerDone;
    await connection.close();
    await workerSql.end({ timeout: 5 });
  });
  cleanups.push(async () => worker.shutdown());
  cleanups.push(() => api.close());

  say('');
  say(`Run Verification Service is up`);
  say(`  API:          ${api.url}/v1`);
  say(`  API docs:     ${api.url}/docs   (OpenAPI: ${api.url}/v1/openapi.json)`);
  say(`  Temporal:     ${temporalAddress} (namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue})`);
  say(`  Temporal UI:  ${temporalUi}`);
  if (api.generatedApiKey) say(`  API key:      ${api.generatedApiKey}   (admin key of the default tenant, shown only this once)`);
  else if (config.bootstrapApiKey) say(`  API key:      the one in RVS_BOOTSTRAP_API_KEY`);
  say('Press Ctrl-C to stop.');
  await workerDone.catch(async (error: unknown) => {
    logger.error({ err: error }, 'worker stopped unexpectedly');
    await stopAll();
    process.exit(1);
  });
}

main().catch((error: unknown) => {
  const message = error instanceof TemporalCliMissingError ? error.message : error instanceof Error ? error.message : String(error);
  process.stderr.write(`rvs failed to start: ${message}\n`);
  process.exit(1);
});
