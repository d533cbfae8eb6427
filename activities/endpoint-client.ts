import { ApplicationFailure } from '@temporalio/activity';
import type { SecretBox } from '../src/crypto/secret-box';
import type { EndpointRow } from '../src/db/endpoints';
import { createJsonRpcClient, OutboundAddressRefusedError, type JsonRpcClient } from '../src/probe/json-rpc-client';

/** A refused address is final (retrying cannot help) and its message names no URL. */
export function asActivityFailure(error: unknown, endpointName: string): unknown {
  return error instanceof OutboundAddressRefusedError
    ? ApplicationFailure.nonRetryable(`endpoint ${endpointName}: ${error.message}`, 'OutboundAddressRefused')
    : error;
}

/** Decrypts the endpoint's URL and headers only here, in the worker, right before use. */
export function openEndpointClient(
  deps: { box: SecretBox; allowPrivateTargets: boolean },
  endpoint: EndpointRow,
  options: { timeoutMs: number; connections: number; fingerprintResults?: boolean },
): JsonRpcClient {
  const headers = endpoint.headers_encrypted
    ? (JSON.parse(deps.box.decrypt(endpoint.headers_encrypted)) as Record<string, string>)
    : {};
  try {
    return createJsonRpcClient(
      { url: deps.box.decrypt(endpoint.url_encrypted), headers, timeoutMs: options.timeoutMs },
      {
        connections: options.connections,
        allowPrivateTargets: deps.allowPrivateTargets,
        fingerprintResults: options.fingerprintResults,
      },
    );
  } catch (error) {
    throw asActivityFailure(error, endpoint.name);
  }
}
