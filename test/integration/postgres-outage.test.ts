import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key';
import { createSql, type Sql } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/runtime/embedded-postgres';
import { freePort } from '../helpers/free-port';
import { getWithin, killGroup, spawnInGroup, until, type Answer, type Spawned } from '../helpers/processes';

// The API (its real entry point, as a child process) and a pool as the worker uses it, against a
// PostgreSQL this test starts, stops and starts again on the same data dir and port. The shared
// PostgreSQL on 5432 is never touched.

const REQUEST_TIMEOUT_MS = 8_000;

describe('PostgreSQL stopped and started again under the API and a worker pool', () => {
  let dataDir: string;
  let port: number;
  let db: EmbeddedDatabase | undefined;
  let api: Spawned | undefined;
  let workerSql: Sql | undefined;
  let apiUrl: string;
  const key = generateApiKey().key;
  const auth = { authorization: `Bearer ${key}` };
  const me = () => getWithin(`${apiUrl}/v1/users/me`, auth, REQUEST_TIMEOUT_MS);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'rvs-outage-'));
    // As root PostgreSQL runs as the `postgres` user, which must reach the data dir.
    await chmod(dataDir, 0o755);
    port = await freePort();
    db = await startEmbeddedPostgres(dataDir, () => undefined, port);
    const setup = createSql(db.url, { max: 1 });
    await migrate(setup);
    await setup.end();

    const apiPort = await freePort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    api = spawnInGroup(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `outage-${randomBytes(4).toString('hex')}`,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      RVS_DATA_DIR: dataDir,
      RVS_SECRET_KEY: randomBytes(32).toString('hex'),
      RVS_BOOTSTRAP_API_KEY: key,
      LOG_LEVEL: 'warn',
    });
    await until(async () => ((await me()).status === 200 ? true : undefined), 60_000, `API answering\n${api.output()}`);
    workerSql = createSql(db.url);
    await workerSql`select 1`;
  }, 120_000);

  afterAll(async () => {
    if (api) killGroup(api);
    await workerSql?.end({ timeout: 1 });
    await db?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 503 while it is down, never hangs, and answers again within 10 s of it coming back', { timeout: 120_000 }, async () => {
    await db!.stop();
    db = undefined;

    // The pool wedged after its 10 connections had each been refused once: keep asking past that.
    const outageStarted = Date.now();
    const during: Answer[] = [];
    // A hung request ends the loop: one is enough to fail, fifteen would only make the test slow.
    for (let i = 0; i < 15 && during.at(-1)?.status !== 0; i++) during.push(await me());
    const apiOutageMs = Date.now() - outageStarted;
    const workerErrors: unknown[] = [];
    for (let i = 0; i < 15 && workerErrors.at(-1) !== 'hung'; i++) {
      workerErrors.push(
        await Promise.race([
          workerSql!`select 1`.then(() => 'answered', (error: unknown) => error),
          new Promise((resolve) => setTimeout(() => resolve('hung'), REQUEST_TIMEOUT_MS)),
        ]),
      );
    }

    expect(during.map((answer) => answer.status)).toEqual(Array(15).fill(503));
    for (const answer of during) {
      const body = JSON.parse(answer.body) as { error: { code: string; message: string; details: unknown[]; request_id: string } };
      expect(body.error).toMatchObject({ code: 'service_unavailable', details: [] });
      expect(body.error.request_id).toBe(answer.headers.get('x-request-id'));
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(workerErrors.filter((outcome) => outcome === 'hung' || outcome === 'answered')).toEqual([]);

    db = await startEmbeddedPostgres(dataDir, () => undefined, port);
    const back = Date.now();
    await until(async () => ((await me()).status === 200 ? true : undefined), 10_000, 'API answering after PostgreSQL is back');
    const apiRecoveryMs = Date.now() - back;
    await until(
      async () => (await workerSql!`select 1 as one`.then(() => true, () => undefined)),
      10_000 - apiRecoveryMs,
      'worker pool answering after PostgreSQL is back',
    );
    const workerRecoveryMs = Date.now() - back;
    process.stdout.write(`postgres-outage: ${during.length} API requests answered in ${apiOutageMs} ms while PostgreSQL was down\n`);
    process.stdout.write(`postgres-outage: API answered ${apiRecoveryMs} ms and the worker pool ${workerRecoveryMs} ms after PostgreSQL was back\n`);
  });

  it('stops on SIGTERM while a request is stuck in the database, without waiting for the lock', { timeout: 60_000 }, async () => {
    db ??= await startEmbeddedPostgres(dataDir, () => undefined, port);
    // A lock held by another session keeps the API's authentication query waiting indefinitely.
    const locker = createSql(db!.url, { max: 1 });
    const release = locker.begin(async (tx) => {
      await tx`lock table api_keys in access exclusive mode`;
      await new Promise((resolve) => setTimeout(resolve, 45_000));
    });
    let lockReleased = false;
    void release.then(
      () => (lockReleased = true),
      () => (lockReleased = true),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const inFlight = me();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const started = Date.now();
      process.kill(api!.child.pid!, 'SIGTERM');
      const exit = await Promise.race([api!.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 35_000))]);
      const stopMs = Date.now() - started;
      process.stdout.write(`postgres-outage: API stopped ${stopMs} ms after SIGTERM with a request in flight\n`);
      // It stopped on its own shutdown bound, while the lock still held the request: not because the
      // lock was let go (45 s) nor because the wait gave up (35 s).
      expect(exit).not.toBe('still running');
      expect(lockReleased).toBe(false);
      // The stuck request got an answer or a closed connection, not silence.
      expect((await inFlight).status).not.toBe(200);
    } finally {
      await locker.end({ timeout: 1 });
      await release.catch(() => undefined);
    }
  });
});
