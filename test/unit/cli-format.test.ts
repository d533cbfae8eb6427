import { describe, expect, it } from 'vitest';
import type { RunView, VerdictView } from '../../src/cli/client';
import { formatJson, formatJunit, formatMarkdown, formatRun, formatText, formatVerdict, xmlEscape, type VerdictReport } from '../../src/cli/format';

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
