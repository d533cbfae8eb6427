import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Client, errors } from 'undici';
import type { SampleOutcome } from '../db/samples';
import { classifyAddress, isAddressAllowed } from './address-guard';
import { classifyResponse } from './classify-response';
import type { PlannedCall } from './workload';

/** 8 MiB: large enough for full blocks with transactions, small enough to protect the worker. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface ProbeTarget {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

export interface CallResult {
  seq: number;
  method: string;
  startedAt: Date;
  latencyUs: number;
  outcome: SampleOutcome;
  httpStatus: number | null;
  rpcErrorCode: number | null;
  responseHash: string | null;
}

export class OutboundAddressRefusedError extends Error {
  constructor(kind: string) {
    // The message names the kind of address only: the host may be part of a secret URL.
    super(`refused to connect to a ${kind} address`);
    this.name = 'OutboundAddressRefusedError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup that refuses every resolved address the policy does not allow. */
export function guardedLookup(allowPrivateTargets: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((a) => !isAddressAllowed(a.address, allowPrivateTargets));
      if (refused) return callback(new OutboundAddressRefusedError(classifyAddress(refused.address)), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

function outcomeOfError(error: unknown): SampleOutcome {
  // An AbortSignal.timeout rejects with a DOMException named TimeoutError (whose numeric `code`
  // means nothing here); undici's own errors carry a string code.
  const { code, name } = error as { code?: unknown; name?: unknown };
  switch (typeof code === 'string' ? code : name) {
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'TimeoutError':
      return 'timeout';
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return 'invalid_response';
    default:
      return 'connection_error';
  }
}

export interface JsonRpcClient {
  /**
   * Sends one call. `intendedStartMs` (performance.now() time) is when an open-loop schedule meant
   * to send it: latency counts from then, so a stalled endpoint cannot hide its stall.
   */
  call(planned: PlannedCall, intendedStartMs?: number): Promise<CallResult>;
  /** One request whose result the caller needs (e.g. the head block); a failed call throws. */
  result(method: string, params: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * One keep-alive pool per target. Failures of the far side are data (a CallResult outcome);
 * only a refused address is thrown, before anything is sent.
 */
export function createJsonRpcClient(
  target: ProbeTarget,
  options: {
    connections: number;
    allowPrivateTargets: boolean;
    /** Fingerprint every result for the correctness check (off when the run compares nothing). */
    fingerprintResults?: boolean;
  },
): JsonRpcClient {
  const url = new URL(target.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // No DNS lookup happens for an IP literal, so the lookup guard never sees it: check it here.
  if (isIP(host) !== 0 && !isAddressAllowed(host, options.allowPrivateTargets)) {
    throw new OutboundAddressRefusedError(classifyAddress(host));
  }
  const connections = new Connections(url.origin, options.connections, {
    pipelining: 1,
    connect: { timeout: target.timeoutMs, lookup: guardedLookup(options.allowPrivateTargets) as never },
    headersTimeout: target.timeoutMs,
    bodyTimeout: target.timeoutMs,
    maxResponseSize: MAX_RESPONSE_BYTES,
    keepAliveTimeout: 30_000,
  });
  const path = `${url.pathname}${url.search}`;
  // Credentials in the URL's userinfo become Basic auth (the pool is keyed by origin, which drops
  // them); an explicit Authorization header wins.
  const basic = url.username || url.password
    ? { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` }
    : {};
  const headers = { 'content-type': 'application/json', ...basic, ...target.headers };
  const fingerprint = options.fingerprintResults !== false;

  return {
    call(planned, intendedStartMs) {
      const now = performance.now();
      const start = intendedStartMs !== undefined && intendedStartMs < now ? intendedStartMs : now;
      const body = JSON.stringify({ jsonrpc: '2.0', id: planned.seq, method: planned.method, params: planned.params });
      // No per-request AbortSignal: the connections' connect, headers and body timeouts bound the
      // call, and a signal per request cost a fifth of the probe's throughput.
      return new Promise((resolve, reject) => {
        connections.dispatch({ method: 'POST', path, headers, body }, new CallHandler(planned, start, fingerprint, resolve, reject));
      });
    },
    async result(method, params) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      const response = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        connections.dispatch({ method: 'POST', path, headers, body }, new TextHandler(resolve, reject));
      });
      const { outcome } = classifyResponse(response.status, response.text, method);
      // The message names the method and outcome only: never the URL, which may carry a key.
      if (outcome !== 'ok') throw new Error(`${method} failed: ${outcome}`);
      return (JSON.parse(response.text) as { result: unknown }).result;
    },
    close: () => connections.close(),
  };
}

type DispatchOptions = Parameters<Client['dispatch']>[0];

/**
 * Up to `size` keep-alive connections to one origin, one undici Client each, every one carrying
 * one request at a time; calls beyond `size` wait in order. A Pool does the same, but searches
 * its clients for a free one and emits drain events on every call: handing an idle Client
 * straight to the next call costs less (docs/performance.md).
 */
class Connections {
  private readonly all: Client[] = [];
  private readonly idle: Client[] = [];
  private readonly waiting: { options: DispatchOptions; handler: ResponseCollector }[] = [];
  private waitingHead = 0;
  private closed: Promise<void> | null = null;
  private drained: (() => void) | null = null;

  constructor(
    private readonly origin: string,
    private readonly size: number,
    private readonly clientOptions: Client.Options,
  ) {}

  dispatch(options: DispatchOptions, handler: ResponseCollector): void {
    if (this.closed !== null) return handler.onError(new errors.ClientClosedError());
    let client = this.idle.pop();
    if (client === undefined && this.all.length < this.size) {
      client = new Client(this.origin, this.clientOptions);
      this.all.push(client);
    }
    if (client === undefined) {
      this.waiting.push({ options, handler });
      return;
    }
    handler.start(this, client);
    client.dispatch(options, handler);
  }

  /** Called by a handler when its response is complete or failed: the next waiting call gets the client. */
  release(client: Client): void {
    if (this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead++]!;
      // A queue with a moving head; the taken front is dropped now and then, so an open loop
      // that keeps calls waiting for hours does not grow it without bound.
      if (this.waitingHead >= 1024 || this.waitingHead === this.waiting.length) {
        this.waiting.splice(0, this.waitingHead);
        this.waitingHead = 0;
      }
      next.handler.start(this, client);
      client.dispatch(next.options, next.handler);
      return;
    }
    this.idle.push(client);
    // Every client idle means nothing is in flight or waiting.
    if (this.drained !== null && this.idle.length === this.all.length) this.drained();
  }

  /** As a Pool's close: calls already made (in flight or waiting) finish first, new ones fail. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.idle.length < this.all.length) await new Promise<void>((resolve) => (this.drained = resolve));
      await Promise.all(this.all.map((client) => client.close()));
    })();
    return this.closed;
  }
}

/**
 * Gathers one response as raw chunks through undici's low-level dispatch, instead of through a
 * response stream and its promise machinery, and gives its client back when done. Classes rather
 * than objects of closures: this runs for every call, and per-call closures (named by the tsx
 * loader's keepNames on each creation) were a measurable share of the probe's CPU
 * (docs/performance.md). The classic handler interface: undici 7's Client still requires it.
 */
abstract class ResponseCollector {
  protected status = 0;
  private first: Buffer | null = null;
  private rest: Buffer[] | null = null;
  private connections: Connections | null = null;
  private client: Client | null = null;

  start(connections: Connections, client: Client): void {
    this.connections = connections;
    this.client = client;
  }

  onConnect(): void {}

  onHeaders(statusCode: number): boolean {
    this.status = statusCode;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.first === null) this.first = chunk;
    else (this.rest ??= []).push(chunk);
    return true;
  }

  onComplete(): void {
    this.releaseClient();
    const text = this.first === null ? '' : this.rest === null ? this.first.toString('utf8') : Buffer.concat([this.first, ...this.rest]).toString('utf8');
    this.complete(text);
  }

  onError(error: Error): void {
    this.releaseClient();
    this.fail(error);
  }

  protected abstract complete(text: string): void;
  protected abstract fail(error: Error): void;

  private releaseClient(): void {
    const { connections, client } = this;
    this.connections = null;
    this.client = null;
    if (connections !== null && client !== null) connections.release(client);
  }
}

/** The whole response of a result() call. */
class TextHandler extends ResponseCollector {
  constructor(
    private readonly resolve: (response: { status: number; text: string }) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    super();
  }

  protected complete(text: string): void {
    this.resolve({ status: this.status, text });
  }

  protected fail(error: Error): void {
    this.reject(error.cause instanceof OutboundAddressRefusedError ? error.cause : error);
  }
}

/** One probe call's response (or failure), as a CallResult. */
class CallHandler extends ResponseCollector {
  constructor(
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
    const latencyUs = this.latencyUs();
    const classified = classifyResponse(this.status, text, this.fingerprint ? this.planned.method : null);
    this.resolve({
      seq: this.planned.seq,
      method: this.planned.method,
      startedAt: this.startedAt(),
      latencyUs,
      outcome: classified.outcome,
      httpStatus: this.status,
      rpcErrorCode: classified.rpcErrorCode,
      responseHash: classified.responseHash,
    });
  }

  protected fail(error: Error): void {
    // Only a refused address is thrown (our policy, not the endpoint's failure); undici may wrap it.
    if (error instanceof OutboundAddressRefusedError) return this.reject(error);
    if (error.cause instanceof OutboundAddressRefusedError) return this.reject(error.cause);
    this.resolve({
      seq: this.planned.seq,
      method: this.planned.method,
      startedAt: this.startedAt(),
      latencyUs: this.latencyUs(),
      outcome: outcomeOfError(error),
      httpStatus: null,
      rpcErrorCode: null,
      responseHash: null,
    });
  }

  private latencyUs(): number {
    return Math.round((performance.now() - this.startMs) * 1000);
  }

  /** Wall-clock time of `startMs`. */
  private startedAt(): Date {
    return new Date(Date.now() - (performance.now() - this.startMs));
  }
}
