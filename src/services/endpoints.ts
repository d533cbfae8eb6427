import { z } from 'zod';
import { findChain } from '../db/chains';
import {
  deleteEndpoint as deleteEndpointRow,
  addressOf,
  endpointReferences,
  findEndpoint,
  insertEndpoint,
  listEndpoints as listEndpointRows,
  updateEndpoint,
  type EndpointRow,
  type StoredAddress,
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
import { isTransport, TRANSPORT_REGISTRY, TRANSPORTS, type Transport } from '../domain/transport';

/** An outbound URL of the given schemes under the rules every probe connection applies. */
const outboundUrl = (protocol: RegExp, error: string) =>
  z
    .url({ protocol, error })
    .max(2048)
    // Refinements run even when the URL check above failed: only look at the host of a real URL.
    .refine((url) => !URL.canParse(url) || !isAlwaysRefusedHost(new URL(url).hostname), 'link-local and reserved addresses are never probed')
    .refine(userinfoDecodes, USERINFO_MESSAGE);

/** An address URL of one transport: its schemes (the registry's), under the outbound rules. */
const addressUrl = (transport: Transport) => {
  const { schemes, urlDescription } = TRANSPORT_REGISTRY[transport];
  return outboundUrl(new RegExp(`^(?:${schemes.join('|')})$`), `must be ${urlDescription}`);
};

/** One address as the API takes it: a transport of the registry and a URL of its schemes. */
const addressInput = z
  .strictObject({ transport: z.enum(TRANSPORTS), url: z.string() })
  .superRefine((address, ctx) => {
    // The URL's messages are fixed texts: they never repeat the URL (it may carry a key).
    const parsed = addressUrl(address.transport).safeParse(address.url);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['url'], message: issue.message });
  });

/** Endpoint fields without defaults, so PATCH can leave them out (a trigger's per-run targets use them too). */
export const endpointFields = {
  name: displayName,
  /** The endpoint's http address (see `addresses`). */
  url: addressUrl('http'),
  /** The endpoint's ws address: where its WebSocket server listens (head subscriptions); a secret like url. */
  ws_url: addressUrl('ws'),
  /** Every address of the endpoint, a transport at most once; `url` and `ws_url` are views of the http and ws ones. */
  addresses: z.array(addressInput).min(1).max(TRANSPORTS.length),
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

/** The transports whose address a request names, with the field that names each (for messages). */
type RequestedAddresses = Map<Transport, { url: string | null; field: string }>;
type AddressFields = { url?: string | undefined; ws_url?: string | null | undefined; addresses?: { transport: Transport; url: string }[] | undefined };

/**
 * The addresses a create or PATCH body names: `url` and `ws_url` (each transport's legacyField)
 * name the http and ws addresses, `addresses` any (the schemas refuse a transport named twice:
 * refuseTwice). Null (a PATCH's `ws_url: null`) removes that address.
 */
function requestedAddresses(body: AddressFields): RequestedAddresses {
  const requested: RequestedAddresses = new Map();
  for (const transport of TRANSPORTS) {
    const field = TRANSPORT_REGISTRY[transport].legacyField;
    const url = (body as Record<string, unknown>)[field] as string | null | undefined;
    if (url !== undefined) requested.set(transport, { url, field });
  }
  body.addresses?.forEach((address, i) => requested.set(address.transport, { url: address.url, field: `addresses.${i}.url` }));
  return requested;
}

/** Refuses a transport named twice (in `addresses`, or there and as its legacy field). */
function refuseTwice(body: AddressFields, ctx: z.RefinementCtx): void {
  const named = new Map<Transport, string>();
  for (const transport of TRANSPORTS) {
    const field = TRANSPORT_REGISTRY[transport].legacyField;
    if ((body as Record<string, unknown>)[field] !== undefined) named.set(transport, field);
  }
  body.addresses?.forEach((address, i) => {
    const earlier = named.get(address.transport);
    if (earlier !== undefined) {
      const message = `the ${address.transport} address is given twice (also as ${earlier}): give each transport once`;
      ctx.addIssue({ code: 'custom', path: ['addresses', i, 'transport'], message });
    }
    named.set(address.transport, `addresses.${i}`);
  });
}

const HTTP_REQUIRED = 'an endpoint needs an http address: give url (or an address of transport http in addresses)';

export const createEndpointInput = z
  .strictObject({
    chain_id: z.uuid(),
    name: endpointFields.name,
    url: endpointFields.url.optional().describe('the http address; required unless `addresses` holds one'),
    ws_url: endpointFields.ws_url.optional().describe('the ws address (WebSocket URL)'),
    addresses: endpointFields.addresses
      .optional()
      .describe('addresses by transport, each transport once (also counting `url` and `ws_url`); see docs/api.md'),
    protocol: z.literal('json-rpc-http').default('json-rpc-http'),
    headers: endpointFields.headers.default({}),
    timeout_ms: endpointFields.timeout_ms.default(10_000),
  })
  .superRefine((body, ctx) => {
    refuseTwice(body, ctx);
    if (!requestedAddresses(body).has('http')) ctx.addIssue({ code: 'custom', path: ['url'], message: HTTP_REQUIRED });
  });

/**
 * The chain is fixed (suites on that chain name the endpoint); `headers` replaces every header
 * value at once, since the old values are never shown and cannot be edited one by one, and so
 * does `addresses` (which then comes without `url` and `ws_url`).
 */
export const patchEndpointInput = z
  .strictObject({
    name: endpointFields.name.optional(),
    url: endpointFields.url.optional(),
    /** null removes the WebSocket URL. */
    ws_url: endpointFields.ws_url.nullable().optional(),
    addresses: endpointFields.addresses.optional(),
    headers: endpointFields.headers.optional(),
    timeout_ms: endpointFields.timeout_ms.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change')
  .superRefine((patch, ctx) => {
    if (patch.addresses === undefined) return;
    refuseTwice({ addresses: patch.addresses }, ctx);
    if (patch.url !== undefined || patch.ws_url !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['addresses'], message: 'addresses replaces every address: give it without url and ws_url' });
    }
    if (!patch.addresses.some((a) => a.transport === 'http')) ctx.addIssue({ code: 'custom', path: ['addresses'], message: HTTP_REQUIRED });
  });

/**
 * The one way an address of any transport is stored: encrypted, and redacted for display by the
 * one URL redaction. The clear URL is never stored, logged or returned.
 */
export function storedAddress(box: Ctx['deps']['box'], transport: Transport, url: string): StoredAddress {
  return { transport, url_redacted: redactUrl(url), url_encrypted: box.encrypt(url) };
}

/** Addresses in the registry's order, then any a newer version stored (kept as they are). */
const inRegistryOrder = (addresses: StoredAddress[]): StoredAddress[] =>
  [...addresses].sort((a, b) => rank(a.transport) - rank(b.transport));
const rank = (transport: string): number => (isTransport(transport) ? TRANSPORTS.indexOf(transport) : TRANSPORTS.length);

export interface EndpointResponse {
  id: string;
  chain_id: string;
  name: string;
  url: string;
  ws_url: string | null;
  addresses: { transport: Transport; url: string }[];
  protocol: EndpointProtocol;
  header_names: string[];
  timeout_ms: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * Secrets never leave: every address is shown redacted and header values not at all. `url` and
 * `ws_url` are the http and ws addresses (views kept for clients from before addresses).
 */
export function presentEndpoint(row: EndpointRow): EndpointResponse {
  return {
    id: row.id,
    chain_id: row.chain_id,
    name: row.name,
    url: addressOf(row, 'http')!.url_redacted,
    ws_url: addressOf(row, 'ws')?.url_redacted ?? null,
    addresses: row.addresses.flatMap((a) => (isTransport(a.transport) ? [{ transport: a.transport, url: a.url_redacted }] : [])),
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
function assertProbeable(ctx: Ctx, url: string, field: string): void {
  const refusal = privateAddressRefusal(url, ctx.deps.config.allowPrivateTargets, 'RVS_ALLOW_PRIVATE_TARGETS');
  if (refusal) throw validationError([{ field, message: refusal }]);
}

export async function createEndpoint({ ctx, input }: { ctx: Ctx; input: z.infer<typeof createEndpointInput> }) {
  const requested = requestedAddresses(input);
  for (const { url, field } of requested.values()) assertProbeable(ctx, url!, field);
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
    addresses: inRegistryOrder([...requested].map(([transport, { url }]) => storedAddress(ctx.deps.box, transport, url!))),
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

type PatchInput = z.infer<typeof patchEndpointInput>;

/**
 * The patch's name, headers and timeout without those that equal what is stored. Headers equal to
 * the stored ones (compared decrypted: `rvs apply` sends them every time, since it cannot read them
 * back) are not encrypted afresh, which would give the endpoint a new version and its probes a
 * cold connection pool for no change.
 */
function unchangedLeftOut(
  stored: EndpointRow,
  patch: Pick<PatchInput, 'name' | 'headers' | 'timeout_ms'>,
  box: Ctx['deps']['box'],
): Pick<PatchInput, 'name' | 'headers' | 'timeout_ms'> {
  const result = { name: patch.name, headers: patch.headers, timeout_ms: patch.timeout_ms };
  if (result.name === undefined || result.name === stored.name) delete result.name;
  if (result.timeout_ms === undefined || result.timeout_ms === stored.timeout_ms) delete result.timeout_ms;
  if (result.headers === undefined) delete result.headers;
  else {
    const storedHeaders = stored.headers_encrypted === null ? {} : (JSON.parse(box.decrypt(stored.headers_encrypted)) as Record<string, string>);
    const entries = (headers: Record<string, string>) => JSON.stringify(Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (entries(storedHeaders) === entries(result.headers)) delete result.headers;
  }
  return result;
}

/**
 * The endpoint's addresses after the patch, or undefined when they stay as stored. `url` and
 * `ws_url` set (or, null, remove) one address; `addresses` replaces them all. An address equal to
 * the stored one (compared decrypted, like headers) keeps its ciphertext; a new one is validated
 * like on create and stored by the one path. Addresses of a transport this version does not know
 * (written by a newer one) are kept as they are.
 */
function patchedAddresses(ctx: Ctx, stored: EndpointRow, patch: PatchInput): StoredAddress[] | undefined {
  const { box } = ctx.deps;
  const requested = requestedAddresses(patch);
  if (patch.addresses !== undefined) for (const transport of TRANSPORTS) if (!requested.has(transport)) requested.set(transport, { url: null, field: 'addresses' });
  let changed = false;
  const next = stored.addresses.filter((address) => !isTransport(address.transport) || !requested.has(address.transport));
  for (const [transport, { url, field }] of requested) {
    const current = addressOf(stored, transport);
    if (url === null) {
      if (current !== undefined) changed = true;
    } else if (current !== undefined && box.decrypt(current.url_encrypted) === url) {
      next.push(current);
    } else {
      assertProbeable(ctx, url, field);
      next.push(storedAddress(box, transport, url));
      changed = true;
    }
  }
  return changed ? inRegistryOrder(next) : undefined;
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
  input: { endpointId: string; patch: PatchInput };
}): Promise<EndpointResponse> {
  const stored = await loadEndpoint(ctx, input.endpointId);
  const { box } = ctx.deps;
  const addresses = patchedAddresses(ctx, stored, input.patch);
  const patch = unchangedLeftOut(stored, input.patch, box);
  // Nothing differs: no write, so updated_at and the encrypted values (the worker's pool key) stay.
  if (addresses === undefined && Object.keys(patch).length === 0) return presentEndpoint(stored);
  const headerNames = patch.headers === undefined ? undefined : Object.keys(patch.headers);
  const row = await updateEndpoint(ctx.deps.sql, input.endpointId, ctx.principal.tenantId, {
    name: patch.name,
    addresses,
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
