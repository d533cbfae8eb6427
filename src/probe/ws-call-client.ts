import type { PlannedCall } from '../domain/workload';
import type { SampleOutcome } from '../domain/sample-outcome';
import { OutboundAddressRefusedError, refusedLiteral } from '../net/guarded-lookup';
import { classifyResponse, type AnswerRules } from './classify-response';
import { answeredResult, callTiming, failedResult, latencyStartMs, WaitQueue, type CallResult } from './call-accounting';
import type { JsonRpcClient, ProbeTarget } from './json-rpc-client';
import { backoffDelayMs, type BackoffOptions } from './watch-heads';
import { handshakeHeaders, openWsRpc, WsConnectError, WsRequestError, type WsRpcConnection } from './ws-client';

/*
 * The probe's calls over an endpoint's WebSocket (its ws_url), behind the same JsonRpcClient the
 * HTTP transport offers, so the probe engine does not know which one it drives.
 *
 * Every call settles exactly once, as one CallResult: an answer (whatever it holds, read by the
 * family's classify-response rules like an HTTP body), `timeout` when no answer comes within the
 * call's deadline, `connection_error` when its socket drops (or cannot be opened) before the
 * answer. Nothing is ever sent twice: a call whose socket dropped is a sample of the drop, not
 * retried on the next socket (a workload may contain eth_sendRawTransaction). Later calls open a
 * new socket, with backoff after a failure, so an endpoint that keeps dropping is not hammered.
 */

/** At most this many sockets per client: requests share a socket, matched by id. */
export const MAX_WS_SOCKETS = 4;
/** One more socket for every this many calls in flight, up to MAX_WS_SOCKETS. */
const CALLS_PER_SOCKET = 16;
const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 10_000 };

export interface WsCallClientOptions {
  /** Calls in flight at once (the workload's concurrency); more wait in order, their latency running. */
  connections: number;
  allowPrivateTargets: boolean;
  answers: AnswerRules;
  fingerprintResults?: boolean;
  /** Default: one per CALLS_PER_SOCKET calls in flight, at most MAX_WS_SOCKETS. */
  sockets?: number;
  backoff?: BackoffOptions;
  /** Extra certificate authority to trust for wss (tests, private PKI). */
  ca?: string;
  /** Default: the WebSocket client's (MAX_RESPONSE_BYTES, 10 s). */
  maxMessageBytes?: number;
  pingIntervalMs?: number;
}

/** One socket: open, being opened, or closed (then reopened no sooner than `retryAtMs`). */
interface Socket {
  connection: WsRpcConnection | null;
  connecting: Promise<WsRpcConnection> | null;
  /** Failed opens and drops since the last answer on it; sets the backoff. */
  failures: number;
  /** performance.now() time before which the socket is not reopened. */
  retryAtMs: number;
}

type Exchange = { text: string } | { outcome: SampleOutcome };

const outcomeOfConnectError = (error: WsConnectError): SampleOutcome =>
  error.kind === 'timeout' ? 'timeout' : error.kind === 'http_status' ? 'http_error' : 'connection_error';

/**
 * Opens nothing yet: sockets are opened by the first calls that need them. Throws at once, like
 * the HTTP transport, for a URL that is not ws/wss, an IP literal the address policy refuses
 * (OutboundAddressRefusedError) or a header that may not be sent; a resolved name the policy
 * refuses is thrown by the call that opens the socket, before anything is sent.
 */
export function createWsCallClient(target: ProbeTarget, options: WsCallClientOptions): JsonRpcClient {
  const url = new URL(target.url);
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new Error('the WebSocket transport needs a ws or wss URL');
  const refused = refusedLiteral(url, options.allowPrivateTargets);
  if (refused !== null) throw new OutboundAddressRefusedError(refused);
  handshakeHeaders(target.headers);
  return new WsCallClient(target, options);
}

class WsCallClient implements JsonRpcClient {
  private readonly sockets: Socket[];
  private readonly backoff: BackoffOptions;
  private readonly fingerprint: boolean;
  private nextSocket = 0;
  private active = 0;
  private readonly waiting = new WaitQueue<() => void>();
  private closing: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  /**
   * Our address policy refused the endpoint's address: every later call throws it too. Without
   * this, the calls during the socket's backoff were connection errors, and a caller that had
   * let the first refusal go (a head read) saw an unreachable endpoint instead of a refused one.
   */
  private refusal: OutboundAddressRefusedError | null = null;

  constructor(
    private readonly target: ProbeTarget,
    private readonly options: WsCallClientOptions,
  ) {
    const count = options.sockets ?? Math.min(MAX_WS_SOCKETS, Math.ceil(options.connections / CALLS_PER_SOCKET));
    this.sockets = Array.from({ length: Math.max(1, count) }, () => ({ connection: null, connecting: null, failures: 0, retryAtMs: 0 }));
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.fingerprint = options.fingerprintResults !== false;
  }

  async call(planned: PlannedCall, intendedStartMs?: number): Promise<CallResult> {
    const startMs = latencyStartMs(intendedStartMs);
    const exchange = await this.exchange(planned.method, planned.params);
    const timing = callTiming(startMs);
    if ('outcome' in exchange) return failedResult(planned, timing, exchange.outcome, null);
    // A WebSocket message has no status of its own: its text is read as an HTTP 200 body would be.
    const classified = classifyResponse(this.options.answers, 200, exchange.text, this.fingerprint ? planned.method : null);
    return answeredResult(planned, timing, classified, null);
  }

  async result(method: string, params: unknown[]): Promise<unknown> {
    const exchange = await this.exchange(method, params);
    const outcome = 'outcome' in exchange ? exchange.outcome : classifyResponse(this.options.answers, 200, exchange.text, null).outcome;
    // Names the method and outcome only: never the URL, which may carry a key.
    if (outcome !== 'ok' || 'outcome' in exchange) throw new Error(`${method} failed: ${outcome}`);
    return (JSON.parse(exchange.text) as { result: unknown }).result;
  }

  /** As the HTTP pool's close: calls already made finish first, new ones are connection errors. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.active > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      for (const socket of this.sockets) {
        socket.connection?.close();
        socket.connection = null;
        void socket.connecting?.then((connection) => connection.close(), () => undefined);
      }
    })();
    return this.closing;
  }

  /**
   * One request and its answer's text, or the outcome of its failure. Throws only our address
   * policy's refusal. The deadline (the endpoint's timeout) runs from when the call gets its slot,
   * over opening a socket and the answer, as the HTTP transport's does over connect and response.
   */
  private async exchange(method: string, params: unknown[]): Promise<Exchange> {
    if (this.refusal !== null) throw this.refusal;
    if (this.closing !== null) return { outcome: 'connection_error' };
    await this.acquire();
    try {
      const deadlineMs = performance.now() + this.target.timeoutMs;
      const socket = this.pick();
      if (socket === null) return { outcome: 'connection_error' };
      let connection: WsRpcConnection;
      try {
        connection = await this.connectionOf(socket);
      } catch (error) {
        if (error instanceof OutboundAddressRefusedError) {
          this.refusal = error;
          throw error;
        }
        return { outcome: error instanceof WsConnectError ? outcomeOfConnectError(error) : 'connection_error' };
      }
      const remainingMs = deadlineMs - performance.now();
      if (remainingMs <= 0) return { outcome: 'timeout' };
      try {
        const text = await connection.send(method, params, remainingMs);
        socket.failures = 0;
        return { text };
      } catch (error) {
        return { outcome: error instanceof WsRequestError && error.kind === 'timeout' ? 'timeout' : 'connection_error' };
      }
    } finally {
      this.release();
    }
  }

  /**
   * Round robin over the sockets; one waiting out its backoff gives way to any other that is open
   * or being opened. Null when every socket is waiting: the endpoint cannot be reached now.
   */
  private pick(): Socket | null {
    const first = this.sockets[this.nextSocket++ % this.sockets.length]!;
    if (this.usable(first)) return first;
    return this.sockets.find((s) => s.connection !== null || s.connecting !== null) ?? this.sockets.find((s) => this.usable(s)) ?? null;
  }

  private usable(socket: Socket): boolean {
    return socket.connection !== null || socket.connecting !== null || performance.now() >= socket.retryAtMs;
  }

  private connectionOf(socket: Socket): Promise<WsRpcConnection> {
    if (socket.connection !== null) return Promise.resolve(socket.connection);
    socket.connecting ??= this.open(socket);
    return socket.connecting;
  }

  private async open(socket: Socket): Promise<WsRpcConnection> {
    try {
      const connection = await openWsRpc(
        { url: this.target.url, headers: this.target.headers, timeoutMs: this.target.timeoutMs },
        {
          allowPrivateTargets: this.options.allowPrivateTargets,
          envelope: this.options.answers.envelope,
          ...(this.options.maxMessageBytes === undefined ? {} : { maxMessageBytes: this.options.maxMessageBytes }),
          ...(this.options.pingIntervalMs === undefined ? {} : { pingIntervalMs: this.options.pingIntervalMs }),
          ...(this.options.ca === undefined ? {} : { ca: this.options.ca }),
        },
      );
      socket.connection = connection;
      // The calls in flight on it fail by themselves (the connection rejects them as closed); the
      // socket is reopened by a later call, after a backoff that grows while it keeps dropping.
      void connection.closed.then(() => {
        if (socket.connection !== connection) return;
        socket.connection = null;
        socket.retryAtMs = performance.now() + backoffDelayMs(socket.failures++, this.backoff);
      });
      return connection;
    } catch (error) {
      socket.retryAtMs = performance.now() + backoffDelayMs(socket.failures++, this.backoff);
      throw error;
    } finally {
      socket.connecting = null;
    }
  }

  private async acquire(): Promise<void> {
    if (this.active < this.options.connections) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** The slot goes straight to the next waiting call (the count stays), or back. */
  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) {
      next();
      return;
    }
    this.active--;
    if (this.active === 0 && this.drained !== null) this.drained();
  }
}
