import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { addressOf, findEndpoints, type NewEndpoint } from '../../db/endpoints';
import { headWatchTransport } from '../../domain/transport';
import type { SuiteConfig } from '../../domain/suite-config';
import { validationError, type ErrorDetail } from '../../errors';
import type { Ctx } from '../context';
import { privateAddressRefusal } from '../outbound-url';
import { endpointFields, storedAddress } from '../endpoints';

/**
 * One target of a run that replaces the suite's candidates: an endpoint of the tenant by id, or an
 * endpoint given for this run only (a preview deployment), validated and guarded exactly as
 * POST /v1/endpoints validates one. One flat object rather than a union, so a bad URL is reported
 * on `targets.N.url` and not as "matches no option".
 */
export const runTargetInput = z
  .strictObject({
    endpoint_id: z.uuid().optional(),
    url: endpointFields.url.optional(),
    name: endpointFields.name.optional(),
    headers: endpointFields.headers.optional(),
  })
  .superRefine((target, ctx) => {
    if ((target.endpoint_id === undefined) === (target.url === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give either endpoint_id (an endpoint of yours) or url (an endpoint for this run only)' });
      return;
    }
    for (const field of ['name', 'headers'] as const) {
      if (target.endpoint_id !== undefined && target[field] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'only with url: an endpoint_id target keeps its endpoint\'s own' });
      }
    }
  });

type RunTargetInput = z.infer<typeof runTargetInput>;

export type OwnEndpoint = Omit<NewEndpoint, 'tenantId' | 'timeoutMs'> & { id: string };

const NO_WS_URL = 'the suite watches heads by subscription (freshness.via "subscribe"), which needs a ws_url; this target has none';

/**
 * The candidates a trigger's `targets` name: endpoints of the tenant (its own, not another run's,
 * on the suite's chain) by id, and endpoints given for this run only, encrypted and redacted
 * exactly like POST /v1/endpoints stores them — written with the run, owned by it. Nothing is
 * written here; a bad target refuses the whole trigger.
 */
export async function resolveRunTargets(
  ctx: Ctx,
  suite: { chain_id: string; config: SuiteConfig },
  targets: RunTargetInput[],
): Promise<{ targets: SuiteConfig['targets']; ownEndpoints: OwnEndpoint[] }> {
  const { sql, box } = ctx.deps;
  const byId = targets.flatMap((t, i) => (t.endpoint_id === undefined ? [] : [{ id: t.endpoint_id, field: `targets.${i}.endpoint_id` }]));
  const found = new Map((await findEndpoints(sql, byId.map((t) => t.id))).map((e) => [e.id, e]));
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  const subscribes = suite.config.freshness?.via === 'subscribe';
  for (const { id, field } of byId) {
    const endpoint = found.get(id);
    if (!endpoint || endpoint.tenant_id !== ctx.principal.tenantId || endpoint.owner_run_id !== null) {
      details.push({ field, message: 'no such endpoint in your tenant' });
    } else if (endpoint.chain_id !== suite.chain_id) {
      details.push({ field, message: 'endpoint belongs to another chain than the suite' });
    } else if (id === suite.config.reference_endpoint_id) {
      details.push({ field, message: 'the suite\'s reference must not also be a target' });
    } else if (seen.has(id)) {
      details.push({ field, message: 'an endpoint may appear only once' });
    } else if (subscribes && addressOf(endpoint, headWatchTransport('subscribe')) === undefined) {
      details.push({ field, message: NO_WS_URL });
    }
    seen.add(id);
  }
  // An endpoint given by url has no WebSocket URL: a head watch by subscription could not watch it.
  if (subscribes) targets.forEach((t, i) => t.endpoint_id === undefined && details.push({ field: `targets.${i}.url`, message: NO_WS_URL }));
  // Refused here as POST /v1/endpoints refuses it: every probe of it would be refused at connect.
  targets.forEach((t, i) => {
    const refusal = t.url === undefined ? null : privateAddressRefusal(t.url, ctx.deps.config.allowPrivateTargets, 'RVS_ALLOW_PRIVATE_TARGETS');
    if (refusal !== null) details.push({ field: `targets.${i}.url`, message: refusal });
  });
  if (details.length > 0) throw validationError(details);
  const ownEndpoints: OwnEndpoint[] = [];
  const resolved = targets.map((t) => {
    if (t.endpoint_id !== undefined) return { endpoint_id: t.endpoint_id, role: 'primary' as const };
    const url = t.url!;
    const headers = t.headers ?? {};
    const headerNames = Object.keys(headers);
    const id = randomUUID();
    ownEndpoints.push({
      id,
      chainId: suite.chain_id,
      // The host (and port) is what the redacted URL shows too: never userinfo, path or query.
      name: t.name ?? new URL(url).host,
      protocol: 'json-rpc-http',
      addresses: [storedAddress(box, 'http', url)],
      headerNames,
      headersEncrypted: headerNames.length > 0 ? box.encrypt(JSON.stringify(headers)) : null,
    });
    return { endpoint_id: id, role: 'primary' as const };
  });
  return { targets: resolved, ownEndpoints };
}
