import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { SampleOutcome } from '../db/samples';
import { classifyAddress, isAddressAllowed } from './address-guard';
import { classifyResponse } from './classify-response';
import { Http1Pool, type ResponseListener } from './http1-pool';
import type { HttpResponse } from './http1-response-parser';
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

function outcomeOfError(error: Error): SampleOutcome {
  switch ((error as { code?: unknown }).code) {
    case 'RVS_CONNECT_TIMEOUT':
    case 'RVS_HEADERS_TIMEOUT':
    case 'RVS_BODY_TIMEOUT':
      return 'timeout';
    case 'RVS_RESPONSE_TOO_LARGE':
    case 'RVS_INVALID_HTTP':
      return 'invalid_response';
    default:
      // Refused, reset, closed early, DNS failures, TLS failures: the endpoint could not be reached.
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

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;
/** Set by the client itself: an endpoint cannot override them (the endpoints API refuses them too). */
export const CLIENT_SET_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection']);

/**
 * The constant part of every request: request line and headers up to the Content-Length value.
 * Credentials in the URL's userinfo become Basic auth; an explicit Authorization header wins.
 */
function requestHead(url: URL, headers: Record<string, string>): string {
  const lines: Record<string, string> = { 'user-agent': 'run-verification-service' };
  if (url.username || url.password) {
    lines.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  }
  for (const [name, value] of Object.entries(headers)) {
    // The messages name the header, never its value: values are secrets (API keys).
    if (!HEADER_NAME.test(name)) throw new Error(`invalid header name ${JSON.stringify(name)}`);
    if (CLIENT_SET_HEADERS.has(name.toLowerCase())) throw new Error(`header ${name} is set by the service`);
    if (!HEADER_VALUE.test(value)) throw new Error(`invalid value of header ${name}`);
    lines[name.toLowerCase()] = value;
  }
  const fields = Object.entries(lines).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n${fields}content-length: `;
}

/**
 * One keep-alive connection pool per target (Http1Pool). Failures of the far side are data (a
 * CallResult outcome); only a refused address is thrown, before anything is sent.
 */
export function createJsonRpcClient(
  target: ProbeTarget,
  options: {
    connections: number;
    allowPrivateTargets: boolean;
    /** Fingerprint every result for the correctness check (off when the run compares nothing). */
    fingerprintResults?: boolean;
    /** Extra certificate authority to trust for https (tests, private PKI). */
    ca?: string;
  },
): JsonRpcClient {
  const url = new URL(target.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // No DNS lookup happens for an IP literal, so the lookup guard never sees it: check it here.
  if (isIP(host) !== 0 && !isAddressAllowed(host, options.allowPrivateTargets)) {
    throw new OutboundAddressRefusedError(classifyAddress(host));
  }
  const pool = new Http1Pool({
    origin: url,
    size: options.connections,
    timeoutMs: target.timeoutMs,
    maxResponseBytes: MAX_RESPONSE_BYTES,
    lookup: guardedLookup(options.allowPrivateTargets) as LookupFunction,
    ca: options.ca,
  });
  const head = requestHead(url, target.headers);
  const fingerprint = options.fingerprintResults !== false;
  const request = (body: string) => `${head}${Buffer.byteLength(body)}\r\n\r\n${body}`;

  return {
    call(planned, intendedStartMs) {
      const now = performance.now();
      const start = intendedStartMs !== undefined && intendedStartMs < now ? intendedStartMs : now;
      const body = JSON.stringify({ jsonrpc: '2.0', id: planned.seq, method: planned.method, params: planned.params });
      return new Promise((resolve, reject) => {
        pool.send(request(body), new CallHandler(planned, start, fingerprint, resolve, reject));
      });
    },
    async result(method, params) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      const response = await new Promise<HttpResponse | SampleOutcome>((resolve, reject) => {
        pool.send(request(body), {
          onResponse: resolve,
          onError: (error) => (error instanceof OutboundAddressRefusedError ? reject(error) : resolve(outcomeOfError(error))),
        });
      });
      const text = typeof response === 'string' ? '' : response.body.toString('utf8');
      const outcome = typeof response === 'string' ? response : classifyResponse(response.status, text, method).outcome;
      // The message names the method and outcome only: never the URL or a socket error's host,
      // which may carry a key.
      if (outcome !== 'ok') throw new Error(`${method} failed: ${outcome}`);
      return (JSON.parse(text) as { result: unknown }).result;
    },
    close: () => pool.close(),
  };
}

/**
 * Turns one probe call's response (or failure) into a CallResult. A class rather than an object
 * of closures: this runs for every call, and per-call closures (named by the tsx loader's
 * keepNames on each creation) were a measurable share of the probe's CPU (docs/performance.md).
 */
class CallHandler implements ResponseListener {
  constructor(
    private readonly planned: PlannedCall,
    /** performance.now() time the latency counts from. */
    private readonly startMs: number,
    private readonly fingerprint: boolean,
    private readonly resolve: (result: CallResult) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  onResponse(response: HttpResponse): void {
    const latencyUs = this.latencyUs();
    const classified = classifyResponse(response.status, response.body.toString('utf8'), this.fingerprint ? this.planned.method : null);
    this.resolve({
      seq: this.planned.seq,
      method: this.planned.method,
      startedAt: this.startedAt(),
      latencyUs,
      outcome: classified.outcome,
      httpStatus: response.status,
      rpcErrorCode: classified.rpcErrorCode,
      responseHash: classified.responseHash,
    });
  }

  onError(error: Error): void {
    // Only a refused address is thrown: our policy, not the endpoint's failure.
    if (error instanceof OutboundAddressRefusedError) return this.reject(error);
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
