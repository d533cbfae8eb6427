import { z } from 'zod';
import { findChain } from '../db/chains';
import {
  deleteEndpoint as deleteEndpointRow,
  endpointReferences,
  findEndpoint,
  insertEndpoint,
  listEndpoints as listEndpointRows,
  updateEndpoint,
  type EndpointRow,
} from '../db/endpoints';
import { onForeignKeyViolation } from '../db/pg-errors';
import { HEADER_NAME, isClientSetHeader, isValidHeaderValue } from '../domain/http-fields';
import { ENDPOINT_PROTOCOLS, type EndpointProtocol } from '../domain/endpoint-protocol';
import { redactUrl } from '../domain/redact-url';
import { conflict, notFound, validationError } from '../errors';
import { page, type Page } from './pagination';
import { isAlwaysRefusedHost } from '../net/address-guard';
import { countOf } from './chains';
import type { Ctx } from './context';
import { loadOwned } from './load-owned';
import { storedMember } from './stored-vocabulary';
import { privateAddressRefusal, userinfoDecodes, USERINFO_MESSAGE } from './outbound-url';
import { displayName } from '../domain/display-name';

/** An outbound URL of the given schemes under the rules every probe connection applies. */
const outboundUrl = (protocol: RegExp, error: string) =>
  z
    .url({ protocol, error })
    .max(2048)
    // Refinements run even when the URL check above failed: only look at the host of a real URL.
    .refine((url) => !URL.canParse(url) || !isAlwaysRefusedHost(new URL(url).hostname), 'link-local and reserved addresses are never probed')
    .refine(userinfoDecodes, USERINFO_MESSAGE);

/** Endpoint fields without defaults, so PATCH can leave them out (a trigger's per-run targets use them too). */
export const endpointFields = {
  name: displayName,
  url: outboundUrl(/^https?$/, 'must be an http or https URL'),
  /** Where the endpoint's WebSocket server listens (head subscriptions); a secret like url. */
  ws_url: outboundUrl(/^wss?$/, 'must be a ws or wss URL'),
  // The probe client sends these headers under the same rule (domain/http-fields.ts): a header
  // accepted here can never be refused at run time, failing every run. Values are secrets, so
  // the messages name the header and never repeat the value.
  headers: z
    .record(
      z
        .string()
        .min(1)
        .max(100)
        .regex(HEADER_NAME, 'must be an HTTP header name')
        // Set by the probe client: a caller's value would break or smuggle the JSON-RPC request.
        .refine((name) => !isClientSetHeader(name), 'this header is set by the service'),
      z
        .string()
        .max(4096)
        .refine(
          isValidHeaderValue,
          'must be an HTTP header value: visible characters, with spaces or tabs only between them (no control characters)',
        ),
    )
    .refine((headers) => Object.keys(headers).length <= 20, 'at most 20 headers'),
  timeout_ms: z.number().int().min(100).max(60_000),
};

export const createEndpointInput = z.strictObject({
  chain_id: z.uuid(),
  name: endpointFields.name,
  url: endpointFields.url,
  ws_url: endpointFields.ws_url.optional(),
  protocol: z.literal('json-rpc-http').default('json-rpc-http'),
  headers: endpointFields.headers.default({}),
  timeout_ms: endpointFields.timeout_ms.default(10_000),
});

/**
 * The chain is fixed (suites on that chain name the endpoint); `headers` replaces every header
 * value at once, since the old values are never shown and cannot be edited one by one.
 */
export const patchEndpointInput = z
  .strictObject({
    name: endpointFields.name.optional(),
    url: endpointFields.url.optional(),
    /** null removes the WebSocket URL. */
    ws_url: endpointFields.ws_url.nullable().optional(),
    headers: endpointFields.headers.optional(),
    timeout_ms: endpointFields.timeout_ms.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change');

export interface EndpointResponse {
  id: string;
  chain_id: string;
  name: string;
  url: string;
  ws_url: string | null;
  protocol: EndpointProtocol;
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
    ws_url: row.ws_url_redacted,
    protocol: storedMember(ENDPOINT_PROTOCOLS, row.protocol, 'endpoints.protocol'),
    header_names: row.header_names,
    timeout_ms: row.timeout_ms,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Loopback and private addresses depend on the deployment (RVS_ALLOW_PRIVATE_TARGETS), so the
 * static schema cannot refuse them: an IP literal or localhost name the probes would refuse is
 * refused here. Other names are judged by the guarded lookup at every connection.
 */
function assertProbeable(ctx: Ctx, url: string, field: 'url' | 'ws_url' = 'url'): void {
  const refusal = privateAddressRefusal(url, ctx.deps.config.allowPrivateTargets, 'RVS_ALLOW_PRIVATE_TARGETS');
  if (refusal) throw validationError([{ field, message: refusal }]);
}

export async function createEndpoint({ ctx, input }: { ctx: Ctx; input: z.infer<typeof createEndpointInput> }) {
  assertProbeable(ctx, input.url);
  if (input.ws_url !== undefined) assertProbeable(ctx, input.ws_url, 'ws_url');
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
    wsUrlRedacted: input.ws_url === undefined ? null : redactUrl(input.ws_url),
    wsUrlEncrypted: input.ws_url === undefined ? null : ctx.deps.box.encrypt(input.ws_url),
    headerNames,
    headersEncrypted: headerNames.length > 0 ? ctx.deps.box.encrypt(JSON.stringify(input.headers)) : null,
    timeoutMs: input.timeout_ms,
  });
  return presentEndpoint(row);
}

/** An endpoint a run owns (a trigger's per-run target) is its run's, not a tenant endpoint: 404 here. */
function loadEndpoint(ctx: Ctx, endpointId: string): Promise<EndpointRow> {
  return loadOwned(ctx, 'endpoint', findEndpoint, endpointId, (row) => row.owner_run_id !== null);
}

export async function getEndpoint({ ctx, input }: { ctx: Ctx; input: { endpointId: string } }) {
  return presentEndpoint(await loadEndpoint(ctx, input.endpointId));
}

export async function listEndpoints({ ctx, input }: { ctx: Ctx; input: { limit: number; offset: number } }): Promise<Page<EndpointResponse>> {
  const { rows, total } = await listEndpointRows(ctx.deps.sql, ctx.principal.tenantId, input);
  return page(rows.map(presentEndpoint), total, input.limit, input.offset);
}

/**
 * The patch without the fields that equal what is stored. A URL or headers equal to the stored
 * ones (compared decrypted: `rvs apply` sends them every time, since it cannot read them back)
 * are not encrypted afresh, which would give the endpoint a new version and its probes a cold
 * connection pool for no change.
 */
function unchangedLeftOut(
  stored: EndpointRow,
  patch: z.infer<typeof patchEndpointInput>,
  box: Ctx['deps']['box'],
): z.infer<typeof patchEndpointInput> {
  const result = { ...patch };
  if (result.name === stored.name) delete result.name;
  if (result.timeout_ms === stored.timeout_ms) delete result.timeout_ms;
  if (result.url !== undefined && box.decrypt(stored.url_encrypted) === result.url) delete result.url;
  if (result.ws_url !== undefined && (stored.ws_url_encrypted === null ? null : box.decrypt(stored.ws_url_encrypted)) === result.ws_url) delete result.ws_url;
  if (result.headers !== undefined) {
    const storedHeaders = stored.headers_encrypted === null ? {} : (JSON.parse(box.decrypt(stored.headers_encrypted)) as Record<string, string>);
    const entries = (headers: Record<string, string>) => JSON.stringify(Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (entries(storedHeaders) === entries(result.headers)) delete result.headers;
  }
  return result;
}

/**
 * A new URL is validated like on create, encrypted afresh and redacted again. Probes read the
 * endpoint for every chunk, so a run in progress uses the new values from its next chunk on.
 */
export async function patchEndpoint({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { endpointId: string; patch: z.infer<typeof patchEndpointInput> };
}): Promise<EndpointResponse> {
  const stored = await loadEndpoint(ctx, input.endpointId);
  const { box } = ctx.deps;
  const patch = unchangedLeftOut(stored, input.patch, box);
  // Nothing differs: no write, so updated_at and the encrypted values (the worker's pool key) stay.
  if (Object.keys(patch).length === 0) return presentEndpoint(stored);
  if (patch.url !== undefined) assertProbeable(ctx, patch.url);
  if (patch.ws_url !== undefined && patch.ws_url !== null) assertProbeable(ctx, patch.ws_url, 'ws_url');
  const headerNames = patch.headers === undefined ? undefined : Object.keys(patch.headers);
  const row = await updateEndpoint(ctx.deps.sql, input.endpointId, ctx.principal.tenantId, {
    name: patch.name,
    urlRedacted: patch.url === undefined ? undefined : redactUrl(patch.url),
    urlEncrypted: patch.url === undefined ? undefined : box.encrypt(patch.url),
    wsUrlRedacted: patch.ws_url === undefined ? undefined : patch.ws_url === null ? null : redactUrl(patch.ws_url),
    wsUrlEncrypted: patch.ws_url === undefined ? undefined : patch.ws_url === null ? null : box.encrypt(patch.ws_url),
    headerNames,
    headersEncrypted:
      patch.headers === undefined ? undefined : headerNames!.length > 0 ? box.encrypt(JSON.stringify(patch.headers)) : null,
    timeoutMs: patch.timeout_ms,
  });
  if (!row) throw notFound('endpoint');
  return presentEndpoint(row);
}

/**
 * 409 while a suite names the endpoint (edit the suite first) or a run probed it: runs are kept
 * as history with their targets, so an endpoint that has been run is never deleted.
 */
export async function deleteEndpoint({ ctx, input }: { ctx: Ctx; input: { endpointId: string } }): Promise<void> {
  await loadEndpoint(ctx, input.endpointId);
  const deleted = await onForeignKeyViolation(
    () =>
      ctx.deps.sql.begin(async (tx) => {
        const refs = await endpointReferences(tx, input.endpointId);
        const users: string[] = [];
        if (refs.suites > 0) {
          const more = refs.suites > refs.suiteNames.length ? ', …' : '';
          users.push(`${countOf(refs.suites, 'suite')} (${refs.suiteNames.map((n) => JSON.stringify(n)).join(', ')}${more})`);
        }
        if (refs.runs > 0) users.push(`${countOf(refs.runs, 'run')} (runs keep their endpoints as history)`);
        if (users.length > 0) throw conflict(`the endpoint is still used by ${users.join(' and ')}`);
        return deleteEndpointRow(tx, input.endpointId, ctx.principal.tenantId);
      }),
    () => conflict('the endpoint is still used by a suite or a run'),
  );
  if (!deleted) throw notFound('endpoint');
}
