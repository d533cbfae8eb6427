import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { ChainAdapter } from '../src/chains/types';
import type { SecretBox } from '../src/crypto/secret-box';
import { addressOf, type EndpointRow } from '../src/db/endpoints';
import { OutboundAddressRefusedError } from '../src/net/guarded-lookup';
import type { JsonRpcClient } from '../src/probe/json-rpc-client';
import type { WorkloadTransport } from '../src/domain/suite-config';
import { addressName, isTransport, type Transport } from '../src/domain/transport';
import { BatchUnsupportedError, MissingAddressError, transportFor, UnknownProtocolError } from '../src/probe/transports';

/**
 * A refused address is final (retrying cannot help) and its message names no URL; a loopback or
 * private one names the setting that would allow it.
 */
export function asActivityFailure(error: unknown, endpointName: string): unknown {
  if (error instanceof UnknownProtocolError) {
    return ApplicationFailure.nonRetryable(`endpoint ${endpointName}: ${error.message}`, 'UnknownEndpointProtocol');
  }
  if (error instanceof MissingAddressError) {
    return ApplicationFailure.nonRetryable(`endpoint ${endpointName}: ${error.message}`, missingAddressType(error.transport));
  }
  if (error instanceof BatchUnsupportedError) {
    return ApplicationFailure.nonRetryable(`endpoint ${endpointName}: ${error.message}`, 'BatchUnsupported');
  }
  if (!(error instanceof OutboundAddressRefusedError)) return error;
  const hint = error.kind === 'loopback' || error.kind === 'private' ? ' (RVS_ALLOW_PRIVATE_TARGETS is off)' : '';
  return ApplicationFailure.nonRetryable(`endpoint ${endpointName}: ${error.message}${hint}`, 'OutboundAddressRefused');
}

/** The failure type of a missing address, named after its API field: EndpointHasNoWsUrl for ws_url. */
const missingAddressType = (transport: Transport): string =>
  `EndpointHasNo${addressName(transport).replace(/(?:^|[_ ])(\w)/g, (_, c: string) => c.toUpperCase())}`;

/**
 * Identifies the values a client of this endpoint is built from (the address of the workload's
 * transport, and the headers): a PATCH of either encrypts it afresh, so the version changes, and
 * the client cache opens a new client. Editing the name, or an address of another transport,
 * keeps the warm pool. Hashed, so no ciphertext is kept as a map key.
 */
export function endpointClientVersion(
  endpoint: Pick<EndpointRow, 'addresses' | 'headers_encrypted'>,
  transport: WorkloadTransport = 'http',
): string {
  return createHash('sha256')
    .update(transport)
    .update('\0')
    .update(addressOf(endpoint, transport)?.url_encrypted ?? '')
    .update('\0')
    .update(endpoint.headers_encrypted ?? '')
    .digest('base64url');
}

/**
 * The endpoint's secrets in clear: decrypted only in the worker, right before a connection uses
 * them (the probe client here, the freshness watch's head watches).
 */
export function decryptEndpoint(
  box: SecretBox,
  endpoint: EndpointRow,
): { addresses: Partial<Record<Transport, string>>; headers: Record<string, string> } {
  const addresses: Partial<Record<Transport, string>> = {};
  // An address of a transport this worker does not know (a newer version wrote it) is left encrypted.
  for (const address of endpoint.addresses) if (isTransport(address.transport)) addresses[address.transport] = box.decrypt(address.url_encrypted);
  return {
    addresses,
    headers: endpoint.headers_encrypted ? (JSON.parse(box.decrypt(endpoint.headers_encrypted)) as Record<string, string>) : {},
  };
}

/** Sent with every call of a run with vantage_points: the region of the worker that sent it. */
export const VANTAGE_HEADER = 'x-rvs-vantage';

/** Opens a client to the endpoint through the transport of its protocol and the workload's transport. */
export function openEndpointClient(
  deps: { box: SecretBox; allowPrivateTargets: boolean },
  endpoint: EndpointRow,
  options: {
    timeoutMs: number;
    connections: number;
    chain: ChainAdapter;
    fingerprintResults?: boolean;
    transport?: WorkloadTransport;
    batchSize?: number;
    /** A vantage point's probe says where it comes from (VANTAGE_HEADER), so the endpoint's operator can tell regions apart. */
    vantage?: string;
  },
): JsonRpcClient {
  try {
    const open = transportFor(endpoint.protocol, options.transport);
    const decrypted = decryptEndpoint(deps.box, endpoint);
    const headers = options.vantage === undefined ? decrypted.headers : { ...decrypted.headers, [VANTAGE_HEADER]: options.vantage };
    return open(
      { ...decrypted, headers, timeoutMs: options.timeoutMs },
      {
        connections: options.connections,
        allowPrivateTargets: deps.allowPrivateTargets,
        answers: options.chain,
        fingerprintResults: options.fingerprintResults,
        batchSize: options.batchSize,
      },
    );
  } catch (error) {
    throw asActivityFailure(error, endpoint.name);
  }
}
