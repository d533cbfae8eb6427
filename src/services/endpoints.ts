import { z } from 'zod';
import { findChain } from '../db/chains';
import { findEndpoint, insertEndpoint, listEndpoints as listEndpointRows, type EndpointRow } from '../db/endpoints';
import { redactUrl } from '../domain/redact-url';
import { notFound, validationError } from '../errors';
import { page, type Page } from '../http/validate';
import { isAlwaysRefusedHost } from '../probe/address-guard';
import { assertSameTenant, type Ctx } from './context';

// Header names a caller may not set: they would break or smuggle the JSON-RPC request.
const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection']);

export const createEndpointInput = z.strictObject({
  chain_id: z.uuid(),
  name: z.string().trim().min(1).max(200),
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(2048)
    .refine((url) => !isAlwaysRefusedHost(new URL(url).hostname), 'link-local and reserved addresses are never probed'),
  protocol: z.literal('json-rpc-http').default('json-rpc-http'),
  headers: z
    .record(
      z
        .string()
        .min(1)
        .max(100)
        .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name')
        .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), 'this header is set by the service'),
      z.string().max(4096).regex(/^[^\r\n]*$/, 'must not contain line breaks'),
    )
    .refine((headers) => Object.keys(headers).length <= 20, 'at most 20 headers')
    .default({}),
  timeout_ms: z.number().int().min(100).max(60_000).default(10_000),
});

export interface EndpointResponse {
  id: string;
  chain_id: string;
  name: string;
  url: string;
  protocol: string;
  header_names: string[];
  timeout_ms: number;
  created_at: Date;
  updated_at: Date;
}

/** Secrets never leave: the URL is shown redacted and header values not at all. */
export function presentEndpoint(row: EndpointRow): EndpointResponse {
  return {
    id: row.id,
    chain_id: row.chain_id,
    name: row.name,
    url: row.url_redacted,
    protocol: row.protocol,
    header_names: row.header_names,
    timeout_ms: row.timeout_ms,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function createEndpoint({ ctx, input }: { ctx: Ctx; input: z.infer<typeof createEndpointInput> }) {
  const chain = await findChain(ctx.deps.sql, input.chain_id);
  if (!chain || chain.tenant_id !== ctx.principal.tenantId) {
    throw validationError([{ field: 'chain_id', message: 'no such chain in your tenant' }]);
  }
  const headerNames = Object.keys(input.headers);
  const row = await insertEndpoint(ctx.deps.sql, {
    tenantId: ctx.principal.tenantId,
    chainId: chain.id,
    name: input.name,
    protocol: input.protocol,
    urlRedacted: redactUrl(input.url),
    urlEncrypted: ctx.deps.box.encrypt(input.url),
    headerNames,
    headersEncrypted: headerNames.length > 0 ? ctx.deps.box.encrypt(JSON.stringify(input.headers)) : null,
    timeoutMs: input.timeout_ms,
  });
  return presentEndpoint(row);
}

export async function getEndpoint({ ctx, input }: { ctx: Ctx; input: { endpointId: string } }) {
  const row = await findEndpoint(ctx.deps.sql, input.endpointId);
  if (!row) throw notFound('endpoint');
  assertSameTenant(ctx, row);
  return presentEndpoint(row);
}

export async function listEndpoints({ ctx, input }: { ctx: Ctx; input: { limit: number; offset: number } }): Promise<Page<EndpointResponse>> {
  const { rows, total } = await listEndpointRows(ctx.deps.sql, ctx.principal.tenantId, input);
  return page(rows.map(presentEndpoint), total, input.limit, input.offset);
}
