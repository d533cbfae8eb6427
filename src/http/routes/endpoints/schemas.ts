import { z } from 'zod';
import { TRANSPORTS } from '../../../domain/transport';
import { component, int, pageOf, timestamp, uuid, uuidParam } from '../shared/schemas';

export const endpointParams = uuidParam('endpointId');

/** An endpoint as services/endpoints.ts presentEndpoint returns it: its secrets redacted or left out. */
export const Endpoint = component(
  'Endpoint',
  z.object({
    id: uuid,
    chain_id: uuid,
    name: z.string(),
    url: z.string().describe('the http address, redacted: user info, every path segment and the query are shown as ****'),
    ws_url: z.string().nullable().describe('the ws address (the WebSocket URL, ws or wss), redacted like `url`; null when the endpoint has none'),
    addresses: z
      .array(z.object({ transport: z.enum(TRANSPORTS), url: z.string().describe('redacted like `url`') }))
      .describe('every address of the endpoint, one per transport, redacted; `url` and `ws_url` are views of its http and ws addresses'),
    protocol: z.literal('json-rpc-http'),
    header_names: z.array(z.string()).describe('names of the configured headers; their values are never returned'),
    timeout_ms: int,
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const EndpointPage = pageOf('EndpointPage', Endpoint);
