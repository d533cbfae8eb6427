import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { jsonShape, MAX_RESULT_DEPTH, MAX_RESULT_VALUES } from '../domain/canonical-json';
import { isClientSetHeader, isValidHeaderName, isValidHeaderValue } from '../domain/http-fields';
import { guardedLookup, OutboundAddressRefusedError, refusedLiteral } from '../net/guarded-lookup';
import type { AnswerEnvelope } from '../chains/types';
import { REQUEST_VERSION } from './classify-response';
import { MAX_RESPONSE_BYTES } from './json-rpc-client';
import { leadingMessageId, scanJsonShape } from './json-shape-budget';

/*
 * JSON-RPC over a WebSocket, through `ws` (the WebSocket library most of Node's ecosystem uses,
 * maintained since 2011). Chosen over undici's WebSocket because `ws` exposes the three bounds an
 * untrusted server needs, as plain options: `lookup` on the connection (the outbound guard judges
 * every resolved address, as for HTTP probes), `maxPayload` (a message larger than the cap is
 * refused while it arrives, before it is buffered whole; the socket is closed with 1009), and
 * `perMessageDeflate: false` (no compression negotiated, so no decompression bomb). undici's
 * WebSocket is the WHATWG API: it buffers every message whole with no size option of its own, and
 * its connection goes through a dispatcher we would have to build per endpoint.
 *
 * Nothing a server sends can throw out of the event handlers here or grow memory without bound:
 * a message is at most `maxMessageBytes`, its token count and nesting are checked on its text before
 * it is parsed (json-shape-budget.ts), it is parsed in one JSON.parse (iterative in V8), and its
 * depth and value count are checked again before anything walks it; notifications are handed to the
 * caller synchronously, who bounds what it keeps (watch-heads.ts: a bounded queue that drops and
 * counts). Error texts are fixed: `ws` puts the URL into some of its messages, and a server's
 * close reason is its own text — neither is ever repeated.
 */

/** What a WebSocket connection to one endpoint needs: its ws_url (a secret) and headers. */
export interface WsTarget {
  url: string;
  headers: Record<string, string>;
  /** Bounds the handshake and each request. */
  timeoutMs: number;
}

export interface WsOptions {
  allowPrivateTargets: boolean;
  envelope: AnswerEnvelope;
  /** Largest message accepted; larger ones close the connection (`too_large`). Default MAX_RESPONSE_BYTES. */
  maxMessageBytes?: number;
  /**
   * A ping every this many ms; no pong before the next one ends the connection (`ping_timeout`),
   * so a connection that silently died is found. 0: no pings. Default 10 s.
   */
  pingIntervalMs?: number;
  /**
   * Offered every message (within the bounds below, parsed, an object) before it is matched to a
   * request in flight, synchronously, with the arrival time (process.hrtime.bigint()) and its text
   * (for a caller that keeps it for later rather than the parsed message): true takes it (a
   * subscription's event, a notification or an answer carrying the subscribe request's id), false
   * leaves it to the connection.
   */
  onMessage?: (message: WsMessage, receivedAtNs: bigint, text: string) => boolean;
  /** Extra certificate authority to trust for wss (tests, private PKI). */
  ca?: string;
  /**
   * Longest a message may take from its first bytes to its last; longer closes the connection
   * (`message_timeout`). Default MAX_MESSAGE_MS.
   */
  maxMessageMs?: number;
}

/** A message's top-level members as a server sent them. */
export interface WsMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** Why a connection ended: fixed names, never a server's text. */
export type WsCloseReason = 'closed_by_us' | 'remote_closed' | 'too_large' | 'too_many_fragments' | 'message_timeout' | 'ping_timeout' | 'connection_error';

/**
 * Frames one message may come in: a server that fragments sends frames of its write buffer (geth's
 * is 1 KiB, so its 8 MiB answer is 8,192 frames); one frame per 512 bytes of the size cap, at
 * least 64. Without a cap, endless zero-length continuation frames held a socket and 55–70 % of a
 * worker's CPU (issue 30): each costs `ws` a frame's work and adds nothing to the size count.
 */
export const maxFragmentsFor = (maxMessageBytes: number): number => Math.max(64, Math.ceil(maxMessageBytes / 512));

/** Default cap on one message's arrival time: 8 MiB over a slow link fits; a trickle does not. */
export const MAX_MESSAGE_MS = 30_000;

export interface WsClosed {
  reason: WsCloseReason;
  /** The WebSocket close code when one was received (1009: our size cap). */
  code: number | null;
}

/** Counts of what the connection refused or could not place, for the caller's report. */
export interface WsFrameStats {
  /** Messages that were not JSON, nested too deep, held too many values, or binary. */
  invalidMessages: number;
  /** Answers whose id matches no request in flight. */
  unmatchedAnswers: number;
}

export interface WsRpcConnection {
  /** One request; resolves with its result, rejects with WsRequestError. */
  request(method: string, params: unknown[], timeoutMs?: number): Promise<unknown>;
  /** The same, with the id the request was sent with (a subscription whose events carry it). */
  requestWithId(method: string, params: unknown[], timeoutMs?: number): { id: number; result: Promise<unknown> };
  /**
   * One request whose answer the caller reads itself: resolves with the text of whatever message
   * carried its id (an RPC error, a malformed or too-deep answer included), so the probe classifies
   * it by the same rules as an HTTP body. Rejects with WsRequestError `timeout` or `closed` only.
   */
  send(method: string, params: unknown[], timeoutMs?: number): Promise<string>;
  /** Requests sent and not yet answered, timed out or failed. */
  readonly inFlight: number;
  readonly stats: Readonly<WsFrameStats>;
  /** Resolves once, when the connection has ended; never rejects. */
  readonly closed: Promise<WsClosed>;
  close(): void;
}

/** Opening failed for a reason of the far side (not our address policy, which throws OutboundAddressRefusedError). */
export class WsConnectError extends Error {
  constructor(readonly kind: 'timeout' | 'http_status' | 'connection_error') {
    super(`WebSocket connection failed: ${kind}`);
    this.name = 'WsConnectError';
  }
}

export class WsRequestError extends Error {
  constructor(
    readonly kind: 'rpc_error' | 'timeout' | 'closed' | 'invalid_response',
    readonly rpcErrorCode: number | null = null,
  ) {
    super(`WebSocket request failed: ${kind}${rpcErrorCode === null ? '' : ` ${rpcErrorCode}`}`);
    this.name = 'WsRequestError';
  }
}

const DEFAULT_PING_INTERVAL_MS = 10_000;

export function handshakeHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { 'user-agent': 'run-verification-service' };
  for (const [name, value] of Object.entries(headers)) {
    // The messages name the header, never its value: values are secrets (API keys).
    if (!isValidHeaderName(name)) throw new Error(`invalid header name ${JSON.stringify(name)}`);
    if (isClientSetHeader(name)) throw new Error(`header ${name} is set by the service`);
    if (!isValidHeaderValue(value)) throw new Error(`invalid value of header ${name}`);
    // The handshake's own fields are the client's: an endpoint header of that name (accepted by the
    // endpoints API, which serves HTTP too) is left out rather than failing every connection.
    if (/^sec-websocket-/i.test(name)) continue;
    out[name.toLowerCase()] = value;
  }
  return out;
}

function refusalOf(error: unknown): OutboundAddressRefusedError | null {
  if (error instanceof OutboundAddressRefusedError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof OutboundAddressRefusedError ? cause : null;
}

interface Pending {
  /** send(): the answer's text is handed over as it came, unread. */
  raw: boolean;
  resolve(result: unknown): void;
  reject(error: WsRequestError): void;
  timer: NodeJS.Timeout;
}

/**
 * Opens a JSON-RPC connection to `target.url` (ws or wss). Rejects with OutboundAddressRefusedError
 * before anything is sent when the address policy refuses the host (an IP literal here, a resolved
 * name in the guarded lookup), and with WsConnectError when the far side fails the handshake.
 */
export async function openWsRpc(target: WsTarget, options: WsOptions): Promise<WsRpcConnection> {
  const url = new URL(target.url);
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new WsConnectError('connection_error');
  // No DNS lookup happens for an IP literal, so the lookup guard never sees it: check it here.
  const refused = refusedLiteral(url, options.allowPrivateTargets);
  if (refused !== null) throw new OutboundAddressRefusedError(refused);
  const maxMessageBytes = options.maxMessageBytes ?? MAX_RESPONSE_BYTES;
  const headers = handshakeHeaders(target.headers);
  const socket = new WebSocket(url, {
    headers,
    handshakeTimeout: target.timeoutMs,
    maxPayload: maxMessageBytes,
    maxFragments: maxFragmentsFor(maxMessageBytes),
    perMessageDeflate: false,
    followRedirects: false,
    lookup: guardedLookup(options.allowPrivateTargets) as never,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  // The raw socket, to time messages as their bytes arrive (`ws` has no per-message time option).
  let raw: Duplex | null = null;
  socket.once('upgrade', (response) => (raw = response.socket));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    socket.on('unexpected-response', (_request, response) => {
      // A non-101 answer to the upgrade (401, 404, 429, …): the endpoint's; redirects are never followed.
      fail(new WsConnectError('http_status'));
      response.destroy();
      socket.terminate();
    });
    // `on`, not `once`: an error emitted without a listener would end the process.
    socket.on('error', (error) => {
      const refusal = refusalOf(error);
      if (refusal !== null) return fail(refusal);
      fail(new WsConnectError(/timed out/i.test(error.message) ? 'timeout' : 'connection_error'));
    });
    socket.once('open', () => {
      if (settled) return;
      settled = true;
      resolve(new Connection(socket, raw, target.timeoutMs, options));
    });
    socket.once('close', () => fail(new WsConnectError('connection_error')));
  });
}

class Connection implements WsRpcConnection {
  readonly stats: WsFrameStats = { invalidMessages: 0, unmatchedAnswers: 0 };
  readonly closed: Promise<WsClosed>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private reason: WsCloseReason | null = null;
  private pinger: NodeJS.Timeout | null = null;
  private awaitingPong = false;
  private readonly jsonrpc: string;
  /** When the bytes of a message not yet complete began to arrive (performance.now()); null: none. */
  private partialSince: number | null = null;
  private completedInChunk = false;
  private messageTimer: NodeJS.Timeout | null = null;
  private readonly maxMessageMs: number;

  constructor(
    private readonly socket: WebSocket,
    raw: Duplex | null,
    private readonly timeoutMs: number,
    private readonly options: WsOptions,
  ) {
    this.jsonrpc = REQUEST_VERSION[options.envelope];
    this.maxMessageMs = options.maxMessageMs ?? MAX_MESSAGE_MS;
    // Runs after ws's own listener, which has parsed the chunk's frames and emitted what they
    // completed: a chunk that completed nothing means a message (or control frame) under way.
    raw?.on('data', () => this.afterChunk());
    this.closed = new Promise((resolve) => {
      socket.on('close', (code) => {
        this.stopPinging();
        this.stopMessageTimer();
        for (const [, pending] of this.pending) {
          clearTimeout(pending.timer);
          pending.reject(new WsRequestError('closed'));
        }
        this.pending.clear();
        // 1005: no status was sent. Our own close wins over what the peer answers to it.
        resolve({ reason: this.reason ?? 'remote_closed', code: code === 1005 ? null : code });
      });
    });
    socket.on('error', (error) => {
      // `ws` closes the socket after every error it emits; only the why is recorded.
      const code = (error as { code?: unknown }).code;
      this.reason ??= code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'too_large' : code === 'WS_ERR_TOO_MANY_BUFFERED_PARTS' ? 'too_many_fragments' : 'connection_error';
    });
    socket.on('message', (data, isBinary) => {
      const receivedAtNs = process.hrtime.bigint();
      this.completed();
      try {
        this.onMessage(data, isBinary, receivedAtNs);
      } catch {
        // Defence in depth: a caller's notification handler or anything above must not end the worker.
        this.stats.invalidMessages++;
      }
    });
    socket.on('pong', () => {
      this.awaitingPong = false;
      this.completed();
    });
    socket.on('ping', () => this.completed());
    const interval = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    if (interval > 0) {
      this.pinger = setInterval(() => this.ping(), interval).unref();
    }
  }

  get inFlight(): number {
    return this.pending.size;
  }

  request(method: string, params: unknown[], timeoutMs = this.timeoutMs): Promise<unknown> {
    return this.dispatch(false, method, params, timeoutMs).result;
  }

  requestWithId(method: string, params: unknown[], timeoutMs = this.timeoutMs): { id: number; result: Promise<unknown> } {
    return this.dispatch(false, method, params, timeoutMs);
  }

  send(method: string, params: unknown[], timeoutMs = this.timeoutMs): Promise<string> {
    return this.dispatch(true, method, params, timeoutMs).result as Promise<string>;
  }

  private dispatch(raw: boolean, method: string, params: unknown[], timeoutMs: number): { id: number; result: Promise<unknown> } {
    if (this.socket.readyState !== WebSocket.OPEN) return { id: this.nextId, result: Promise.reject(new WsRequestError('closed')) };
    const id = this.nextId++;
    const result = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new WsRequestError('timeout'));
      }, timeoutMs);
      timer.unref();
      this.pending.set(id, { raw, resolve, reject, timer });
      this.socket.send(JSON.stringify({ jsonrpc: this.jsonrpc, id, method, params }), (error) => {
        if (!error) return;
        const pending = this.pending.get(id);
        if (pending === undefined) return;
        clearTimeout(pending.timer);
        this.pending.delete(id);
        pending.reject(new WsRequestError('closed'));
      });
    });
    return { id, result };
  }

  close(): void {
    this.reason ??= 'closed_by_us';
    this.stopPinging();
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close(1000);
    // A peer that never answers the close frame must not keep the socket: cut it after a while.
    setTimeout(() => this.socket.terminate(), 1_000).unref();
  }

  private ping(): void {
    if (this.awaitingPong) {
      this.reason ??= 'ping_timeout';
      this.stopPinging();
      this.socket.terminate();
      return;
    }
    this.awaitingPong = true;
    try {
      this.socket.ping();
    } catch {
      // Not open any more: the close handler reports it.
    }
  }

  /**
   * A message (or control frame) completed: the clock of the next one starts at its first bytes.
   * Control frames may come between a message's fragments, so a server that mixes pings into
   * endless fragments resets this clock; the fragment cap (maxFragmentsFor) still ends it.
   */
  private completed(): void {
    this.completedInChunk = true;
    this.partialSince = null;
  }

  private afterChunk(): void {
    const completed = this.completedInChunk;
    this.completedInChunk = false;
    if (completed || this.partialSince !== null) return;
    this.partialSince = performance.now();
    this.armMessageTimer(this.maxMessageMs);
  }

  private armMessageTimer(ms: number): void {
    if (this.messageTimer !== null) return;
    this.messageTimer = setTimeout(() => {
      this.messageTimer = null;
      if (this.partialSince === null) return;
      const left = this.partialSince + this.maxMessageMs - performance.now();
      if (left > 0) return this.armMessageTimer(left);
      this.reason ??= 'message_timeout';
      this.stopPinging();
      this.socket.terminate();
    }, ms);
    this.messageTimer.unref();
  }

  private stopMessageTimer(): void {
    if (this.messageTimer !== null) clearTimeout(this.messageTimer);
    this.messageTimer = null;
  }

  private stopPinging(): void {
    if (this.pinger !== null) clearInterval(this.pinger);
    this.pinger = null;
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean, receivedAtNs: bigint): void {
    if (isBinary) {
      this.stats.invalidMessages++;
      return;
    }
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
    // Bounded before it is parsed (json-shape-budget.ts), a message answering no request included:
    // 8 MiB of `[{},…]` would parse into 200 MB. Its id, when it leads the message, still settles
    // the request it answers — a send() is given the text, whose classification refuses it alike.
    if (scanJsonShape(text) !== 'ok') {
      const id = leadingMessageId(text);
      const pending = id === null ? undefined : this.pending.get(id);
      if (pending === undefined) this.stats.invalidMessages++;
      else if (pending.raw) this.settleRaw(id!, pending, text);
      else {
        this.pending.delete(id!);
        clearTimeout(pending.timer);
        pending.reject(new WsRequestError('invalid_response'));
      }
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.stats.invalidMessages++;
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.stats.invalidMessages++;
      return;
    }
    // Bounded before anything walks it: a notification's params reach the family's parser. Only
    // the top-level id is read of an unbounded message: a send() is answered with it all the same,
    // and its classification names it too deep (as an HTTP answer's would be).
    if (jsonShape(message, MAX_RESULT_DEPTH, MAX_RESULT_VALUES) !== 'ok') {
      const id = (message as { id?: unknown }).id;
      const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
      if (pending?.raw === true) this.settleRaw(id as number, pending, text);
      else this.stats.invalidMessages++;
      return;
    }
    const fields = message as WsMessage;
    if (this.options.onMessage?.(fields, receivedAtNs, text) === true) return;
    // A notification nobody took is dropped: only an answer can be unmatched.
    if (typeof fields.method === 'string' && (fields.id === undefined || fields.id === null)) return;
    const pending = typeof fields.id === 'number' ? this.pending.get(fields.id) : undefined;
    if (pending === undefined) {
      this.stats.unmatchedAnswers++;
      return;
    }
    if (pending.raw) {
      this.settleRaw(fields.id as number, pending, text);
      return;
    }
    this.pending.delete(fields.id as number);
    clearTimeout(pending.timer);
    if (fields.error !== undefined && fields.error !== null) {
      const code = (fields.error as { code?: unknown }).code;
      pending.reject(new WsRequestError('rpc_error', typeof code === 'number' && Number.isInteger(code) ? code : null));
    } else if (!('result' in fields)) {
      pending.reject(new WsRequestError('invalid_response'));
    } else {
      pending.resolve(fields.result);
    }
  }

  private settleRaw(id: number, pending: Pending, text: string): void {
    this.pending.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(text);
  }
}
