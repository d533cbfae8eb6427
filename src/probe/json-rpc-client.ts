import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Pool } from 'undici';
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
   * Sends one call. `intendedStartNs` (process.hrtime.bigint() time) is when an open-loop schedule
   * meant to send it: latency counts from then, so a stalled endpoint cannot hide its stall.
   */
  call(planned: PlannedCall, intendedStartNs?: bigint): Promise<CallResult>;
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
  const pool = new Pool(url.origin, {
    connections: options.connections,
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

  /**
   * One POST through the pool's low-level dispatch: the body is gathered as raw chunks instead of
   * through a response stream and its promise machinery, which is most of undici's per-request
   * cost on the hot path (docs/performance.md). Timeouts and the size cap are the pool's.
   */
  const post = (body: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      let status = 0;
      const chunks: Buffer[] = [];
      pool.dispatch(
        { method: 'POST', path, headers, body },
        // The classic handler interface: undici 7's Pool/Client still require it for dispatch.
        {
          onConnect: () => undefined,
          onHeaders: (statusCode) => {
            status = statusCode;
            return true;
          },
          onData: (chunk) => {
            chunks.push(chunk);
            return true;
          },
          onComplete: () =>
            resolve({ status, text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8') }),
          onError: (error) => reject(error),
        },
      );
    });

  return {
    async call(planned, intendedStartNs) {
      const now = process.hrtime.bigint();
      const start = intendedStartNs !== undefined && intendedStartNs < now ? intendedStartNs : now;
      const startedAt = new Date(Date.now() - Number((now - start) / 1_000_000n));
      const elapsedUs = () => Number((process.hrtime.bigint() - start) / 1000n);
      const body = JSON.stringify({ jsonrpc: '2.0', id: planned.seq, method: planned.method, params: planned.params });
      try {
        // No per-request AbortSignal: the pool's connect, headers and body timeouts bound the
        // call, and a signal per request cost a fifth of the probe's throughput.
        const response = await post(body);
        const latencyUs = elapsedUs();
        const classified = classifyResponse(
          response.status,
          response.text,
          options.fingerprintResults === false ? null : planned.method,
        );
        return { seq: planned.seq, method: planned.method, startedAt, latencyUs, httpStatus: response.status, ...classified };
      } catch (error) {
        if (error instanceof OutboundAddressRefusedError || (error as Error).cause instanceof OutboundAddressRefusedError) {
          throw error instanceof OutboundAddressRefusedError ? error : (error as Error).cause;
        }
        return {
          seq: planned.seq,
          method: planned.method,
          startedAt,
          latencyUs: elapsedUs(),
          outcome: outcomeOfError(error),
          httpStatus: null,
          rpcErrorCode: null,
          responseHash: null,
        };
      }
    },
    async result(method, params) {
      const response = await pool.request({
        method: 'POST',
        path,
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal: AbortSignal.timeout(target.timeoutMs),
      });
      const text = await response.body.text();
      const { outcome } = classifyResponse(response.statusCode, text, method);
      // The message names the method and outcome only: never the URL, which may carry a key.
      if (outcome !== 'ok') throw new Error(`${method} failed: ${outcome}`);
      return (JSON.parse(text) as { result: unknown }).result;
    },
    async close() {
      await pool.close();
    },
  };
}
