import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/client';
import { AppError } from '../../src/errors';
import type { Ctx } from '../../src/services/context';
import { loadOwned } from '../../src/services/load-owned';

/*
 * The one rule every resource read by id follows: a missing row (or one that is not this kind of
 * resource to the caller) is 404 naming what was looked for; another tenant's row is 403.
 */

type Row = { id: string; tenant_id: string; owner_run_id: string | null };
const rows: Row[] = [
  { id: 'mine', tenant_id: 'tenant-a', owner_run_id: null },
  { id: 'theirs', tenant_id: 'tenant-b', owner_run_id: null },
  { id: 'mine-run-owned', tenant_id: 'tenant-a', owner_run_id: 'run-1' },
  { id: 'theirs-run-owned', tenant_id: 'tenant-b', owner_run_id: 'run-2' },
];
const sql = {} as Queryable;
const find = async (given: Queryable, id: string) => {
  expect(given).toBe(sql);
  return rows.find((row) => row.id === id);
};
const ctx = { principal: { tenantId: 'tenant-a' }, deps: { sql } } as unknown as Ctx;
const runOwned = (row: Row) => row.owner_run_id !== null;

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  const error = await promise.then(
    () => expect.unreachable('expected a refusal'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const { status, code, message } = error as AppError;
  return { status, code, message };
}

describe('loadOwned', () => {
  it('returns a row of the caller\'s tenant', async () => {
    expect(await loadOwned(ctx, 'endpoint', find, 'mine', runOwned)).toBe(rows[0]);
  });

  it('answers a missing row 404, naming what was looked for', async () => {
    expect(await refusal(loadOwned(ctx, 'endpoint', find, 'nothing'))).toEqual({ status: 404, code: 'not_found', message: 'endpoint not found' });
  });

  it('answers another tenant\'s row 403', async () => {
    expect(await refusal(loadOwned(ctx, 'endpoint', find, 'theirs', runOwned))).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'you do not have access to this resource',
    });
  });

  it('answers a hidden row 404 like a missing one, in any tenant', async () => {
    for (const id of ['mine-run-owned', 'theirs-run-owned']) {
      expect(await refusal(loadOwned(ctx, 'endpoint', find, id, runOwned))).toEqual({ status: 404, code: 'not_found', message: 'endpoint not found' });
    }
  });
});
