/** Events a webhook can subscribe to (DESIGN §10). */
export const WEBHOOK_EVENTS = ['run.finished', 'run.failed', 'verdict.failed', 'verdict.changed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_FORMATS = ['standard', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** What decides a finished run's events: its own outcome and its suite's recent verdicts. */
export interface RunEventFacts {
  status: 'success' | 'failed' | 'cancelled';
  verdict: 'pass' | 'fail' | 'error';
  /** The verdict (pass or fail) of the suite's previous finished run that had one; null when none. */
  previousVerdict: 'pass' | 'fail' | null;
  /** A run of the suite's current failing streak (failures since its last pass) was acknowledged. */
  failureAcknowledged: boolean;
}

/**
 * The events of one finished run. `run.finished` fires for every finished run, whatever its
 * status; `run.failed` when the run itself failed (a probe exhausted its retries or failed for good); `verdict.failed`
 * for a failing verdict unless a person acknowledged a failure of the same streak (it fires again
 * once the suite has passed in between); `verdict.changed` when the verdict flipped pass↔fail
 * against the suite's previous run with a verdict (an `error` verdict neither flips nor resets).
 */
export function eventsForRun(facts: RunEventFacts): WebhookEvent[] {
  const events: WebhookEvent[] = ['run.finished'];
  if (facts.status === 'failed') events.push('run.failed');
  if (facts.verdict === 'fail' && !facts.failureAcknowledged) events.push('verdict.failed');
  if ((facts.verdict === 'pass' || facts.verdict === 'fail') && facts.previousVerdict !== null && facts.previousVerdict !== facts.verdict) {
    events.push('verdict.changed');
  }
  return events;
}

/** The facts of the run a payload describes: ids, names and its verdict's texts, no secrets. */
export interface RunEventSummary {
  runId: string;
  suite: { id: string; name: string };
  chain: { id: string; name: string; slug: string };
  status: string;
  triggeredBy: string;
  verdict: 'pass' | 'fail' | 'error';
  previousVerdict: 'pass' | 'fail' | null;
  exitCode: number;
  summary: string;
  markdownSummary: string;
  failureReason: string | null;
  finishedAt: Date;
  dashboardUrl: string | null;
}

/** The Standard Webhooks body: `{type, timestamp, data}`. */
export function standardPayload(event: WebhookEvent, run: RunEventSummary) {
  return {
    type: event,
    timestamp: run.finishedAt.toISOString(),
    data: {
      run_id: run.runId,
      suite: run.suite,
      chain: run.chain,
      status: run.status,
      triggered_by: run.triggeredBy,
      verdict: run.verdict,
      previous_verdict: run.previousVerdict,
      exit_code: run.exitCode,
      summary: run.summary,
      markdown_summary: run.markdownSummary,
      failure_reason: run.failureReason,
      finished_at: run.finishedAt.toISOString(),
      dashboard_url: run.dashboardUrl,
    },
  };
}

// Slack refuses a section text over 3,000 characters and a header over 150.
const SLACK_SECTION_MAX = 3000;
const SLACK_HEADER_MAX = 150;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Slack's mrkdwn treats &, < and > as markup: a suite name must not open a link. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The run's own state in words. A run's status `success` says that it completed (every planned
 * call was made), not that the endpoint passed: the verdict is the outcome, so it leads.
 */
const RUN_STATE: Record<string, string> = { success: 'completed', failed: 'failed', cancelled: 'was cancelled' };

const HEADLINES: Record<WebhookEvent, (run: RunEventSummary) => string> = {
  'run.finished': (run) => `verdict ${run.verdict} (the run ${RUN_STATE[run.status] ?? run.status})`,
  'run.failed': (run) => `run failed, verdict ${run.verdict}`,
  'verdict.failed': () => 'verdict failed',
  'verdict.changed': (run) => `verdict changed from ${run.previousVerdict ?? 'none'} to ${run.verdict}`,
};

/**
 * A Slack-compatible message (Block Kit): `text` is the notification fallback; the blocks carry
 * the headline, the verdict's summary, the Markdown summary (in a code block, where its tables
 * stay aligned) and a button to the dashboard.
 */
export function slackPayload(event: WebhookEvent, run: RunEventSummary) {
  const headline = `${run.suite.name}: ${HEADLINES[event](run)}`;
  const link = run.dashboardUrl === null ? '' : ` <${run.dashboardUrl}|dashboard>`;
  const fence = '```';
  const markdown = clip(run.markdownSummary, SLACK_SECTION_MAX - 2 * fence.length - 2);
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(headline, SLACK_HEADER_MAX), emoji: false } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clip(
          [
            `*${slackEscape(run.suite.name)}* on ${slackEscape(run.chain.name)} · run \`${run.runId}\` · exit code ${run.exitCode}`,
            slackEscape(run.summary),
            ...(run.failureReason === null ? [] : [`Failure: ${slackEscape(run.failureReason)}`]),
          ].join('\n'),
          SLACK_SECTION_MAX,
        ),
      },
    },
    { type: 'section', text: { type: 'mrkdwn', text: `${fence}\n${markdown}\n${fence}` } },
  ];
  if (run.dashboardUrl !== null) {
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the dashboard' }, url: run.dashboardUrl }],
    });
  }
  return { text: `${slackEscape(headline)}${link}`, blocks };
}

export function webhookBody(format: WebhookFormat, event: WebhookEvent, run: RunEventSummary): string {
  return JSON.stringify(format === 'slack' ? slackPayload(event, run) : standardPayload(event, run));
}
