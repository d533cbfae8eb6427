import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../helpers/stack';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'histories');

/**
 * Committed histories of real runs, replayed against the current workflow code: a change that
 * makes the workflow non-deterministic for runs already in flight fails here, not in production.
 * Record new ones (after a deliberate, versioned change) with `npm run record:histories`.
 */
describe('workflow replay', () => {
  it('replays every committed history without a non-determinism error', { timeout: 120_000 }, async () => {
    const files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.json')).sort();
    expect(files.length).toBeGreaterThan(0);
    const histories = await Promise.all(
      files.map(async (file) => ({
        workflowId: file,
        history: JSON.parse(await readFile(path.join(FIXTURES, file), 'utf8')) as unknown,
      })),
    );
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      results.push({ workflowId: result.workflowId, error: result.error ? String(result.error) : null });
    }
    expect(results).toEqual(files.map((workflowId) => ({ workflowId, error: null })));
  });
});
