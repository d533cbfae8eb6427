import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { READINESS_CACHE_MS } from '../../src/services/health';
import { startStack, type Stack } from '../helpers/stack';
import { startUnreadyApp } from '../helpers/unready-app';

// The orchestrator probes: public, no quota spent, /readyz honest about PostgreSQL and Temporal.

describe('GET /healthz and GET /readyz', () => {
  let stack: Stack;
  beforeAll(async () => {
    // Tight quotas: a probe that counted against any of them would be refused within a few calls.
    stack = await startStack({ worker: false, env: { RVS_RATE_LIMIT_PER_MINUTE: '2', RVS_AUTH_FAILURE_LIMIT_PER_MINUTE: '2' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('answer without a credential, past every quota, and spend no failed-authentication quota of the address', async () => {
    // An address of this test only: the quota table is shared by every test file of the run.
    const remoteAddress = `127.0.${Math.floor(Math.random() * 200) + 20}.${Math.floor(Math.random() * 250) + 2}`;
    for (let i = 0; i < 10; i += 1) {
      const live = await stack.app.inject({ method: 'GET', url: '/healthz', remoteAddress });
      expect(live.statusCode, live.body).toBe(200);
      expect(live.json()).toEqual({ status: 'ok' });
      expect(live.headers['ratelimit-limit']).toBeUndefined();
      const ready = await stack.app.inject({ method: 'GET', url: '/readyz', remoteAddress });
      expect(ready.statusCode, ready.body).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
    }
    const [row] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from rate_limit_windows where bucket = ${`auth-failures:${remoteAddress}`}`;
    expect(row!.n).toBe(0);
    // The address's failed-authentication quota (2 a minute) is whole: the first failure is a 401.
    const unauthenticated = await stack.app.inject({ method: 'GET', url: '/v1/users/me', remoteAddress });
    expect(unauthenticated.statusCode).toBe(401);
  });

  it('a flood of /readyz costs at most one Temporal (and database) check per interval, every answer still 200', async () => {
    // A spy that calls through to the real Temporal frontend: it only counts.
    const systemInfo = vi.spyOn(stack.client.workflowService, 'getSystemInfo');
    try {
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: 300 }, () => stack.app.inject({ method: 'GET', url: '/readyz' })));
      const elapsedMs = performance.now() - started;
      for (const answer of answers) expect(answer.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
      // One check per started interval at most, however long the flood took (300 before the cache).
      expect(systemInfo.mock.calls.length).toBeLessThanOrEqual(Math.ceil(elapsedMs / READINESS_CACHE_MS) + 1);
    } finally {
      systemInfo.mockRestore();
    }
  });

  it('/readyz is 503 naming PostgreSQL and Temporal when neither answers; /healthz does no I/O and stays 200', async () => {
    const unready = await startUnreadyApp(stack);
    try {
      const ready = await unready.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(503);
      const { error } = ready.json() as { error: { code: string; message: string; details: { field: string; message: string }[] } };
      expect(error.code).toBe('service_unavailable');
      expect(error.details.map((d) => d.field).sort()).toEqual(['postgres', 'temporal']);
      // Nothing about the connection (host, port, user) is passed on.
      expect(ready.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|postgres:\/\//);
      // Each check ended on its own: refused, or given up at its bound (2 s), never left hanging.
      for (const d of error.details) expect(d.message).toMatch(/^(is not reachable|did not answer within 2 s)$/);
      const live = await unready.app.inject({ method: 'GET', url: '/healthz' });
      expect(live.statusCode).toBe(200);
    } finally {
      await unready.close();
    }
  });
});
