import { Client, errors } from 'undici';
import type { BatchLimit } from '../domain/batch-limit';
import type { SampleOutcome } from '../domain/sample-outcome';
import { isClientSetHeader, isValidHeaderName, isValidHeaderValue } from '../domain/http-fields';
import { guardedLookup, OutboundAddressRefusedError, refusedLiteral } from '../net/guarded-lookup';
import { classifyResponse, INVALID_REASONS, REQUEST_VERSION, type AnswerRules, type InvalidReason } from './classify-response';
import { processResponseBudget, type BudgetHolder, type ResponseBudget } from './response-budget';
import type { PlannedCall } from '../domain/workload';
import { answeredResult, callTiming, failedResult, latencyStartMs, WaitQueue, type CallResult } from './call-accounting';

export type { CallResult } from './call-accounting';

/** 8 MiB: large enough for full blocks with transactions, small enough to protect the worker. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface ProbeTarget {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** The whole-call deadline passed (undici's own timeouts are per phase, not per call). */
class DeadlineError extends Error {
  readonly code = 'RVS_DEADLINE';
}

function failureOf(error: Error): { outcome: SampleOutcome; reason: InvalidReason | null } {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'RVS_DEADLINE':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { outcome: 'timeout', reason: null };
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return { outcome: 'invalid_response', reason: INVALID_REASONS.tooLarge };
    default:
      // llhttp refused the bytes: they were not an HTTP/1.1 response.
      if (error instanceof errors.HTTPParserError) return { outcome: 'invalid_response', reason: INVALID_REASONS.badHttp };
      // Refused, reset, closed early, DNS failures, TLS failures: the endpoint could not be reached.
      return { outcome: 'connection_error', reason: null };
  }
}

/** Our address policy refused the connection: thrown to the caller, not recorded as a sample. */
function refusalOf(error: Error): OutboundAddressRefusedError | null {
  if (error instanceof OutboundAddressRefusedError) return error;
  return error.cause instanceof OutboundAddressRefusedError ? error.cause : null;
}

export interface JsonRpcClient {
  /**
   * Sends one call. `intendedStartMs` (performance.now() time) is when an open-loop schedule meant
   * to send it: latency counts from then, so a stalled endpoint cannot hide its stall.
   */
  call(planned: PlannedCall, intendedStartMs?: number): Promise<CallResult>;
  /** One request whose result the caller needs (e.g. the head block); a failed call throws. */
  result(method: string, params: unknown[]): Promise<unknown>;
  /**
   * Batching clients only: the endpoint's batch limit as far as this client learnt it (after any
   * search in flight ends); null when no batch was refused for its size.
   */
  batchLimit?(): Promise<BatchLimit | null>;
  close(): Promise<void>;
}

/** A raw answer to one posted body, or the outcome of a request that got none. */
export type PostAnswer =
  | { status: number; text: string; /** Time the response waited for the worker's budget. */ pausedMs: number }
  | { outcome: SampleOutcome; reason: InvalidReason | null };

/** The HTTP client also posts a body of the caller's making (a batch), bounded and guarded like a call. */
export interface HttpJsonRpcClient extends JsonRpcClient {
  /** Posts `body` as one request; only a refused address throws. */
  post(body: string): Promise<PostAnswer>;
}

/**
 * The headers of every request. Credentials in the URL's userinfo become Basic auth (undici is
 * given the origin, which drops them); an explicit Authorization header wins. Names and values
 * follow the one RFC 9110 rule the endpoints API also applies.
 */
function requestHeaders(url: URL, headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'run-verification-service' };
  if (url.username || url.password) {
    out.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  }
  for (const [name, value] of Object.entries(headers)) {
    // The messages name the header, never its value: values are secrets (API keys).
    if (!isValidHeaderName(name)) throw new Error(`invalid header name ${JSON.stringify(name)}`);
    if (isClientSetHeader(name)) throw new Error(`header ${name} is set by the service`);
    if (!isValidHeaderValue(value)) throw new Error(`invalid value of header ${name}`);
    out[name.toLowerCase()] = value;
  }
  return out;
}

/**
 * Up to `connections` keep-alive connections to one target through undici. Failures of the far
 * side are data (a CallResult outcome); only a refused address is thrown, before anything is sent.
 *
 * A request is never sent twice: each undici Client carries one request at a time (pipelining 1),
 * undici fails a request whose connection closes after it was written (it only re-sends requests
 * that never reached a socket), and nothing here retries. A reset or a keep-alive race is a
 * connection_error sample — a workload may contain eth_sendRawTransaction.
 */
export function createJsonRpcClient(
  target: ProbeTarget,
  options: {
    connections: number;
    allowPrivateTargets: boolean;
    /** The chain family's envelope and comparison rules (ChainAdapter): how answers are read and fingerprinted. */
    answers: AnswerRules;
    /** Fingerprint every result for the correctness check (off when the run compares nothing). */
    fingerprintResults?: boolean;
    /** Extra certificate authority to trust for https (tests, private PKI). */
    ca?: string;
    /** Bytes of responses held at once, shared with the process's other clients by default. */
    budget?: ResponseBudget;
  },
): HttpJsonRpcClient {
  const url = new URL(target.url);
  // No DNS lookup happens for an IP literal, so the lookup guard never sees it: check it here.
  const refused = refusedLiteral(url, options.allowPrivateTargets);
  if (refused !== null) throw new OutboundAddressRefusedError(refused);
  const headers = requestHeaders(url, target.headers);
  const connections = new Connections(url.origin, options.connections, target.timeoutMs, options.budget ?? processResponseBudget, {
    pipelining: 1,
    connect: {
      timeout: target.timeoutMs,
      lookup: guardedLookup(options.allowPrivateTargets) as never,
      // TLS is verified (undici's default); a test or private PKI may add its own authority.
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    },
    headersTimeout: target.timeoutMs,
    bodyTimeout: target.timeoutMs,
    maxResponseSize: MAX_RESPONSE_BYTES,
    keepAliveTimeout: 30_000,
  });
  const path = `${url.pathname}${url.search}`;
  const fingerprint = options.fingerprintResults !== false;
  const { answers } = options;
  const jsonrpc = REQUEST_VERSION[answers.envelope];

  return {
    call(planned, intendedStartMs) {
      const start = latencyStartMs(intendedStartMs);
      const body = JSON.stringify({ jsonrpc, id: planned.seq, method: planned.method, params: planned.params });
      return new Promise((resolve, reject) => {
        connections.dispatch({ method: 'POST', path, headers, body }, new CallHandler(answers, planned, start, fingerprint, resolve, reject));
      });
    },
    async result(method, params) {
      const body = JSON.stringify({ jsonrpc, id: 1, method, params });
      const response = await new Promise<{ status: number; text: string } | SampleOutcome>((resolve, reject) => {
        connections.dispatch({ method: 'POST', path, headers, body }, new TextHandler(resolve, reject));
      });
      const text = typeof response === 'string' ? '' : response.text;
      const outcome = typeof response === 'string' ? response : classifyResponse(answers, response.status, text, null).outcome;
      // The message names the method and outcome only: never the URL or a socket error's host,
      // which may carry a key.
      if (outcome !== 'ok') throw new Error(`${method} failed: ${outcome}`);
      return (JSON.parse(text) as { result: unknown }).result;
    },
    post(body) {
      return new Promise((resolve, reject) => {
        connections.dispatch({ method: 'POST', path, headers, body }, new PostHandler(resolve, reject));
      });
    },
    close: () => connections.close(),
  };
}

type DispatchOptions = Parameters<Client['dispatch']>[0];

/**
 * Up to `size` keep-alive connections to one origin, one undici Client each, every one carrying
 * one request at a time; calls beyond `size` wait in order. A Pool does the same, but searches
 * its clients for a free one and emits drain events on every call: handing an idle Client
 * straight to the next call costs less (docs/performance.md). Also enforces each call's
 * whole-call deadline with one sweep timer instead of a timer per call.
 */
class Connections {
  private readonly all: Client[] = [];
  private readonly idle: Client[] = [];
  /** Clients undici is done with, to be handed on once its callbacks have returned. */
  private readonly released: Client[] = [];
  private readonly waiting = new WaitQueue<{ options: DispatchOptions; handler: ResponseCollector }>();
  private readonly inFlight = new Set<ResponseCollector>();
  private sweeper: NodeJS.Timeout | null = null;
  private closed: Promise<void> | null = null;
  private drained: (() => void) | null = null;

  constructor(
    private readonly origin: string,
    private readonly size: number,
    private readonly timeoutMs: number,
    private readonly budget: ResponseBudget,
    private readonly clientOptions: Client.Options,
  ) {}

  dispatch(options: DispatchOptions, handler: ResponseCollector): void {
    if (this.closed !== null) {
      handler.onError(new errors.ClientClosedError());
      return;
    }
    let client = this.idle.pop();
    if (client === undefined && this.all.length < this.size) {
      client = new Client(this.origin, this.clientOptions);
      this.all.push(client);
    }
    if (client === undefined) {
      this.waiting.push({ options, handler });
      return;
    }
    this.send(client, options, handler);
  }

  private send(client: Client, options: DispatchOptions, handler: ResponseCollector): void {
    handler.start(this, client, this.budget, performance.now() + this.timeoutMs);
    this.inFlight.add(handler);
    // An unref'd sweep every tenth of the timeout (10 ms … 250 ms): a call ends at most that much
    // after its deadline. Started with the first call, stopped at close.
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(250, Math.max(10, this.timeoutMs / 10))).unref();
    client.dispatch(options, handler);
  }

  private sweep(): void {
    const now = performance.now();
    for (const handler of this.inFlight) handler.expireIfDue(now);
  }

  /**
   * Called by a handler when undici is done with its request: the next waiting call gets the
   * client — but not from here. This runs inside undici's callbacks, and a client is not ready
   * for its next request until they return: a refused connect fails the request inside undici's
   * connect-error path, which asserts the client's queue is empty right after (a request
   * dispatched in between is an uncaught AssertionError that ends the process). So released
   * clients are handed on in one microtask, after undici's stack has unwound.
   */
  release(client: Client, handler: ResponseCollector): void {
    this.inFlight.delete(handler);
    this.released.push(client);
    if (this.released.length === 1) queueMicrotask(this.handOn);
  }

  /** Gives each released client to the next waiting call, or back to the idle ones. */
  private readonly handOn = (): void => {
    // Taken by index: a send below may fail at once (a closed client) and release again.
    for (let i = 0; i < this.released.length; i++) {
      const client = this.released[i]!;
      const next = this.waiting.shift();
      if (next !== undefined) this.send(client, next.options, next.handler);
      else this.idle.push(client);
    }
    this.released.length = 0;
    // Every client idle means nothing is in flight or waiting.
    if (this.drained !== null && this.idle.length === this.all.length) this.drained();
  };

  /** As a Pool's close: calls already made (in flight or waiting) finish first, new ones fail. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.idle.length < this.all.length) await new Promise<void>((resolve) => (this.drained = resolve));
      if (this.sweeper !== null) clearInterval(this.sweeper);
      await Promise.all(this.all.map((client) => client.close()));
    })();
    return this.closed;
  }
}

/**
 * Gathers one response as raw chunks through undici's low-level dispatch (the classic handler
 * interface, which undici 7's Client calls without an adapter), counts them against the worker's
 * response budget, and gives its client back when undici is done with the request.
 *
 * Nothing may throw out of these callbacks: they run inside undici's socket handling. The result
 * is settled once (a deadline can settle it before undici reports the aborted request), and every
 * unexpected exception becomes an invalid_response sample.
 *
 * Classes rather than objects of closures: this runs for every call, and per-call closures (named
 * by the tsx loader's keepNames on each creation) were a measurable share of the probe's CPU.
 */
abstract class ResponseCollector implements BudgetHolder {
  protected status = 0;
  heldBytes = 0;
  private first: Buffer | null = null;
  private rest: Buffer[] | null = null;
  private connections: Connections | null = null;
  private client: Client | null = null;
  private budget: ResponseBudget | null = null;
  private abort: ((error?: Error) => void) | null = null;
  private resume: (() => void) | null = null;
  private settled = false;
  private expired = false;
  private deadlineMs = Number.POSITIVE_INFINITY;
  /** performance.now() when the response paused for budget; -1 when reading. */
  private pausedAt = -1;
  /** Time spent paused for budget: the worker's wait, not the endpoint's. */
  protected pausedMs = 0;

  start(connections: Connections, client: Client, budget: ResponseBudget, deadlineMs: number): void {
    this.connections = connections;
    this.client = client;
    this.budget = budget;
    this.deadlineMs = deadlineMs;
  }

  /** Called by the sweep: ends a call past its deadline, not counting time paused for budget. */
  expireIfDue(now: number): void {
    if (this.settled || this.pausedAt >= 0 || now < this.deadlineMs + this.pausedMs) return;
    this.expired = true;
    if (this.abort !== null) {
      // undici fails the request (onError) and destroys its socket: nothing is sent again.
      this.abort(new DeadlineError('deadline'));
    } else {
      // Not yet on a socket (still connecting): settle now; onConnect aborts it before writing.
      this.settleError(new DeadlineError('deadline'));
    }
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abort = abort;
    if (this.expired) abort(new DeadlineError('deadline'));
  }

  onHeaders(statusCode: number, _headers: unknown, resume: () => void): boolean {
    this.status = statusCode;
    this.resume = resume;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.first === null) this.first = chunk;
    else (this.rest ??= []).push(chunk);
    const mayRead = this.budget === null || this.budget.take(this, chunk.length);
    if (!mayRead) this.pausedAt = performance.now();
    return mayRead;
  }

  resumeReading(): void {
    if (this.pausedAt < 0) return;
    this.pausedMs += performance.now() - this.pausedAt;
    this.pausedAt = -1;
    try {
      this.resume?.();
    } catch (error) {
      this.abort?.(error as Error);
    }
  }

  onComplete(): void {
    const first = this.first;
    const rest = this.rest;
    this.first = null;
    this.rest = null;
    this.finish();
    if (this.settled) return;
    this.settled = true;
    try {
      const text = first === null ? '' : rest === null ? first.toString('utf8') : Buffer.concat([first, ...rest]).toString('utf8');
      this.complete(text);
    } catch {
      this.fail({ outcome: 'invalid_response', reason: INVALID_REASONS.unexpected });
    }
  }

  onError(error: Error): void {
    this.first = null;
    this.rest = null;
    this.finish();
    this.settleError(error);
  }

  private settleError(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    try {
      const refusal = refusalOf(error);
      if (refusal !== null) this.refuse(refusal);
      else this.fail(failureOf(error));
    } catch {
      this.fail({ outcome: 'connection_error', reason: null });
    }
  }

  /** undici is done with the request: budget and client go back. */
  private finish(): void {
    if (this.pausedAt >= 0) {
      this.pausedMs += performance.now() - this.pausedAt;
      this.pausedAt = -1;
    }
    this.budget?.release(this);
    this.budget = null;
    const { connections, client } = this;
    this.connections = null;
    this.client = null;
    if (connections !== null && client !== null) connections.release(client, this);
  }

  protected abstract complete(text: string): void;
  protected abstract fail(failure: { outcome: SampleOutcome; reason: InvalidReason | null }): void;
  protected abstract refuse(error: OutboundAddressRefusedError): void;
}

/** The whole response of a result() call, or the outcome of its failure. */
class TextHandler extends ResponseCollector {
  constructor(
    private readonly resolve: (response: { status: number; text: string } | SampleOutcome) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    super();
  }

  protected complete(text: string): void {
    this.resolve({ status: this.status, text });
  }

  protected fail(failure: { outcome: SampleOutcome }): void {
    this.resolve(failure.outcome);
  }

  protected refuse(error: OutboundAddressRefusedError): void {
    this.reject(error);
  }
}

/** The whole response of a post() (a batch), or the outcome and reason of its failure. */
class PostHandler extends ResponseCollector {
  constructor(
    private readonly resolve: (answer: PostAnswer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    super();
  }

  protected complete(text: string): void {
    this.resolve({ status: this.status, text, pausedMs: this.pausedMs });
  }

  protected fail(failure: { outcome: SampleOutcome; reason: InvalidReason | null }): void {
    this.resolve(failure);
  }

  protected refuse(error: OutboundAddressRefusedError): void {
    this.reject(error);
  }
}

/** One probe call's response (or failure), as a CallResult. */
class CallHandler extends ResponseCollector {
  constructor(
    private readonly answers: AnswerRules,
    private readonly planned: PlannedCall,
    /** performance.now() time the latency counts from. */
    private readonly startMs: number,
    private readonly fingerprint: boolean,
    private readonly resolve: (result: CallResult) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    super();
  }

  protected complete(text: string): void {
    // Timed before classification: reading the answer is the worker's time, not the endpoint's.
    const timing = callTiming(this.startMs, this.pausedMs);
    const classified = classifyResponse(this.answers, this.status, text, this.fingerprint ? this.planned.method : null);
    this.resolve(answeredResult(this.planned, timing, classified, this.status));
  }

  protected fail(failure: { outcome: SampleOutcome; reason: InvalidReason | null }): void {
    this.resolve(failedResult(this.planned, callTiming(this.startMs, this.pausedMs), failure.outcome, failure.reason));
  }

  protected refuse(error: OutboundAddressRefusedError): void {
    this.reject(error);
  }
}
