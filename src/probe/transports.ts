import type { ChainAdapter } from '../chains/types';
import { isEndpointProtocol, type EndpointProtocol } from '../domain/endpoint-protocol';
import type { WorkloadTransport } from '../domain/suite-config';
import type { AnswerRules } from './classify-response';
import { createBatchClient } from './batch-client';
import { createJsonRpcClient, type JsonRpcClient, type ProbeTarget } from './json-rpc-client';
import { createWsCallClient } from './ws-call-client';
import { pollHeads, watchHeads, type HeadWatch } from './watch-heads';

/** What opening a probe client needs besides the target itself. */
export interface TransportOptions {
  connections: number;
  allowPrivateTargets: boolean;
  /** The chain family's answer envelope and comparison rules (its ChainAdapter). */
  answers: AnswerRules;
  /** Fingerprint every result for the correctness check (off when the run compares nothing). */
  fingerprintResults?: boolean;
  /** Calls per JSON-RPC batch over HTTP (1 or absent: none); JSON-RPC 2.0 envelopes only. */
  batchSize?: number;
}

/** A target as a transport needs it: both of the endpoint's URLs (secrets: never logged). */
export interface TransportTarget extends ProbeTarget {
  /** ws:// or wss://; null when the endpoint has none. */
  wsUrl?: string | null;
}

/**
 * Opens a client to one target. Every transport connects through the outbound guard (src/net/)
 * and throws OutboundAddressRefusedError, before anything is sent, for an address it refuses.
 */
export type OpenTransport = (target: TransportTarget, options: TransportOptions) => JsonRpcClient;

/** The workload's `transport: "ws"` was given an endpoint without a ws_url (edited since the trigger checked). */
export class MissingWsUrlError extends Error {
  constructor() {
    super('the endpoint has no ws_url, and the workload\'s transport is ws');
    this.name = 'MissingWsUrlError';
  }
}

/** workload.batch_size > 1 for a chain family whose envelope has no batches (JSON-RPC 1.0). */
export class BatchUnsupportedError extends Error {
  constructor() {
    super('the chain family\'s JSON-RPC envelope has no batches, and the workload\'s batch_size is above 1');
    this.name = 'BatchUnsupportedError';
  }
}

/**
 * One client per endpoint protocol and workload transport: the compiler makes a new protocol
 * register each. Both give the probe engine the same JsonRpcClient, so it never knows which.
 */
const TRANSPORTS: Record<EndpointProtocol, Record<WorkloadTransport, OpenTransport>> = {
  'json-rpc-http': {
    http: (target, options) => {
      if ((options.batchSize ?? 1) <= 1) return createJsonRpcClient(target, options);
      // Suites refuse batches for other envelopes; a snapshot that slipped past is refused here.
      if (options.answers.envelope !== 'json-rpc-2.0') throw new BatchUnsupportedError();
      return createBatchClient(createJsonRpcClient(target, options), { batchSize: options.batchSize!, answers: options.answers, fingerprintResults: options.fingerprintResults });
    },
    ws: ({ wsUrl, headers, timeoutMs }, options) => {
      if (wsUrl === undefined || wsUrl === null) throw new MissingWsUrlError();
      return createWsCallClient({ url: wsUrl, headers, timeoutMs }, options);
    },
  },
};

/** The endpoint's protocol names a transport this service does not have (a row written by a newer version). */
export class UnknownProtocolError extends Error {
  constructor(readonly protocol: string) {
    super(`endpoint protocol ${JSON.stringify(protocol)} is not supported by this worker`);
    this.name = 'UnknownProtocolError';
  }
}

/**
 * The transport for an endpoint's stored `protocol` (a text column: checked here, not trusted) and
 * the workload's transport (HTTP unless it says ws).
 */
export function transportFor(protocol: string, transport: WorkloadTransport = 'http'): OpenTransport {
  if (!isEndpointProtocol(protocol)) throw new UnknownProtocolError(protocol);
  return TRANSPORTS[protocol][transport];
}

/** How a head watch hears of new heads: pushed over the endpoint's WebSocket, or asked for over HTTP. */
export type HeadWatchVia = 'subscribe' | 'poll';

/** An endpoint as a head watch needs it: both URLs decrypted (secrets: never logged). */
export interface HeadWatchEndpoint {
  protocol: string;
  url: string;
  /** ws:// or wss://; null when the endpoint has none. */
  wsUrl: string | null;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** `subscribe` was asked of an endpoint without a WebSocket URL, or of a family without a head subscription. */
export class HeadWatchUnavailableError extends Error {
  constructor(readonly missing: 'ws_url' | 'head_subscription') {
    super(missing === 'ws_url' ? 'the endpoint has no ws_url to subscribe over' : 'the chain family has no head subscription');
    this.name = 'HeadWatchUnavailableError';
  }
}

export interface HeadWatchOptions {
  via: HeadWatchVia;
  /** Poll only. */
  pollIntervalMs: number;
  allowPrivateTargets: boolean;
  signal: AbortSignal;
}

/**
 * Starts watching one endpoint's head: `subscribe` over its ws_url with the family's head
 * subscription, `poll` with the family's head read over the transport of its `protocol` (closed
 * when the watch stops). Both connect through the outbound guard.
 */
export function openHeadWatch(
  endpoint: HeadWatchEndpoint,
  chain: AnswerRules & Pick<ChainAdapter, 'head' | 'headSubscription'>,
  options: HeadWatchOptions,
): HeadWatch {
  if (options.via === 'subscribe') {
    if (endpoint.wsUrl === null) throw new HeadWatchUnavailableError('ws_url');
    if (chain.headSubscription === undefined) throw new HeadWatchUnavailableError('head_subscription');
    return watchHeads({
      target: { url: endpoint.wsUrl, headers: endpoint.headers, timeoutMs: endpoint.timeoutMs },
      subscription: chain.headSubscription,
      envelope: chain.envelope,
      allowPrivateTargets: options.allowPrivateTargets,
      signal: options.signal,
    });
  }
  const client = transportFor(endpoint.protocol)(
    { url: endpoint.url, headers: endpoint.headers, timeoutMs: endpoint.timeoutMs },
    { connections: 1, allowPrivateTargets: options.allowPrivateTargets, answers: chain, fingerprintResults: false },
  );
  const watch = pollHeads({ read: (method, params) => client.result(method, params), head: chain.head, intervalMs: options.pollIntervalMs, signal: options.signal });
  const done = watch.done.finally(() => client.close());
  return { get stats() { return watch.stats; }, done, [Symbol.asyncIterator]: () => watch[Symbol.asyncIterator]() };
}
