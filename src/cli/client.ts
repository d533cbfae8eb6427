import { redactUrl } from '../domain/redact-url';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** What rvs reads of a run; the API sends more, and json output passes it through untouched. */
export interface RunView {
  id: string;
  status: string;
  test_suite_id?: string;
  started_at?: string | null;
  finished_at?: string | null;
  failure_reason?: string | null;
  progress?: { calls_planned: number | null; calls_done: number };
  suite?: { id: string; name: string };
  /** A read-only link to the run's live dashboard page (servers before it existed send none). */
  dashboard_url?: string;
  [key: string]: unknown;
}

/** What rvs reads of a suite to find it by name. */
export interface SuiteSummary {
  id: string;
  name: string;
  chain_id: string;
  created_at?: string;
}

export interface CheckView {
  name: string;
  status: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface VerdictView {
  verdict: string;
  exit_code: number;
  summary: string;
  checks: CheckView[];
  markdown_summary: string;
  dashboard_url: string;
  [key: string]: unknown;
}

export const TERMINAL_STATUSES = ['success', 'failed', 'cancelled'];

/** The API answered with an error envelope (or at least a non-2xx status). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: { field: string; message: string }[] = [],
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }

  /** One line: the API's message, its field details, the status and code, and the request id. */
  describe(): string {
    const details = this.details.map((d) => `${d.field}: ${d.message}`).join('; ');
    const tag = [`HTTP ${this.status}${this.code ? ` ${this.code}` : ''}`, this.requestId ? `request_id ${this.requestId}` : null]
      .filter(Boolean)
      .join(', ');
    return `${this.message}${details ? ` (${details})` : ''} [${tag}]`;
  }

  /** Worth asking again when only waiting: overload and server trouble pass; 4xx answers do not. */
  get transient(): boolean {
    return this.status === 429 || this.status === 502 || this.status === 503 || this.status === 504;
  }
}

/** The service could not be reached, or did not answer in time. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
}

function causeMessage(error: unknown): string {
  let current: unknown = error;
  let message = (error as Error)?.message ?? String(error);
  // undici wraps the useful part ("connect ECONNREFUSED 127.0.0.1:1") in error.cause.
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth += 1) {
    current = current.cause;
    const inner = current instanceof Error ? current.message : String(current);
    if (inner) message = inner;
  }
  if (current instanceof Error && current.name === 'AggregateError' && 'errors' in current) {
    const first = (current as AggregateError).errors[0] as Error | undefined;
    if (first?.message) message = first.message;
  }
  return message;
}

function retryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  fetch?: FetchLike;
  /** Per request, unless the call says otherwise. */
  requestTimeoutMs?: number;
}

export class RvsClient {
  private readonly fetchImpl: FetchLike;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: ClientOptions) {
    this.fetchImpl = options.fetch ?? ((url, init) => fetch(url, init));
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  runUrl(runId: string): string {
    return `${this.options.baseUrl}/runs/${runId}`;
  }

  async request<T>(method: 'GET' | 'POST' | 'PATCH', path: string, options: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<T> {
    const url = `${this.options.baseUrl}${path}`;
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${this.options.apiKey}`,
      'user-agent': this.options.userAgent,
      ...options.headers,
    };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(options.timeoutMs ?? this.requestTimeoutMs),
        redirect: 'error',
      });
      text = await response.text();
    } catch (error) {
      const name = (error as Error)?.name;
      const why = name === 'TimeoutError' || name === 'AbortError' ? 'no answer in time' : causeMessage(error);
      throw new ConnectionError(`cannot reach ${redactUrl(this.options.baseUrl, { keepPath: true })}: ${why}`);
    }
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (!response.ok) {
      const envelope = (body as { error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown } } | undefined)?.error;
      const requestId = typeof envelope?.request_id === 'string' ? envelope.request_id : response.headers.get('x-request-id');
      const details = Array.isArray(envelope?.details)
        ? (envelope.details as unknown[])
            .filter((d): d is { field: string; message: string } => typeof d === 'object' && d !== null && 'field' in d && 'message' in d)
            .map((d) => ({ field: String(d.field), message: String(d.message) }))
        : [];
      throw new ApiError(
        response.status,
        typeof envelope?.code === 'string' ? envelope.code : '',
        typeof envelope?.message === 'string' ? envelope.message : `${method} ${path} answered ${response.status} ${response.statusText}`.trim(),
        requestId,
        details,
        retryAfter(response.headers.get('retry-after')),
      );
    }
    if (body === undefined || body === null || typeof body !== 'object') {
      throw new ApiError(response.status, '', `${method} ${path} answered ${response.status} without a JSON object`, response.headers.get('x-request-id'));
    }
    return body as T;
  }

  /** Every element of a list route, page by page (the API pages at most 200 at a time). */
  async listAll<T>(path: string, query: Record<string, string> = {}): Promise<T[]> {
    const items: T[] = [];
    const filter = Object.entries(query)
      .map(([name, value]) => `&${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
      .join('');
    for (let offset = 0; ; ) {
      const page = await this.request<{ data: T[]; pagination?: { has_more?: boolean } }>('GET', `${path}?limit=200&offset=${offset}${filter}`);
      items.push(...page.data);
      offset += page.data.length;
      if (!page.pagination?.has_more || page.data.length === 0) return items;
    }
  }

  /**
   * The tenant's suites of exactly this name. Filtered here too: a service from before `?name=`
   * ignores the parameter and lists every suite.
   */
  async suitesNamed(name: string): Promise<SuiteSummary[]> {
    const suites = await this.listAll<SuiteSummary>('/suites', { name });
    return suites.filter((suite) => suite.name === name);
  }

  triggerRun(suiteId: string, body: Record<string, unknown>, idempotencyKey: string): Promise<RunView> {
    return this.request<RunView>('POST', `/suites/${suiteId}/runs`, { body, headers: { 'idempotency-key': idempotencyKey } });
  }

  getRun(runId: string): Promise<RunView> {
    return this.request<RunView>('GET', `/runs/${runId}`);
  }

  cancelRun(runId: string): Promise<RunView> {
    return this.request<RunView>('POST', `/runs/${runId}/cancel`);
  }

  /** With waitSeconds the server may hold the request until the verdict exists (long poll). */
  getVerdict(runId: string, waitSeconds = 0): Promise<VerdictView> {
    const query = waitSeconds > 0 ? `?wait=${waitSeconds}` : '';
    return this.request<VerdictView>('GET', `/runs/${runId}/verdict${query}`, {
      timeoutMs: this.requestTimeoutMs + waitSeconds * 1000,
    });
  }
}
