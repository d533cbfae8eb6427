import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORMATS } from '../../../../src/cli/args';
import type { VerdictView } from '../../../../src/cli/client';
import { formatVerdict } from '../../../../src/cli/format';
import { emptyTally } from '../../../../src/domain/correctness';
import { computeVerdict } from '../../../../src/domain/verdict';
import { input, reference, steady, THRESHOLDS } from '../../verdict/fixtures';

/*
 * What a Bitcoin run's reader sees says nothing EVM: no "block tag", no eth_ method, no gwei, no
 * "latest" — in the verdict's Markdown summary and check messages, in every CLI format, and in the
 * dashboard's own text (everything else it shows is the run's data).
 */

const EVM_WORDS = /eth_|gwei|block ?tag|\blatest\b/i;
const HASH = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';

/** A failing Bitcoin run: mismatches of pinned block and transaction reads, a head-moved re-check, a reference that lags. */
function bitcoinVerdict() {
  const c = steady(150, 2000);
  const r = steady(100, 2000);
  const mismatches = [
    { method: 'getblock', params: [HASH, 2], candidate_hash: 'b'.repeat(32), reference_hash: 'a'.repeat(32) },
    { method: 'getrawtransaction', params: [TXID, true, HASH], candidate_hash: 'd'.repeat(32), reference_hash: 'c'.repeat(32) },
    { method: 'getnetworkhashps', params: [120, -1], candidate_hash: 'f'.repeat(32), reference_hash: 'e'.repeat(32) },
  ];
  return computeVerdict(
    input({
      suiteName: 'litecoin regtest',
      thresholds: { ...THRESHOLDS, correctness_enabled: true, correctness_min_pct: 99 },
      candidate: c.stats,
      candidateLatencies: c.latencies,
      reference: { ...reference(r.stats, r.latencies), headLagBlocks: 2 },
      correctness: {
        ...emptyTally(),
        matched: 1900,
        mismatched: 100,
        mismatches,
        mismatchesByMethod: [
          { method: 'getblock', mismatched: 60, compared: 400 },
          { method: 'getrawtransaction', mismatched: 39, compared: 300 },
          { method: 'getnetworkhashps', mismatched: 1, compared: 100 },
        ],
        recheck: { resolved: 3, confirmed: 1, failed: 0 },
      },
    }),
  );
}

describe('Bitcoin wording', () => {
  it('the Markdown summary and the check messages of a Bitcoin run name its methods and nothing EVM', () => {
    const verdict = bitcoinVerdict();
    expect(verdict.verdict).toBe('fail');
    expect(verdict.markdown_summary).toContain('`getblock`');
    expect(verdict.markdown_summary).toContain('re-checked');
    const shown = [verdict.summary, verdict.markdown_summary, ...verdict.checks.map((c) => c.message)].join('\n');
    expect(shown).not.toMatch(EVM_WORDS);
  });

  it('every CLI format of that verdict says nothing EVM', () => {
    const verdict = JSON.parse(JSON.stringify(bitcoinVerdict())) as VerdictView;
    for (const format of FORMATS) {
      const out = formatVerdict(format, { runId: '9c1d2e3f-aaaa-4bbb-8ccc-ddddeeeeffff', verdict, run: null });
      expect(out, format).toContain('correctness');
      expect(out, format).not.toMatch(EVM_WORDS);
    }
  });

  it('the dashboard’s own text says nothing EVM (what a run shows beyond it is the run’s data)', () => {
    const dir = path.resolve(__dirname, '../../../../src/dashboard');
    const files = readdirSync(dir).filter((f) => /\.(js|html)$/.test(f));
    expect(files).toEqual(expect.arrayContaining(['dashboard.js', 'dashboard.html', 'suite.js', 'suite.html']));
    for (const file of files) expect(readFileSync(path.join(dir, file), 'utf8'), file).not.toMatch(EVM_WORDS);
  });
});
