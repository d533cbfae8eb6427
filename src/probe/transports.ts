import { isEndpointProtocol, type EndpointProtocol } from '../domain/endpoint-protocol';
import type { AnswerRules } from './classify-response';
import { createJsonRpcClient, type JsonRpcClient, type ProbeTarget } from './json-rpc-client';

/** What opening a probe client needs besides the target itself. */
export interface TransportOptions {
  connections: number;
  allowPrivateTargets: boolean;
  /** The chain family's answer envelope and comparison rules (its ChainAdapter). */
  answers: AnswerRules;
  /** Fingerprint every result for the correctness check (off when the run compares nothing). */
  fingerprintResults?: boolean;
}

/**
 * Opens a client to one target. Every transport connects through the outbound guard (src/net/)
 * and throws OutboundAddressRefusedError, before anything is sent, for an address it refuses.
 */
export type OpenTransport = (target: ProbeTarget, options: TransportOptions) => JsonRpcClient;

/** One transport per endpoint protocol: the compiler makes a new protocol register its own. */
const TRANSPORTS: Record<EndpointProtocol, OpenTransport> = {
  'json-rpc-http': (target, options) => createJsonRpcClient(target, options),
};

/** The endpoint's protocol names a transport this service does not have (a row written by a newer version). */
export class UnknownProtocolError extends Error {
  constructor(readonly protocol: string) {
    super(`endpoint protocol ${JSON.stringify(protocol)} is not supported by this worker`);
    this.name = 'UnknownProtocolError';
  }
}

/** The transport for an endpoint's stored `protocol` (a text column: checked here, not trusted). */
export function transportFor(protocol: string): OpenTransport {
  if (!isEndpointProtocol(protocol)) throw new UnknownProtocolError(protocol);
  return TRANSPORTS[protocol];
}
