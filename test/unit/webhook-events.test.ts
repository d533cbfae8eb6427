import { describe, expect, it } from 'vitest';
import { eventsForRun, slackPayload, standardPayload, webhookBody, type RunEventFacts, type RunEventSummary } from '../../src/domain/webhook-events';

const facts = (over: Partial<RunEventFacts>): RunEventFacts => ({
  status: 'success',
  verdict: 'pass',
  previousVerdict: null,
  failureAcknowledged: false,
  ...over,
});

describe('eventsForRun', () => {
  it.each([
    { name: 'a first passing run', facts: facts({}), events: ['run.finished'] },
    { name: 'a pass after a pass', facts: facts({ previousVerdict: 'pass' }), events: ['run.finished'] },
    { name: 'a first failing verdict', facts: facts({ verdict: 'fail' }), events: ['run.finished', 'verdict.failed'] },
    { name: 'a fail after a pass', facts: facts({ verdict: 'fail', previousVerdict: 'pass' }), events: ['run.finished', 'verdict.failed', 'verdict.changed'] },
    { name: 'a fail after a fail', facts: facts({ verdict: 'fail', previousVerdict: 'fail' }), events: ['run.finished', 'verdict.failed'] },
    { name: 'a fail after an acknowledged fail', facts: facts({ verdict: 'fail', previousVerdict: 'fail', failureAcknowledged: true }), events: ['run.finished'] },
    { name: 'a pass after a fail', facts: facts({ previousVerdict: 'fail' }), events: ['run.finished', 'verdict.changed'] },
    { name: 'a failed run (error verdict)', facts: facts({ status: 'failed', verdict: 'error', previousVerdict: 'pass' }), events: ['run.finished', 'run.failed'] },
    { name: 'a cancelled run', facts: facts({ status: 'cancelled', verdict: 'error', previousVerdict: 'fail' }), events: ['run.finished'] },
  ] as const)('$name', ({ facts: given, events }) => {
    expect(eventsForRun(given)).toEqual(events);
  });
});

const run: RunEventSummary = {
  runId: '11111111-1111-4111-8111-111111111111',
  suite: { id: '22222222-2222-4222-8222-222222222222', name: 'mainnet <rpc> & co' },
  chain: { id: '33333333-3333-4333-8333-333333333333', name: 'Ethereum', slug: 'ethereum' },
  status: 'success',
  triggeredBy: 'schedule',
  verdict: 'fail',
  previousVerdict: 'pass',
  exitCode: 1,
  summary: 'p95 120 ms > 100 ms',
  markdownSummary: '### Verdict: fail\n\n| check | status |\n|---|---|\n| latency_p95 | fail |',
  failureReason: null,
  finishedAt: new Date('2026-11-23T08:00:00.000Z'),
  dashboardUrl: 'https://rvs.example/dashboard/runs/1111?token=abc',
};

describe('payloads', () => {
  it('standard: {type, timestamp, data} with the run, its verdict and the dashboard link', () => {
    const body = standardPayload('verdict.changed', run);
    expect(body).toEqual({
      type: 'verdict.changed',
      timestamp: '2026-11-23T08:00:00.000Z',
      data: expect.objectContaining({
        run_id: run.runId,
        suite: run.suite,
        verdict: 'fail',
        previous_verdict: 'pass',
        exit_code: 1,
        markdown_summary: run.markdownSummary,
        dashboard_url: run.dashboardUrl,
      }),
    });
    expect(JSON.parse(webhookBody('standard', 'verdict.changed', run))).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it('slack: a text fallback and Block Kit blocks with the summary and a dashboard button, markup escaped', () => {
    const message = slackPayload('verdict.failed', run);
    expect(message.text).toBe('mainnet &lt;rpc&gt; &amp; co: verdict failed <https://rvs.example/dashboard/runs/1111?token=abc|dashboard>');
    expect(message.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'actions']);
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'mainnet <rpc> & co: verdict failed', emoji: false } });
    expect((message.blocks[1] as { text: { text: string } }).text.text).toContain('p95 120 ms &gt; 100 ms');
    expect((message.blocks[2] as { text: { text: string } }).text.text).toBe(`\`\`\`\n${run.markdownSummary}\n\`\`\``);
    expect(message.blocks[3]).toEqual({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the dashboard' }, url: run.dashboardUrl }],
    });
  });

  it('slack: a finished run leads with the verdict and calls its status what it is (completed), never "success" beside "fail"', () => {
    const failed = slackPayload('run.finished', { ...run, status: 'success', verdict: 'fail' });
    expect((failed.blocks[0] as { text: { text: string } }).text.text).toBe('mainnet <rpc> & co: verdict fail (the run completed)');
    expect(failed.text).not.toContain('success');
    const cancelled = slackPayload('run.finished', { ...run, status: 'cancelled', verdict: 'error' });
    expect((cancelled.blocks[0] as { text: { text: string } }).text.text).toBe('mainnet <rpc> & co: verdict error (the run was cancelled)');
  });

  it('slack: stays inside Block Kit limits for a long summary and has no button without a link', () => {
    const message = slackPayload('run.finished', { ...run, suite: { ...run.suite, name: 'n'.repeat(300) }, markdownSummary: 'x'.repeat(10_000), dashboardUrl: null });
    const header = message.blocks[0] as { text: { text: string } };
    expect(header.text.text.length).toBeLessThanOrEqual(150);
    for (const block of message.blocks.slice(1)) expect((block as { text: { text: string } }).text.text.length).toBeLessThanOrEqual(3000);
    expect(message.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section']);
  });
});
