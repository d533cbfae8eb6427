import type { ChainAdapter } from '../chains/types';
import { isEndpointProtocol, type EndpointProtocol } from '../domain/endpoint-protocol';
import { addressName, headWatchTransport, TRANSPORT_REGISTRY, type HeadWatchVia, type Transport } from '../domain/transport';
import type { AnswerRules } from './classify-response';
import { createBatchClient } from './batch-client';
import { createJsonRpcClient, type JsonRpcClient, type ProbeTarget } from './json-rpc-client';
import { createWsCallClient } from './ws-call-client';
import { pollHeads, watchHeads, type HeadWatch } from './watch-heads';

export type { HeadWatchVia } from '../domain/transport';

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

/** A target as a transport needs it: the endpoint's address per transport (secrets: never logged). */
export interface TransportTarget {
  /** The endpoint's URL for each transport it has an address for. */
  addresses: Partial<Record<Transport, string>>;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * Opens a client to one target. Every transport connects through the outbound guard (src/net/)
 * and throws OutboundAddressRefusedError, before anything is sent, for an address it refuses.
 */
export type OpenTransport = (target: TransportTarget, options: TransportOptions) => JsonRpcClient;

/** The workload's transport names an address the endpoint does not have (edited since the trigger checked). */
export class MissingAddressError extends Error {
  constructor(readonly transport: Transport) {
    super(`the endpoint has no ${addressName(transport)}, and the workload's transport is ${transport}`);
    this.name = 'MissingAddressError';
  }
}

/** workload.batch_size > 1 for a chain family whose envelope has no batches (JSON-RPC 1.0). */
export class BatchUnsupportedError extends Error {
  constructor() {
    super('the chain family\'s JSON-RPC envelope has no batches, and the workload\'s batch_size is above 1');
    this.name = 'BatchUnsupportedError';
  }
}

/** The chain family's rules a head watch reads heads by. */
export type HeadWatchChain = AnswerRules & Pick<ChainAdapter, 'head' | 'headSubscription'>;

export interface HeadWatchOptions {
  via: HeadWatchVia;
  /** Poll only. */
  pollIntervalMs: number;
  allowPrivateTargets: boolean;
  signal: AbortSignal;
}

/** What one transport of an endpoint protocol brings: its call client and its way of watching heads. */
interface TransportEntry {
  /** A call client over one address of this transport. */
  open(target: ProbeTarget, options: TransportOptions): JsonRpcClient;
  /** A head watch over one address of this transport, the way its registry entry says (TRANSPORT_REGISTRY.headWatch). */
  watchHeads(target: ProbeTarget, chain: HeadWatchChain, options: HeadWatchOptions): HeadWatch;
}

const openHttp = (target: ProbeTarget, options: TransportOptions): JsonRpcClient => {
  if ((options.batchSize ?? 1) <= 1) return createJsonRpcClient(target, options);
  // Suites refuse batches for other envelopes; a snapshot that slipped past is refused here.
  if (options.answers.envelope !== 'json-rpc-2.0') throw new BatchUnsupportedError();
  return createBatchClient(createJsonRpcClient(target, options), { batchSize: options.batchSize!, answers: options.answers, fingerprintResults: options.fingerprintResults });
};

/**
 * One entry per endpoint protocol and transport: the compiler makes a new protocol or a new
 * transport (src/domain/transport.ts) fill in both. Every client is the same JsonRpcClient, so the
 * probe engine never knows which one it drives.
 */
const TRANSPORTS: Record<EndpointProtocol, Record<Transport, TransportEntry>> = {
  'json-rpc-http': {
    http: {
      open: openHttp,
      // The family's head read, asked for every interval over one connection (closed when the watch stops).
      watchHeads(target, chain, options) {
        const client = openHttp(target, { connections: 1, allowPrivateTargets: options.allowPrivateTargets, answers: chain, fingerprintResults: false });
        const watch = pollHeads({ read: (method, params) => client.result(method, params), head: chain.head, intervalMs: options.pollIntervalMs, signal: options.signal });
        const done = watch.done.finally(() => client.close());
        return { get stats() { return watch.stats; }, done, [Symbol.asyncIterator]: () => watch[Symbol.asyncIterator]() };
      },
    },
    ws: {
      open: (target, options) => createWsCallClient(target, options),
      // The family's head subscription, pushed over the socket.
      watchHeads(target, chain, options) {
        if (chain.headSubscription === undefined) throw new HeadWatchUnavailableError('head_subscription');
        return watchHeads({
          target,
          subscription: chain.headSubscription,
          envelope: chain.envelope,
          allowPrivateTargets: options.allowPrivateTargets,
          signal: options.signal,
        });
      },
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

function entriesOf(protocol: string): Record<Transport, TransportEntry> {
  if (!isEndpointProtocol(protocol)) throw new UnknownProtocolError(protocol);
  return TRANSPORTS[protocol];
}

/**
 * The client opener for an endpoint's stored `protocol` (a text column: checked here, not trusted)
 * and the workload's transport (HTTP unless it says otherwise): it connects to the endpoint's
 * address of that transport, and throws MissingAddressError when the endpoint has none.
 */
export function transportFor(protocol: string, transport: Transport = 'http'): OpenTransport {
  const entry = entriesOf(protocol)[transport];
  return ({ addresses, headers, timeoutMs }, options) => {
    const url = addresses[transport];
    if (url === undefined) throw new MissingAddressError(transport);
    return entry.open({ url, headers, timeoutMs }, options);
  };
}

/** An endpoint as a head watch needs it: its addresses decrypted (secrets: never logged). */
export interface HeadWatchEndpoint extends TransportTarget {
  protocol: string;
}

/** The endpoint has no address of the transport the watch's `via` runs over, or the family no head subscription. */
export class HeadWatchUnavailableError extends Error {
  constructor(readonly missing: Transport | 'head_subscription') {
    super(missing === 'head_subscription' ? 'the chain family has no head subscription' : `the endpoint has no ${addressName(missing)} to ${headWatchVerb(missing)} over`);
    this.name = 'HeadWatchUnavailableError';
  }
}

const headWatchVerb = (transport: Transport): HeadWatchVia => TRANSPORT_REGISTRY[transport].headWatch;

/**
 * Starts watching one endpoint's head the way `via` says, over the transport whose registry entry
 * watches that way (subscribe: WebSocket, poll: HTTP) and the endpoint's address of it. Every
 * watch connects through the outbound guard.
 */
export function openHeadWatch(endpoint: HeadWatchEndpoint, chain: HeadWatchChain, options: HeadWatchOptions): HeadWatch {
  const transport = headWatchTransport(options.via);
  const entry = entriesOf(endpoint.protocol)[transport];
  const url = endpoint.addresses[transport];
  if (url === undefined) throw new HeadWatchUnavailableError(transport);
  return entry.watchHeads({ url, headers: endpoint.headers, timeoutMs: endpoint.timeoutMs }, chain, options);
}
