/**
 * How the service talks to an endpoint: the endpoint resource's `protocol`. Each one has exactly
 * one probe transport (src/probe/transports.ts), so adding a protocol is one entry there.
 */
export const ENDPOINT_PROTOCOLS = ['json-rpc-http'] as const;
export type EndpointProtocol = (typeof ENDPOINT_PROTOCOLS)[number];

export function isEndpointProtocol(value: string): value is EndpointProtocol {
  return (ENDPOINT_PROTOCOLS as readonly string[]).includes(value);
}
