import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createSql, type Sql } from '../../src/db/client';
import { freePort } from '../helpers/free-port';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { getWithin, killGroup, spawnInGroup, until, type Spawned } from '../helpers/processes';

// `npm start` as a user runs it, against the test's Temporal dev server (TEMPORAL_ADDRESS) and a
// fresh database of its own (DATABASE_URL), so the supervisor starts the API and the worker only.

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const pidsOf = (output: string, name: string) => [...output.matchAll(new RegExp(`${name} started \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));

describe('npm start supervises the API and the worker as child processes', () => {
  let admin: Sql;
  let dbName: string;
  let databaseUrl: string;
  let dataDir: string;
  let node: FakeNode;
  let start: Spawned | undefined;

  beforeAll(async () => {
    admin = createSql(inject('databaseUrl'), { max: 1 });
    dbName = `rvs_supervisor_${randomBytes(6).toString('hex')}`;
    await admin.unsafe(`create database ${dbName}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
    dataDir = await mkdtemp(path.join(tmpdir(), 'rvs-supervisor-'));
    await chmod(dataDir, 0o755);
    node = await startFakeNode(answers.ok());
  });

  afterAll(async () => {
    if (start) killGroup(start);
    await node.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('restarts a killed worker while the API keeps answering, and one SIGINT stops everything', { timeout: 150_000 }, async () => {
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    start = spawnInGroup('npm', ['start'], {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `supervisor-${randomUUID()}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      RVS_DATA_DIR: dataDir,
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'warn',
      // The test asks every 100 ms: the default 600 requests/minute would answer 429s.
      RVS_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    const output = start.output;
    await until(() => (output().includes('Press Ctrl-C to stop.') ? true : undefined), 90_000, () => `npm start\n${output()}`);

    // The generated admin key is printed once, by the supervisor, and by no child again.
    const key = /API key:\s+(rvs_\S+)/.exec(output())?.[1];
    expect(key, output()).toBeDefined();
    expect(output().split(key!).length - 1).toBe(1);
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const [apiPid] = pidsOf(output(), 'api');
    const [workerPid] = pidsOf(output(), 'worker');
    expect(apiPid).toBeGreaterThan(0);
    expect(workerPid).toBeGreaterThan(0);

    // The API is asked every 100 ms while the worker is killed and comes back.
    const statuses: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        statuses.push((await getWithin(`${apiUrl}/v1/users/me`, auth, 5_000)).status);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    process.kill(workerPid!, 'SIGKILL');
    const restarted = await until(() => pidsOf(output(), 'worker').find((pid) => pid !== workerPid), 30_000, () => `worker restart\n${output()}`);
    expect(output()).toMatch(/worker exited \(signal SIGKILL\); restarting in \d+(\.\d+)? s/);

    // The restarted worker runs a run end to end against the loopback node.
    const postJson = async (url: string, body: unknown) => {
      const response = await fetch(`${apiUrl}${url}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      const json = (await response.json()) as { id: string };
      expect(response.status, JSON.stringify(json)).toBe(201);
      return json;
    };
    const chain = await postJson('/v1/chains', { name: 'Local', slug: `local-${randomUUID()}`, chain_id: 1337 });
    const endpoint = await postJson('/v1/endpoints', { chain_id: chain.id, name: 'candidate', url: node.url, headers: {}, timeout_ms: 2_000 });
    const suite = await postJson('/v1/suites', {
      chain_id: chain.id,
      name: 'supervised',
      config: {
        targets: [{ endpoint_id: endpoint.id }],
        workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 0, timeout_ms: 2_000 },
      },
    });
    const run = await postJson(`/v1/suites/${suite.id}/runs`, {});
    const finished = await until(
      async () => {
        const answer = await getWithin(`${apiUrl}/v1/runs/${run.id}`, auth, 5_000);
        expect(answer.status, answer.body).toBe(200);
        const body = JSON.parse(answer.body) as { status: string };
        return ['success', 'failed', 'cancelled'].includes(body.status) ? body : undefined;
      },
      60_000,
      () => `run finished\n${output()}`,
    );
    expect(finished.status).toBe('success');

    polling = false;
    await poller;
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    // One SIGINT to the whole group, as a terminal's Ctrl-C: npm forwards it too.
    const stopped = Date.now();
    process.kill(-start.child.pid!, 'SIGINT');
    const exit = await Promise.race([start.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 30_000))]);
    const stopMs = Date.now() - stopped;
    process.stdout.write(`supervisor: stopped ${stopMs} ms after one SIGINT\n`);
    expect(exit, output()).not.toBe('running');
    expect(output()).toContain('stopped');
    expect(output()).not.toMatch(/again; (exiting|killing)/);
    await until(() => ([apiPid!, workerPid!, restarted].some(alive) ? undefined : true), 5_000, 'children gone');
  });
});
