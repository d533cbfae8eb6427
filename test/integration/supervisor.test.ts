import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createSql, type Sql } from '../../src/db/client';
import { freePortBelowEphemeral } from '../helpers/free-port';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { getWithin, killGroup, spawnInGroup, until, type Spawned } from '../helpers/processes';

// `npm start` as a user or a process manager runs it. Most cases use the test's Temporal dev
// server (TEMPORAL_ADDRESS) and a fresh database of their own (DATABASE_URL), so the supervisor
// starts the API and the worker only; one case lets it start PostgreSQL and Temporal too.

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const pidsOf = (output: string, name: string) => [...output.matchAll(new RegExp(`${name} started \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));

/** The pids of a process's children (Linux: /proc/<pid>/task/<tid>/children). */
async function childrenOf(pid: number): Promise<number[]> {
  const { readFile, readdir } = await import('node:fs/promises');
  const pids: number[] = [];
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    pids.push(...text.split(/\s+/).filter(Boolean).map(Number));
  }
  return pids;
}

interface Launched {
  npm: Spawned;
  port: number;
  apiUrl: string;
  auth: Record<string, string>;
  /** The node process running src/start.ts (npm's child: the script execs it). */
  supervisorPid: number;
  pids(name: string): number[];
}

describe('npm start supervises its services as child processes', () => {
  let admin: Sql;
  const databases: string[] = [];
  const dirs: string[] = [];
  const launched: Spawned[] = [];
  let node: FakeNode;

  beforeAll(async () => {
    admin = createSql(inject('databaseUrl'), { max: 1 });
    // Slow enough that a run of 1,500 calls is still in flight when its worker is killed.
    node = await startFakeNode(answers.delay(5));
  });

  afterAll(async () => {
    for (const npm of launched) killGroup(npm);
    await node.close();
    for (const name of databases) await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  async function newDatabase(): Promise<string> {
    const name = `rvs_supervisor_${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`create database ${name}`);
    databases.push(name);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    return url.toString();
  }

  /** `npm start` on `port` in a process group of its own, with a data directory and database of its own; not waited for. */
  async function spawnStart(port: number, env: Record<string, string> = {}): Promise<Spawned> {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'rvs-supervisor-'));
    dirs.push(dataDir);
    await chmod(dataDir, 0o755);
    const npm = spawnInGroup('npm', ['start'], {
      DATABASE_URL: await newDatabase(),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `supervisor-${randomUUID()}`,
      PORT: String(port),
      RVS_DATA_DIR: dataDir,
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      RVS_API_METRICS_PORT: '0',
      RVS_WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      // The tests ask every 100 ms: the default 600 requests/minute would answer 429s.
      RVS_RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    });
    launched.push(npm);
    return npm;
  }

  /** `npm start` in a process group of its own, until its banner; external PostgreSQL and Temporal unless `env` unsets them. */
  async function launch(env: Record<string, string> = {}, readyWithinMs = 90_000): Promise<Launched> {
    // Below the ephemeral range: the Temporal dev server npm start may run binds random ports there.
    const port = await freePortBelowEphemeral();
    const npm = await spawnStart(port, env);
    await until(() => (npm.output().includes('Press Ctrl-C to stop.') ? true : undefined), readyWithinMs, () => `npm start\n${npm.output()}`);
    const key = /API key:\s+(rvs_\S+)/.exec(npm.output())?.[1];
    expect(key, npm.output()).toBeDefined();
    const [supervisorPid] = await childrenOf(npm.child.pid!);
    expect(supervisorPid, 'npm runs the supervisor as its only child').toBeGreaterThan(0);
    return {
      npm,
      port,
      apiUrl: `http://127.0.0.1:${port}`,
      auth: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      supervisorPid: supervisorPid!,
      pids: (name) => pidsOf(npm.output(), name),
    };
  }

  /** Resolves once npm has exited, or says 'running' after timeoutMs. */
  const exitWithin = (npm: Spawned, timeoutMs: number) =>
    Promise.race([npm.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), timeoutMs))]);

  /** Every process of the stack is gone and its API port is free. */
  async function allGone(stack: Launched, what: string): Promise<void> {
    const pids = [stack.supervisorPid, ...['api', 'worker', 'postgres', 'temporal'].flatMap((name) => stack.pids(name))];
    await until(
      async () => (pids.some(alive) || (await listening(stack.port)) ? undefined : true),
      30_000,
      () => `${what}: still alive: ${pids.filter(alive).join(', ') || 'none'} of ${pids.join(', ')}\n${stack.npm.output()}`,
    );
  }

  it('restarts a crashed worker and API with backoff, a run in flight survives a worker kill, and SIGINT to npm alone stops everything', { timeout: 240_000 }, async () => {
    const stack = await launch();
    const { apiUrl, auth, npm } = stack;
    // The generated admin key is printed once, by the supervisor, and by no child again.
    const key = auth.authorization!.slice('Bearer '.length);
    expect(npm.output().split(key).length - 1).toBe(1);
    const [workerPid] = stack.pids('worker');
    expect(workerPid).toBeGreaterThan(0);

    const postJson = async (url: string, body: unknown) => {
      const response = await fetch(`${apiUrl}${url}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      const json = (await response.json()) as { id: string };
      expect(response.status, JSON.stringify(json)).toBe(201);
      return json;
    };
    const planned = 1_500;
    const chain = await postJson('/v1/chains', { name: 'Local', slug: `local-${randomUUID()}`, chain_id: 1337 });
    const endpoint = await postJson('/v1/endpoints', { chain_id: chain.id, name: 'candidate', url: node.url, headers: {}, timeout_ms: 2_000 });
    const suite = await postJson('/v1/suites', {
      chain_id: chain.id,
      name: 'supervised',
      config: {
        targets: [{ endpoint_id: endpoint.id }],
        workload: { requests_per_target: planned, concurrency: 2, warmup_requests: 0, timeout_ms: 2_000 },
        retry: { max_attempts: 5, initial_interval_ms: 200 },
      },
    });

    // The API is asked every 100 ms while the worker is killed, twice, and comes back.
    const statuses: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        statuses.push((await getWithin(`${apiUrl}/v1/users/me`, auth, 5_000)).status);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const sentBefore = node.requests.length;
    const run = await postJson(`/v1/suites/${suite.id}/runs`, {});
    // Killed in the middle of its probe chunk.
    await until(() => (node.requests.length - sentBefore >= 300 ? true : undefined), 60_000, () => `run under way\n${npm.output()}`);
    process.kill(workerPid!, 'SIGKILL');
    const second = await until(() => stack.pids('worker').find((pid) => pid !== workerPid), 30_000, () => `worker restart\n${npm.output()}`);
    expect(node.requests.length - sentBefore).toBeLessThan(planned);
    // Killed again at once: the next restart waits twice as long.
    process.kill(second, 'SIGKILL');
    const third = await until(() => stack.pids('worker').find((pid) => pid !== workerPid && pid !== second), 30_000, () => `second restart\n${npm.output()}`);
    expect(npm.output()).toMatch(/worker exited \(signal SIGKILL\); restarting in 1 s[\s\S]*worker exited \(signal SIGKILL\); restarting in 2 s/);
    expect(alive(third)).toBe(true);

    const finished = await until(
      async () => {
        const answer = await getWithin(`${apiUrl}/v1/runs/${run.id}`, auth, 5_000);
        expect(answer.status, answer.body).toBe(200);
        const body = JSON.parse(answer.body) as { status: string; stats: { calls: { total: number } } };
        return ['success', 'failed', 'cancelled'].includes(body.status) ? body : undefined;
      },
      120_000,
      () => `run finished\n${npm.output()}`,
    );
    expect(finished.status, JSON.stringify(finished)).toBe('success');
    expect(finished.stats.calls.total).toBe(planned);

    polling = false;
    await poller;
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    // An API crash: restarted like the worker, and answering again.
    const [apiPid] = stack.pids('api');
    process.kill(apiPid!, 'SIGKILL');
    const newApi = await until(() => stack.pids('api').find((pid) => pid !== apiPid), 30_000, () => `api restart\n${npm.output()}`);
    expect(npm.output()).toMatch(/api exited \(signal SIGKILL\); restarting in 1 s/);
    await until(async () => ((await getWithin(`${apiUrl}/v1/users/me`, auth, 2_000)).status === 200 ? true : undefined), 60_000, () => `api back\n${npm.output()}`);
    expect(alive(newApi)).toBe(true);

    // SIGINT to the npm process alone, as `kill -INT <pid>` or a process manager sends it.
    process.kill(npm.child.pid!, 'SIGINT');
    const exit = await exitWithin(npm, 40_000);
    expect(exit, npm.output()).not.toBe('running');
    expect(npm.output()).toContain('stopped');
    expect(npm.output()).not.toMatch(/again; (exiting|killing)/);
    await allGone(stack, 'after SIGINT to npm');
  });

  it('stops everything on SIGTERM to the npm process alone', { timeout: 150_000 }, async () => {
    const stack = await launch();
    process.kill(stack.npm.child.pid!, 'SIGTERM');
    const exit = await exitWithin(stack.npm, 40_000);
    expect(exit, stack.npm.output()).not.toBe('running');
    expect(stack.npm.output()).toMatch(/api stopped[\s\S]*worker stopped[\s\S]*\nstopped/);
    await allGone(stack, 'after SIGTERM to npm');
  });

  it('stops everything when npm is killed (SIGKILL): the supervisor notices its parent is gone', { timeout: 150_000 }, async () => {
    const stack = await launch();
    process.kill(stack.npm.child.pid!, 'SIGKILL');
    await until(() => (stack.npm.output().includes('is gone; shutting down') ? true : undefined), 10_000, () => `parent gone\n${stack.npm.output()}`);
    await allGone(stack, 'after npm was killed');
    expect(stack.npm.output()).toMatch(/\nstopped/);
  });

  it('leaves no child behind when the supervisor itself is killed (SIGKILL)', { timeout: 150_000 }, async () => {
    const stack = await launch();
    process.kill(stack.supervisorPid, 'SIGKILL');
    // Each child sees its IPC channel close and stops as on SIGTERM.
    await allGone(stack, 'after the supervisor was killed');
    expect(await exitWithin(stack.npm, 5_000)).not.toBe('running');
  });

  it('does not say it is up when another server answers on its port: it exits naming the port', { timeout: 150_000 }, async () => {
    // Another HTTP server on PORT (as the dev server's random HTTP port once took a test's port):
    // npm start used to take any answer on the port for its API and print "up".
    const foreign = createServer((_request, response) => {
      response.statusCode = 404;
      response.end('not the API');
    });
    const port = await freePortBelowEphemeral();
    await new Promise<void>((resolve) => foreign.listen(port, '127.0.0.1', resolve));
    try {
      const npm = await spawnStart(port);
      const exit = await exitWithin(npm, 120_000);
      expect(exit, npm.output()).not.toBe('running');
      expect(npm.output()).not.toContain('Press Ctrl-C to stop.');
      expect(npm.output()).toContain(`port ${port} is taken by another server (it answered HTTP 404`);
      // Its API and worker children went with it.
      const children = ['api', 'worker'].flatMap((name) => pidsOf(npm.output(), name));
      await until(async () => (children.some(alive) ? undefined : true), 30_000, () => `children still alive: ${children.filter(alive).join(', ')}`);
    } finally {
      await new Promise((resolve) => foreign.close(resolve));
    }
  });

  it('starts the embedded PostgreSQL and the Temporal dev server, and a SIGTERM to every process at once (systemd) restarts nothing', { timeout: 240_000 }, async () => {
    const postgresPort = await freePortBelowEphemeral();
    const temporalPort = await freePortBelowEphemeral();
    const stack = await launch(
      {
        DATABASE_URL: '',
        TEMPORAL_ADDRESS: '',
        TEMPORAL_CLI_PATH: inject('temporalCliPath'),
        RVS_EMBEDDED_POSTGRES_PORT: String(postgresPort),
        RVS_TEMPORAL_DEV_PORT: String(temporalPort),
        RVS_TEMPORAL_UI_PORT: '0',
      },
      180_000,
    );
    const { npm } = stack;
    expect(npm.output()).toContain(`Temporal:     127.0.0.1:${temporalPort}`);
    expect(await listening(postgresPort)).toBe(true);
    expect(await listening(temporalPort)).toBe(true);
    expect((await getWithin(`${stack.apiUrl}/v1/users/me`, stack.auth, 5_000)).status).toBe(200);

    // systemd's KillMode=control-group: SIGTERM to every process of the service at the same time.
    const hosts = ['api', 'worker', 'temporal', 'postgres'].map((name) => stack.pids(name).at(-1)!);
    expect(hosts.every((pid) => pid > 0)).toBe(true);
    // The PostgreSQL server and the temporal binary under their hosts too.
    const servers = [...(await childrenOf(hosts[2]!)), ...(await childrenOf(hosts[3]!))];
    expect(servers.length).toBeGreaterThanOrEqual(2);
    const everyone = [npm.child.pid!, stack.supervisorPid, ...hosts, ...servers];
    for (const pid of everyone) process.kill(pid, 'SIGTERM');
    const exit = await exitWithin(npm, 60_000);
    expect(exit, npm.output()).not.toBe('running');
    expect(npm.output()).not.toMatch(/restarting in/);
    expect(npm.output()).not.toMatch(/again; (exiting|killing)/);
    for (const name of ['api', 'worker', 'temporal', 'postgres']) expect(stack.pids(name), `${name} started once`).toHaveLength(1);
    await allGone(stack, 'after SIGTERM to everyone');
    expect(await listening(postgresPort)).toBe(false);
    expect(await listening(temporalPort)).toBe(false);
  });
});
