import { describe, expect, it } from 'vitest';
import type { RunView, VerdictView } from '../../src/cli/client';
import { formatJson, formatJunit, formatMarkdown, formatRun, formatText, formatVerdict, xmlEscape, type VerdictReport } from '../../src/cli/format';
import type { CandidateFreshness } from '../../src/domain/freshness';
import { computeVerdict } from '../../src/domain/verdict';
import { input, reference, steady, THRESHOLDS } from './verdict/fixtures';

const RUN_ID = '9c1d2e3f-aaaa-4bbb-8ccc-ddddeeeeffff';
const DASHBOARD = `http://rvs.test/dashboard/runs/${RUN_ID}?token=abc&x=1`;

interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

/** A strict little reader for the XML rvs writes: nesting, quoting and entities must all be right. */
function parseXml(xml: string): XmlNode {
  const decode = (s: string) => {
    const bad = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i.exec(s);
    if (bad) throw new Error(`bare & in ${JSON.stringify(s)}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    return s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) =>
      e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16)) : e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : named[e]!,
    );
  };
  const body = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  if (body === xml) throw new Error('missing XML declaration');
  const root: XmlNode = { name: '#document', attrs: {}, children: [], text: '' };
  const stack = [root];
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  let pos = 0;
  while (pos < body.length) {
    token.lastIndex = pos;
    const m = token.exec(body);
    if (!m) throw new Error(`not well-formed at ${pos}: ${body.slice(pos, pos + 40)}`);
    pos = token.lastIndex;
    const top = stack[stack.length - 1]!;
    if (m[5] !== undefined) {
      if (stack.length === 1 && m[5].trim()) throw new Error('text outside the root element');
      top.text += decode(m[5]);
    } else if (m[1]) {
      if (top.name !== m[2] || m[3] || m[4]) throw new Error(`mismatched </${m[2]}> in <${top.name}>`);
      stack.pop();
    } else {
      const attrs: Record<string, string> = {};
      for (const [, key, value] of m[3]!.matchAll(/\s+([A-Za-z_][\w.-]*)="([^"<]*)"/g)) {
        if (key! in attrs) throw new Error(`duplicate attribute ${key}`);
        attrs[key!] = decode(value!);
      }
      const node: XmlNode = { name: m[2]!, attrs, children: [], text: '' };
      top.children.push(node);
      if (!m[4]) stack.push(node);
    }
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (root.children.length !== 1) throw new Error('expected exactly one root element');
  return root.children[0]!;
}

const all = (node: XmlNode, name: string): XmlNode[] => [
  ...(node.name === name ? [node] : []),
  ...node.children.flatMap((child) => all(child, name)),
];

function verdict(overrides: Partial<VerdictView> = {}): VerdictView {
  return {
    verdict: 'pass',
    exit_code: 0,
    summary: 'All 1 checks passed (p95 3 ms over 50 calls).',
    checks: [{ name: 'latency_p95', status: 'pass', message: 'p95 3 ms <= 500 ms', details: { p95: 3, threshold: 500 } }],
    reference_comparison: null,
    baseline_comparison: null,
    thresholds: { latency_p95_max_ms: 500 },
    markdown_summary: '### ✅ smoke: PASS\n\nAll 1 checks passed.\n\n| Check | Status | Result |',
    dashboard_url: DASHBOARD,
    ...overrides,
  };
}

const run: RunView = {
  id: RUN_ID,
  status: 'success',
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:00:02.500Z',
  suite: { id: 'suite-id', name: 'smoke' },
};

const FAILING = verdict({
  verdict: 'fail',
  exit_code: 1,
  summary: '2 of 3 checks failed: latency_p95, latency_vs_baseline.',
  checks: [
    { name: 'latency_p95', status: 'fail', message: 'p95 7 ms > 0 ms', details: { p95: 7, threshold: 0 } },
    { name: 'latency_vs_reference', status: 'pass', message: 'candidate p95 7 ms vs reference 6 ms (+16.7%, max 25%)' },
    { name: 'latency_vs_baseline', status: 'fail', message: 'candidate p95 7 ms vs baseline 2 ms (+250%, max 20%)' },
  ],
});

const INCONCLUSIVE = verdict({
  summary: '1 of 2 checks passed, 1 inconclusive (availability); none failed (p95 3 ms over 100 calls).',
  checks: [
    { name: 'latency_p95', status: 'pass', message: 'p95 3 ms [2–4] <= 500 ms' },
    {
      name: 'availability',
      status: 'inconclusive',
      message: '100 of 100 calls succeeded — inconclusive: the interval straddles the minimum, so this run cannot tell; about 381 calls would decide',
      details: { calls: 100, successful: 100, calls_to_decide: 381 },
    },
  ],
});

const ERRORED = verdict({
  verdict: 'error',
  exit_code: 2,
  summary: 'Run failed: target candidate 0 exhausted its retries; nothing to judge.',
  checks: [],
});

describe('formatJunit', () => {
  it.each([
    { name: 'pass', v: verdict(), tests: 1, failures: 0, errors: 0, cases: ['latency_p95'] },
    { name: 'fail', v: FAILING, tests: 3, failures: 2, errors: 0, cases: ['latency_p95', 'latency_vs_reference', 'latency_vs_baseline'] },
    { name: 'error (no checks)', v: ERRORED, tests: 1, failures: 0, errors: 1, cases: ['run'] },
    { name: 'pass with an inconclusive check', v: INCONCLUSIVE, tests: 2, failures: 0, errors: 0, skipped: 1, cases: ['latency_p95', 'availability'] },
  ])('$name: counts, one testcase per check, failures for failed checks', ({ v, tests, failures, errors, cases, skipped = 0 }: {
    v: VerdictView; tests: number; failures: number; errors: number; cases: string[]; skipped?: number;
  }) => {
    const xml = formatJunit({ runId: RUN_ID, verdict: v, run });
    const doc = parseXml(xml);
    expect(doc.name).toBe('testsuites');
    const [suite, ...more] = all(doc, 'testsuite');
    expect(more).toEqual([]);
    for (const node of [doc, suite!]) {
      expect(node.attrs).toMatchObject({ tests: String(tests), failures: String(failures), errors: String(errors), skipped: String(skipped), time: '2.500' });
    }
    expect(suite!.attrs).toMatchObject({ name: 'smoke', timestamp: run.started_at });
    const testcases = all(suite!, 'testcase');
    expect(testcases.map((t) => t.attrs.name)).toEqual(cases);
    expect(testcases.every((t) => t.attrs.classname === 'rvs.smoke')).toBe(true);
    expect(all(suite!, 'failure')).toHaveLength(failures);
    expect(all(suite!, 'error')).toHaveLength(errors);
    expect(all(suite!, 'skipped')).toHaveLength(skipped);
    const props = Object.fromEntries(all(suite!, 'property').map((p) => [p.attrs.name, p.attrs.value]));
    expect(props).toEqual({ run_id: RUN_ID, verdict: v.verdict, exit_code: String(v.exit_code), dashboard_url: DASHBOARD });
    expect(all(suite!, 'system-out')[0]!.text).toBe(v.summary);
  });

  it('marks an inconclusive check <skipped> with its reason', () => {
    const doc = parseXml(formatJunit({ runId: RUN_ID, verdict: INCONCLUSIVE, run }));
    const testcase = all(doc, 'testcase').find((t) => t.attrs.name === 'availability')!;
    expect(testcase.children.map((c) => c.name)).toEqual(['skipped']);
    expect(testcase.children[0]!.attrs.message).toBe(INCONCLUSIVE.checks[1]!.message);
  });

  it('marks an inconclusive check <failure> when thresholds.fail_on_inconclusive failed the verdict', () => {
    const failed = { ...INCONCLUSIVE, verdict: 'fail', exit_code: 1, thresholds: { fail_on_inconclusive: true } };
    const doc = parseXml(formatJunit({ runId: RUN_ID, verdict: failed, run }));
    const testcase = all(doc, 'testcase').find((t) => t.attrs.name === 'availability')!;
    expect(testcase.children.map((c) => c.name)).toEqual(['failure']);
    expect(testcase.children[0]!.attrs.type).toBe('inconclusive');
    expect(doc.attrs).toMatchObject({ failures: '1', skipped: '0' });
  });

  it('puts the message and the details of a failed check into its <failure>', () => {
    const doc = parseXml(formatJunit({ runId: RUN_ID, verdict: FAILING, run }));
    const failure = all(doc, 'failure')[0]!;
    expect(failure.attrs).toEqual({ message: 'p95 7 ms > 0 ms', type: 'fail' });
    expect(failure.text).toContain('p95 7 ms > 0 ms');
    expect(JSON.parse(failure.text.slice(failure.text.indexOf('{')))).toEqual({ p95: 7, threshold: 0 });
  });

  it.each([
    { what: 'markup characters', input: `<script>alert("x")</script> & 'quotes'`, expected: `<script>alert("x")</script> & 'quotes'` },
    { what: 'an entity lookalike', input: '&amp; &#60; &lt;', expected: '&amp; &#60; &lt;' },
    { what: 'CDATA terminator', input: 'a ]]> b', expected: 'a ]]> b' },
    { what: 'newlines and tabs', input: 'line 1\nline 2\r\n\tindented', expected: 'line 1\nline 2\r\n\tindented' },
    { what: 'control characters XML cannot carry', input: 'bell\u0007 nul\u0000 esc\u001b', expected: 'bell\uFFFD nul\uFFFD esc\uFFFD' },
    { what: 'a lone surrogate', input: 'half \uD83D pair', expected: 'half \uFFFD pair' },
    { what: 'non-ASCII', input: 'ünïcødé ✅ 🚀', expected: 'ünïcødé ✅ 🚀' },
  ])('escapes $what in names, attributes and text', ({ input, expected }) => {
    const v = verdict({
      verdict: 'fail',
      exit_code: 1,
      summary: input,
      checks: [{ name: input, status: 'fail', message: input, details: { note: input } }],
    });
    const xml = formatJunit({ runId: RUN_ID, verdict: v, run: { ...run, suite: { id: 'x', name: input } } });
    const doc = parseXml(xml);
    const suite = all(doc, 'testsuite')[0]!;
    expect(suite.attrs.name).toBe(expected);
    const testcase = all(doc, 'testcase')[0]!;
    expect(testcase.attrs.name).toBe(expected);
    expect(testcase.attrs.classname).toBe(`rvs.${expected}`);
    const failure = all(doc, 'failure')[0]!;
    expect(failure.attrs.message).toBe(expected);
    expect(failure.text.startsWith(expected)).toBe(true);
    expect(all(doc, 'system-out')[0]!.text).toBe(expected);
  });

  it('names the suite after the run id when the run is unknown, and has no time then', () => {
    const doc = parseXml(formatJunit({ runId: RUN_ID, verdict: verdict(), run: null }));
    expect(all(doc, 'testsuite')[0]!.attrs).toMatchObject({ name: `run ${RUN_ID}`, time: '0' });
    expect(all(doc, 'testsuite')[0]!.attrs.timestamp).toBeUndefined();
  });
});

describe('xmlEscape', () => {
  it.each([
    ['plain', 'attribute', 'plain'],
    ['a & b', 'attribute', 'a &amp; b'],
    ['<tag attr="v">', 'attribute', '&lt;tag attr=&quot;v&quot;&gt;'],
    ["it's", 'attribute', 'it&apos;s'],
    ['a\nb\tc\rd', 'attribute', 'a&#10;b&#9;c&#13;d'],
    ['a\nb\tc\rd', 'text', 'a\nb\tc&#13;d'],
    [`<b a="1">it's & more</b>`, 'text', `&lt;b a="1"&gt;it's &amp; more&lt;/b&gt;`],
    ['\u0000\u0008\u000B\u000C\u000E\u001F', 'text', '\uFFFD'.repeat(6)],
    ['\uFFFE\uFFFF', 'text', '\uFFFD\uFFFD'],
    ['\uDC00x\uD800', 'text', '\uFFFDx\uFFFD'],
    ['😀', 'text', '😀'],
  ] as const)('%j (%s) → %j', (input, where, expected) => {
    expect(xmlEscape(input, where)).toBe(expected);
  });
});

describe('formatText', () => {
  it.each([
    {
      name: 'pass',
      v: verdict(),
      lines: [
        `PASS: smoke (run ${RUN_ID}, exit code 0)`,
        'All 1 checks passed (p95 3 ms over 50 calls).',
        '  PASS  latency_p95  p95 3 ms <= 500 ms',
        `Dashboard: ${DASHBOARD}`,
      ],
    },
    {
      name: 'fail',
      v: FAILING,
      lines: [
        `FAIL: smoke (run ${RUN_ID}, exit code 1)`,
        '2 of 3 checks failed: latency_p95, latency_vs_baseline.',
        '  FAIL  latency_p95           p95 7 ms > 0 ms',
        '  PASS  latency_vs_reference  candidate p95 7 ms vs reference 6 ms (+16.7%, max 25%)',
        '  FAIL  latency_vs_baseline   candidate p95 7 ms vs baseline 2 ms (+250%, max 20%)',
        `Dashboard: ${DASHBOARD}`,
      ],
    },
    {
      name: 'inconclusive (its own status column, so it is never read as a pass)',
      v: INCONCLUSIVE,
      lines: [
        `PASS: smoke (run ${RUN_ID}, exit code 0)`,
        '1 of 2 checks passed, 1 inconclusive (availability); none failed (p95 3 ms over 100 calls).',
        '  PASS          latency_p95   p95 3 ms [2–4] <= 500 ms',
        `  INCONCLUSIVE  availability  ${INCONCLUSIVE.checks[1]!.message}`,
        `Dashboard: ${DASHBOARD}`,
      ],
    },
    {
      name: 'prober overloaded (its health on a line of its own)',
      v: verdict({
        prober: { activities: 2, loop_delay_p99_ms: 180, loop_delay_max_ms: 240, send_lag_p99_ms: null, cpu_pct: 97.4, overloaded: true, reason: 'x' },
      }),
      lines: [
        `PASS: smoke (run ${RUN_ID}, exit code 0)`,
        'All 1 checks passed (p95 3 ms over 50 calls).',
        '  PASS  latency_p95  p95 3 ms <= 500 ms',
        'Prober OVERLOADED: event-loop delay p99 180 ms (max 240 ms), CPU 97 % — latency judged on these samples is inconclusive, and this run joins no baseline.',
        `Dashboard: ${DASHBOARD}`,
      ],
    },
    {
      name: 'prober healthy, with send lag',
      v: verdict({ prober: { activities: 1, loop_delay_p99_ms: 2.1, loop_delay_max_ms: 4, send_lag_p99_ms: 0.3, cpu_pct: 12, overloaded: false, reason: null } }),
      lines: [
        `PASS: smoke (run ${RUN_ID}, exit code 0)`,
        'All 1 checks passed (p95 3 ms over 50 calls).',
        '  PASS  latency_p95  p95 3 ms <= 500 ms',
        'Prober: event-loop delay p99 2.1 ms (max 4 ms), send lag p99 0.3 ms, CPU 12 %.',
        `Dashboard: ${DASHBOARD}`,
      ],
    },
    {
      name: 'error',
      v: ERRORED,
      lines: [
        `ERROR: smoke (run ${RUN_ID}, exit code 2)`,
        'Run failed: target candidate 0 exhausted its retries; nothing to judge.',
        '  (no checks: the run did not finish successfully, so nothing was judged)',
        `Dashboard: ${DASHBOARD}`,
      ],
    },
  ])('$name', ({ v, lines }) => {
    expect(formatText({ runId: RUN_ID, verdict: v, run })).toBe(`${lines.join('\n')}\n`);
  });

  const interval = (point: number, lower: number, upper: number | null) => ({ point, lower, upper });
  const intervals = {
    p50: interval(45.2, 44.1, 46.3),
    p95: interval(87, 84.4, 93.2),
    p99: interval(112.4, 108, null),
  };

  it('lists p50 / p95 / p99 with their 95% intervals: the candidate, each of several candidates, the reference', () => {
    const v = verdict({
      checks: [
        {
          name: 'latency_p95',
          status: 'pass',
          message: 'p95 87 ms [84–93] <= 500 ms',
          details: {
            p95: 87,
            intervals_ms: intervals,
            targets: [
              { endpoint_name: 'fast', intervals_ms: { p50: interval(4.04, 3.96, 4.1), p95: interval(9.96, 9.5, 10.4), p99: interval(12, 11, 13) } },
              { endpoint_name: 'slow', intervals_ms: intervals },
            ],
          },
        },
      ],
      reference_comparison: { endpoint_name: 'ref', latency: { reference_intervals_ms: intervals } },
    });
    const text = formatText({ runId: RUN_ID, verdict: v, run });
    expect(text.split('\n').slice(3, 8)).toEqual([
      'Latency of successful calls, p50 / p95 / p99 [95% confidence interval]:',
      '  candidate       45 ms [44–47]   87 ms [84–94]     112 ms [108–∞]',
      '  candidate fast  4 ms [3.9–4.1]  10 ms [9.5–10.4]  12 ms [11–13]',
      '  candidate slow  45 ms [44–47]   87 ms [84–94]     112 ms [108–∞]',
      '  reference ref   45 ms [44–47]   87 ms [84–94]     112 ms [108–∞]',
    ]);
  });

  it('lists the correctness mismatches: both values of a scalar answer, both fingerprints where values are unknown', () => {
    const v = verdict({
      verdict: 'fail',
      exit_code: 1,
      checks: [
        {
          name: 'correctness',
          status: 'fail',
          message: '58.3% of 60 calls matched the reference (min 100%)',
          details: {
            mismatches: [
              {
                method: 'eth_blockNumber',
                params: [],
                occurrences: 3,
                candidate_hash: 'a'.repeat(32),
                reference_hash: 'b'.repeat(32),
                differences_status: 'shown',
                differences: [{ path: '$', candidate: '"0x1b"', reference: '"0x1a"' }],
                more_differences: false,
              },
              { method: 'eth_getBlockByNumber', params: ['0x1', false], candidate_hash: 'c'.repeat(32), reference_hash: 'd'.repeat(32), differences_status: 'changed', differences: [] },
            ],
          },
        },
      ],
    });
    const text = formatText({ runId: RUN_ID, verdict: v, run });
    expect(text).toContain(
      [
        'Mismatches:',
        '  eth_blockNumber [] (×3): $ candidate "0x1b" ≠ reference "0x1a"',
        `  eth_getBlockByNumber ["0x1",false]: candidate ${'c'.repeat(12)} ≠ reference ${'d'.repeat(12)}`,
      ].join('\n'),
    );
  });

  it('lists no percentiles for a verdict stored before intervals existed', () => {
    expect(formatText({ runId: RUN_ID, verdict: verdict(), run })).not.toContain('confidence interval');
  });
});

describe('formatMarkdown, formatJson, formatVerdict', () => {
  const report: VerdictReport = { runId: RUN_ID, verdict: verdict(), run };

  it('markdown is the API summary plus a dashboard link', () => {
    expect(formatMarkdown(report)).toBe(
      `${report.verdict.markdown_summary}\n\n[Open run ${RUN_ID} in the dashboard](${DASHBOARD})\n`,
    );
  });

  it('json is the verdict object exactly as the API returned it', () => {
    expect(JSON.parse(formatJson(report))).toEqual(report.verdict);
  });

  it.each([
    ['text', formatText],
    ['json', formatJson],
    ['markdown', formatMarkdown],
    ['junit', formatJunit],
  ] as const)('formatVerdict(%s) dispatches', (format, fn) => {
    expect(formatVerdict(format, report)).toBe(fn(report));
  });
});

describe('formatRun', () => {
  const created: RunView = { id: RUN_ID, status: 'queued', suite: { id: 's', name: 'smoke' } };
  const url = `http://rvs.test/v1/runs/${RUN_ID}`;

  it.each([
    ['text', `run ${RUN_ID} queued\n  suite: smoke\n  url:   ${url}\n`],
    ['markdown', `run ${RUN_ID} queued\n  suite: smoke\n  url:   ${url}\n`],
  ] as const)('%s', (format, expected) => {
    expect(formatRun(format, created, url)).toBe(expected);
  });

  it('json is the run as returned', () => {
    expect(JSON.parse(formatRun('json', created, url))).toEqual(created);
  });
});

describe('the head watch (freshness_vs_reference) in text and JUnit', () => {
  function measured(targetId: string, over: Partial<CandidateFreshness> & { lagsMs: number[] }): CandidateFreshness {
    const { lagsMs, ...rest } = over;
    return {
      targetId,
      announced: 100,
      reorgs: 0,
      duplicates: 0,
      reconnects: 0,
      disconnects: 0,
      dropped: 0,
      flooding: false,
      notStored: 0,
      outOfRange: 0,
      longestStallMs: 1_300,
      judged: 100,
      missed: 0,
      late: 0,
      unjudged: 2,
      lagsUs: Float64Array.from(lagsMs.map((ms) => ms * 1000)).sort(),
      ...rest,
    };
  }
  const lags = (n: number, ms: number) => Array.from({ length: n }, (_, i) => ms + (i % 10));
  /** A verdict as the service computes it and the API returns it (through JSON), with three candidates. */
  function freshnessVerdict(thresholds = {}, via: 'subscribe' | 'poll' = 'subscribe'): VerdictView {
    const r = steady(100);
    const computed = computeVerdict(
      input({
        reference: reference(r.stats, r.latencies),
        thresholds: { ...THRESHOLDS, ...thresholds },
        freshness: {
          via,
          duration_s: 120,
          grace_ms: 2_000,
          late_ms: 1_000,
          poll_interval_ms: 250,
          measured: {
            reference: { targetId: 'ref', announced: 102, heads: 102, reorgs: 0, duplicates: 0, reconnects: 0, disconnects: 0, dropped: 0, flooding: false, notStored: 0, outOfRange: 0, longestStallMs: 1_100 },
            candidates: [
              measured('fast', { lagsMs: lags(100, 40) }),
              measured('dropping', { missed: 7, late: 2, reconnects: 3, duplicates: 1, lagsMs: lags(93, 300) }),
              measured('short', { judged: 8, announced: 8, longestStallMs: 41_000, lagsMs: lags(8, 20) }),
              measured('young', { judged: 8, announced: 8, lagsMs: lags(8, 20) }),
            ],
            observerGaps: [{ fromMs: 30_000, toMs: 52_500 }],
          },
          endpoints: {
            ref: { endpoint_id: 'e-ref', endpoint_name: 'ref-node' },
            fast: { endpoint_id: 'e-fast', endpoint_name: 'fast-node' },
            dropping: { endpoint_id: 'e-dropping', endpoint_name: 'dropping-node' },
            short: { endpoint_id: 'e-short', endpoint_name: 'stalling-node' },
            young: { endpoint_id: 'e-young', endpoint_name: 'young-node' },
          },
        },
      }),
    );
    return JSON.parse(JSON.stringify({ ...computed, dashboard_url: DASHBOARD })) as VerdictView;
  }

  it('text: one row per candidate with lag p50 / p95 intervals, missed, late, stall, reorgs, duplicates, reconnects, and the observer gap', () => {
    const text = formatText({ runId: RUN_ID, verdict: freshnessVerdict(), run });
    const lines = text.split('\n');
    const start = lines.findIndex((l) => l.startsWith('Head arrivals over 120 s via subscribe'));
    expect(lines[start]).toBe('Head arrivals over 120 s via subscribe; the reference ref-node announced 102 heads. Lag behind it, p50 / p95 [95% confidence interval]:');
    expect(lines.slice(start + 1, start + 7)).toEqual([
      '  endpoint       lag p50           lag p95           missed         late  longest stall  reorgs  duplicates  reconnects',
      '  fast-node      44 ms [43–46]     49 ms [48–49]     0 of 100 (0%)  0     1.3 s          0       0           0',
      '  dropping-node  304 ms [303–305]  309 ms [308–309]  7 of 100 (7%)  2     1.3 s          0       1           3',
      '  stalling-node  23 ms [20–27]     27 ms [25–∞]      0 of 8 (0%)    0     41.0 s         0       0           0',
      '  young-node     23 ms [20–27]     27 ms [25–∞]      0 of 8 (0%)    0     1.3 s          0       0           0',
      '  The observer was gone from 30.0 s to 52.5 s (a worker lost): heads then were not judged.',
    ]);
  });

  it('JUnit: one testcase per candidate, a failure naming the endpoint and the figure beside its limit, inconclusive skipped', () => {
    const doc = parseXml(formatJunit({ runId: RUN_ID, verdict: freshnessVerdict(), run }));
    const testcases = all(doc, 'testcase').filter((t) => t.attrs.name!.startsWith('freshness_vs_reference'));
    expect(testcases.map((t) => t.attrs.name)).toEqual([
      'freshness_vs_reference: fast-node',
      'freshness_vs_reference: dropping-node',
      'freshness_vs_reference: stalling-node',
      'freshness_vs_reference: young-node',
    ]);
    const [fast, dropping, stalling, young] = testcases;
    expect(fast!.children).toEqual([]);
    expect(dropping!.children.map((c) => c.name)).toEqual(['failure']);
    expect(dropping!.children[0]!.attrs.message).toBe(
      'dropping-node: lag p95 309 ms [308–309] (limit 500 ms), missed 7 of 100 (7%; limit 1%), longest stall 1.3 s (limit 30 s) — fail: missed more heads than allowed',
    );
    expect(JSON.parse(dropping!.children[0]!.text.slice(dropping!.children[0]!.text.indexOf('{')))).toMatchObject({ endpoint_name: 'dropping-node', missed: 7, judged: 100, reconnects: 3 });
    expect(stalling!.children[0]!.attrs.message).toMatch(/^stalling-node: .*longest stall 41\.0 s \(limit 30 s\) — fail: stalled longer than allowed$/);
    expect(young!.children.map((c) => c.name)).toEqual(['skipped']);
    expect(young!.children[0]!.attrs.message).toMatch(/^young-node: lag p95 .* — inconclusive: the lag p95 interval straddles the limit/);
    // The latency checks stay one testcase each; the counts cover every candidate's case.
    const total = all(doc, 'testcase').length;
    expect(doc.attrs).toMatchObject({ tests: String(total), failures: String(all(doc, 'failure').length), skipped: String(all(doc, 'skipped').length) });
    expect(all(doc, 'failure')).toHaveLength(2);
  });

  it('text: a polled watch says its resolution is the poll interval', () => {
    const text = formatText({ runId: RUN_ID, verdict: freshnessVerdict({}, 'poll'), run });
    expect(text).toContain('Head arrivals over 120 s via poll (polled every 250 ms: arrivals are known to within that); the reference ref-node announced 102 heads.');
  });

  it('JUnit: a freshness check without per-candidate details stays one testcase', () => {
    const v = verdict({ checks: [{ name: 'freshness_vs_reference', status: 'fail', message: 'old service: failed' }] });
    const doc = parseXml(formatJunit({ runId: RUN_ID, verdict: v, run }));
    expect(all(doc, 'testcase').map((t) => t.attrs.name)).toEqual(['freshness_vs_reference']);
  });
});
