/**
 * `npm start`, a supervisor (DESIGN.md §9): PostgreSQL (embedded unless DATABASE_URL), the
 * Temporal dev server (unless TEMPORAL_ADDRESS), then the API and the worker, each a child process
 * in its own process group. A child that dies is started again with backoff while the others keep
 * going. One Ctrl-C stops them in reverse order: API (no new requests), worker (drains), Temporal,
 * PostgreSQL.
 */
import type { StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { loadConfigOrExit, type Config } from './config';
import { createSql } from './db/client';
import { migrate } from './db/migrate';
import { forcesExit } from './runtime/shutdown';
import { resolveSecretKey } from './runtime/secret-key';
import { ChildService } from './runtime/supervisor';
import type { EmbeddedPostgresReady } from './runtime/embedded-postgres-process';
import { workerNodeOptions } from './runtime/worker-heap';
import { bootstrapDefaultTenant } from './services/bootstrap';
import { resolveTemporalCli, TemporalCliMissingError } from './temporal/temporal-binary';
import type { DevServerReady } from './temporal/dev-server-process';
import { OPENAPI_TITLE } from './http/openapi/title';

const say = (line: string) => process.stdout.write(`${line}\n`);
const ROOT = path.resolve(__dirname, '..');
/** Node with tsx as a loader, as `npm run api` and `npm run worker` run it: no tsx parent process. */
const NODE_WITH_TSX = ['--import', 'tsx'];
const CHILD_STDIO: StdioOptions = ['ignore', 'inherit', 'inherit', 'ipc'];
const API_READY_TIMEOUT_MS = 90_000;
const POSTGRES_READY_TIMEOUT_MS = 120_000;
const DEV_SERVER_READY_TIMEOUT_MS = 90_000;

class StartAborted extends Error {}

// Stopped in reverse order of starting.
const services: ChildService[] = [];
let stopping = false;
let firstSignalAt = 0;

function stopAll(code: number): void {
  stopping = true;
  firstSignalAt = performance.now();
  for (const service of services) service.noMoreRestarts();
  void (async () => {
    for (const service of [...services].reverse()) {
      await service.stop().catch((error: unknown) => say(`stopping ${service.name} failed: ${String(error)}`));
    }
    say('stopped');
    process.exit(code);
  })();
}

function onSignal(signal: NodeJS.Signals): void {
  if (stopping) {
    // The terminal and npm each deliver the one Ctrl-C: the repeat is not a second request; nor is
    // a repeated SIGTERM (src/runtime/shutdown.ts).
    if (!forcesExit(signal, firstSignalAt)) return;
    say(`received ${signal} again; killing everything now`);
    for (const service of services) service.kill();
    process.exit(130);
  }
  say('shutting down...');
  stopAll(0);
}

const checkNotStopping = () => {
  if (stopping) throw new StartAborted();
};

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  await mkdir(config.dataDir, { recursive: true });

  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const postgres = hostedService('postgres', 'src/runtime/embedded-postgres-process.ts', { ...process.env, RVS_DATA_DIR: config.dataDir });
    services.push(postgres);
    databaseUrl = (await whenReady<EmbeddedPostgresReady>(postgres, POSTGRES_READY_TIMEOUT_MS)).url;
    checkNotStopping();
  }

  // Before any child starts: migrations, the secret key file and the bootstrap key exist once.
  await resolveSecretKey(config.secretKey, config.dataDir);
  const sql = createSql(databaseUrl, { max: 1 });
  let generatedApiKey: string | null;
  try {
    await migrate(sql);
    generatedApiKey = await bootstrapDefaultTenant(sql, config.bootstrapApiKey);
  } finally {
    await sql.end({ timeout: 5 });
  }
  checkNotStopping();

  let temporalAddress = config.temporal.address;
  let temporalUi = 'the Temporal UI of your cluster';
  let devServerUiUrl: string | null = null;
  if (!temporalAddress) {
    const cliPath = await resolveTemporalCli({ cliPath: config.temporal.cliPath, pathVariable: process.env.PATH, log: say });
    checkNotStopping();
    const temporal = hostedService('temporal', 'src/temporal/dev-server-process.ts', { ...process.env, RVS_DATA_DIR: config.dataDir, TEMPORAL_CLI_PATH: cliPath });
    services.push(temporal);
    const ready = await whenReady<DevServerReady>(temporal, DEV_SERVER_READY_TIMEOUT_MS);
    temporalAddress = ready.address;
    temporalUi = ready.uiUrl ?? temporalUi;
    devServerUiUrl = ready.uiUrl;
    checkNotStopping();
  }

  // The dashboard links to the dev server's UI only when this process started it (and the
  // operator named no other UI): then, and only then, where it listens is known.
  const uiUrl = config.temporal.uiUrl ?? (config.temporal.address ? null : devServerUiUrl);
  const childEnv = {
    ...process.env,
    RVS_DATA_DIR: config.dataDir,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    ...(uiUrl ? { RVS_TEMPORAL_UI_URL: uiUrl } : {}),
  };
  const worker = new ChildService({
    name: 'worker',
    command: process.execPath,
    args: [...NODE_WITH_TSX, path.join(ROOT, 'src/worker.ts')],
    cwd: ROOT,
    env: { ...childEnv, NODE_OPTIONS: workerNodeOptions(process.env.NODE_OPTIONS) },
    restart: true,
    stopTimeoutMs: 20_000,
    log: say,
    // The channel tells the child when the supervisor is gone (src/runtime/shutdown.ts).
    stdio: CHILD_STDIO,
  });
  const api = new ChildService({
    name: 'api',
    command: process.execPath,
    args: [...NODE_WITH_TSX, path.join(ROOT, 'src/server.ts')],
    cwd: ROOT,
    env: childEnv,
    restart: true,
    stopTimeoutMs: 20_000,
    log: say,
    // The channel tells the child when the supervisor is gone (src/runtime/shutdown.ts).
    stdio: CHILD_STDIO,
  });
  services.push(worker, api);
  worker.start();
  api.start();
  const apiUrl = await waitForApi(config, api);

  say('');
  say(`Run Verification Service is up`);
  say(`  API:          ${apiUrl}/v1`);
  say(`  API docs:     ${apiUrl}/docs   (OpenAPI: ${apiUrl}/v1/openapi.json)`);
  say(`  Temporal:     ${temporalAddress} (namespace ${config.temporal.namespace}, task queue ${config.temporal.taskQueue})`);
  say(`  Temporal UI:  ${temporalUi}`);
  if (generatedApiKey) say(`  API key:      ${generatedApiKey}   (admin key of the default tenant, shown only this once)`);
  else if (config.bootstrapApiKey) say(`  API key:      the one in RVS_BOOTSTRAP_API_KEY`);
  say('Press Ctrl-C to stop.');
}

/**
 * PostgreSQL or the Temporal dev server behind a small Node process in its own group: started
 * again with backoff if it dies (the API answers 503 meanwhile), stopped last.
 */
function hostedService(name: string, entry: string, env: NodeJS.ProcessEnv): ChildService {
  return new ChildService({
    name,
    command: process.execPath,
    args: [...NODE_WITH_TSX, path.join(ROOT, entry)],
    cwd: ROOT,
    env,
    restart: true,
    stopTimeoutMs: 15_000,
    log: say,
    stdio: CHILD_STDIO,
  });
}

/** Starts `service` and waits for the message its process sends once it serves. */
function whenReady<T>(service: ChildService, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${service.name} did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    const child = service.start();
    child.once('message', (message: T) => {
      clearTimeout(timer);
      resolve(message);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`${service.name} exited during start`));
    });
  });
}

/** Until the API child answers HTTP; the URL users reach it on. */
async function waitForApi(config: Config, api: ChildService): Promise<string> {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const probeUrl = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}/v1/openapi.json`;
  const deadline = performance.now() + API_READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    checkNotStopping();
    if (api.running) {
      let answer: string | null = null;
      try {
        // Read to the end: a response left half-read keeps its connection busy, and a busy
        // connection holds the API's graceful shutdown for its whole drain time.
        const response = await fetch(probeUrl, { signal: AbortSignal.timeout(5_000) });
        answer = isOurOpenApi(response.status, await response.text()) ? 'ours' : `HTTP ${response.status}`;
      } catch {
        // not listening yet
      }
      if (answer === 'ours') return `http://${config.host === '0.0.0.0' ? 'localhost' : host}:${config.port}`;
      // Our API answers its own document from the moment it listens, so any other answer is
      // another server holding the port: our API cannot bind it, and saying "up" would send the
      // user to that server.
      if (answer !== null) throw new Error(`port ${config.port} is taken by another server (it answered ${answer} to GET ${probeUrl}): set PORT to a free port`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the API did not answer on ${probeUrl} within ${API_READY_TIMEOUT_MS / 1000} s`);
}

/** Whether an answer to GET /v1/openapi.json is this service's document (an OpenAPI object with our title). */
function isOurOpenApi(status: number, body: string): boolean {
  if (status !== 200) return false;
  try {
    const document = JSON.parse(body) as { openapi?: unknown; info?: { title?: unknown } };
    return typeof document.openapi === 'string' && document.info?.title === OPENAPI_TITLE;
  } catch {
    return false;
  }
}

/**
 * Whether the process that started the supervisor is gone. npm waits for its script, so npm gone
 * (killed with SIGKILL, or by a process manager that signals only it) leaves the supervisor and
 * its children without anyone to stop them, holding their ports. Node's process.ppid is fixed at
 * start. On Linux the kernel's own record says who the parent is now: it changes (to init or a
 * subreaper) the moment npm exits, even while npm waits, a zombie, to be reaped. Elsewhere: does
 * that process still exist (EPERM: it does, as another user)?
 */
function parentGone(parentPid: number): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // "pid (command) state ppid …": the command may contain spaces and parentheses.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== parentPid;
  } catch {
    // No /proc.
  }
  try {
    process.kill(parentPid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const PARENT_CHECK_MS = 1_000;
const parentPid = process.ppid;
// pid 1 (init, a container's entrypoint, systemd) does not go away while we run.
if (parentPid > 1) {
  const watch = setInterval(() => {
    if (!parentGone(parentPid)) return;
    clearInterval(watch);
    if (stopping) return;
    say(`the parent process (pid ${parentPid}) is gone; shutting down...`);
    stopAll(0);
  }, PARENT_CHECK_MS);
  watch.unref();
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
process.on('uncaughtException', (error) => {
  say(`supervisor failed: ${error.message}; stopping everything`);
  for (const service of services) service.kill();
  process.exit(1);
});
main().catch((error: unknown) => {
  // A signal during start-up already stops what was started.
  if (error instanceof StartAborted) return;
  const message = error instanceof TemporalCliMissingError ? error.message : error instanceof Error ? error.message : String(error);
  process.stderr.write(`rvs failed to start: ${message}\n`);
  if (!stopping) stopAll(1);
});
