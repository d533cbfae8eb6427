import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/constants';
import { startDevServer } from '../../src/temporal/dev-server';
import { freePort } from '../helpers/free-port';
import { spawnInGroup, until } from '../helpers/processes';
import { runWorkflow } from '../../workflows/run-workflow';

// A .data/temporal.db created by an older `npm start` (or by hand) has no search attributes;
// `start-dev --search-attribute` registers them only when it creates the file.

const NAMESPACE = 'default';

async function serving(address: string): Promise<true | undefined> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return undefined;
  }
}

/** Starts a workflow the way a run trigger does (it never runs: nothing polls its task queue). */
async function startWithSearchAttributes(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: NAMESPACE });
    const handle = await client.workflow.start(runWorkflow, {
      workflowId: `search-attributes-${randomUUID()}`,
      taskQueue: `nobody-${randomUUID()}`,
      args: [{ runId: randomUUID() }],
      typedSearchAttributes: Object.values(SEARCH_ATTRIBUTE_KEYS).map((key) =>
        key.type === SearchAttributeType.KEYWORD_LIST ? { key, value: ['x'] } : { key, value: 'x' },
      ),
    });
    await handle.terminate('test');
  } finally {
    await connection.close();
  }
}

async function registeredNames(address: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const listed = await connection.operatorService.listSearchAttributes({ namespace: NAMESPACE });
    return Object.keys(listed.customAttributes ?? {});
  } finally {
    await connection.close();
  }
}

describe('the dev server of npm start on an existing database file', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('has the search attributes even when the file was created without them, and keeps them across restarts', { timeout: 90_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rvs-temporal-db-'));
    dirs.push(dir);
    const dbFile = path.join(dir, 'temporal.db');
    const cliPath = inject('temporalCliPath');

    const port = await freePort();
    const bare = spawnInGroup(cliPath, [
      'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless',
      '--namespace', NAMESPACE, '--db-filename', dbFile, '--log-level', 'error',
    ], {});
    try {
      await until(() => serving(`127.0.0.1:${port}`), 60_000, `bare dev server\n${bare.output()}`);
      expect(await registeredNames(`127.0.0.1:${port}`)).not.toContain(SEARCH_ATTRIBUTE_KEYS.tenantId.name);
    } finally {
      process.kill(-bare.child.pid!, 'SIGTERM');
      await bare.exited;
    }

    for (let start = 0; start < 2; start++) {
      const server = await startDevServer({ cliPath, port: await freePort(), uiPort: null, dbFile, namespace: NAMESPACE, log: () => undefined });
      try {
        expect(await registeredNames(server.address)).toEqual(
          expect.arrayContaining(Object.values(SEARCH_ATTRIBUTE_KEYS).map((key) => key.name)),
        );
        await startWithSearchAttributes(server.address);
      } finally {
        await server.stop();
      }
    }
  });
});
