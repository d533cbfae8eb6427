import { z } from 'zod';
import type { Scope } from '../../auth/scopes';
import { presetRefSchema } from '../../domain/catalog-presets';
import { suiteConfigSchema, workloadSchema } from '../../domain/suite-config';
import * as apiKeys from '../../services/api-keys';
import * as catalog from '../../services/catalog';
import * as chains from '../../services/chains';
import * as endpoints from '../../services/endpoints';
import * as runData from '../../services/run-data';
import * as runs from '../../services/runs';
import * as suiteTrend from '../../services/suite-trend';
import * as suites from '../../services/suites';
import { paginationQuery, uuidParam } from '../validate';
import * as S from './schemas';

/*
 * ONE table of every operation the app registers (src/http/routes/*.ts), the source of the
 * OpenAPI document (document.ts). Request schemas are the very zod schemas the routes validate
 * with (parseOrThrow); response schemas are in schemas.ts. Adding a route means adding a row
 * here: test/integration/openapi.test.ts compares this table with the routes Fastify registered
 * and exercises every row against the running app.
 *
 * Not in the table (and not in the document): the Swagger UI under /docs, and the dashboard's
 * HTML page and static assets under /dashboard (pages, not API operations). The JSON the
 * dashboard page reads, GET /dashboard/api/runs/{runId}, is in it.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 414 | 415 | 429 | 500 | 503;
export type SuccessStatus = 200 | 201 | 202 | 204;
export type Auth = 'bearer' | 'none' | 'dashboard-token';

export const TAGS = [
  { name: 'users', description: 'Who the caller is.' },
  { name: 'chains', description: 'Blockchains the service probes endpoints of.' },
  { name: 'endpoints', description: 'Node endpoints of a chain; URLs and header values are secrets and never returned in full.' },
  { name: 'suites', description: 'What to run: targets, reference, baseline, workload, thresholds, retries.' },
  { name: 'runs', description: 'Executions of a suite: status, stats, verdict, metrics, samples.' },
  { name: 'catalog', description: 'Chain and workload presets: built-ins plus the tenant\'s own entries.' },
  { name: 'api-keys', description: 'API keys of the caller\'s tenant.' },
  { name: 'meta', description: 'This document.' },
  { name: 'dashboard', description: 'Data behind the run dashboard page; the signed link token is the credential.' },
] as const;
export type Tag = (typeof TAGS)[number]['name'];

export interface RouteDoc {
  method: HttpMethod;
  /** OpenAPI style: `/v1/runs/{runId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  /** Exactly the route's `config.scope`: a scope, null (any authenticated caller) or 'public'. */
  scope: Scope | null | 'public';
  auth: Auth;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Descriptions of query parameters, by name (what zod cannot say, such as defaults). */
  queryDocs?: Record<string, string>;
  body?: z.ZodType;
  success: { status: SuccessStatus; description: string; schema?: z.ZodType; location?: boolean };
  /** Every error status the operation can answer, with when. */
  errors: Partial<Record<ErrorStatus, string[]>>;
}

// ---- request schemas derived for the document ------------------------------------------------------

/*
 * The services take a suite's `config` as any object and validate it in the verb, once a workload
 * preset has been resolved (services/suites.ts resolveConfig). The document shows what that
 * validation accepts: suiteConfigSchema, with `workload` either written out or `{preset, ...overrides}`.
 */
const workloadByPreset = workloadSchema.in
  .extend({
    preset: presetRefSchema.describe('a workload preset id or slug from the catalog; the other fields override it'),
  })
  .describe('a catalog workload preset, with overrides');
const suiteConfigRequest = z
  .strictObject({
    ...suiteConfigSchema.shape,
    workload: z.union([workloadSchema, workloadByPreset]).optional(),
  })
  .describe('Validated as a whole; every field with a default may be left out.');
const createSuiteBody = suites.createSuiteInput.extend({ config: suiteConfigRequest });
const patchSuiteBody = z
  .strictObject({ ...suites.patchSuiteInput.shape, config: suiteConfigRequest.optional() })
  .describe('At least one field; a config replaces the whole config.');

const pageDocs = { limit: 'page size, 1–200, default 50', offset: 'items to skip, default 0' };

// ---- the table --------------------------------------------------------------------------------

type Draft = Omit<RouteDoc, 'auth' | 'errors'> & { errors?: Partial<Record<ErrorStatus, string[]>> };

/** Adds the errors every operation of its kind can produce to the ones the row names. */
function op(draft: Draft): RouteDoc {
  const errors: Partial<Record<ErrorStatus, string[]>> = {};
  const add = (status: ErrorStatus, why: string) => (errors[status] ??= []).push(why);
  const auth: Auth = draft.scope !== 'public' ? 'bearer' : draft.path.startsWith('/dashboard/') ? 'dashboard-token' : 'none';
  // The router checks path parameters before any authentication, on every kind of route.
  if (draft.params) add(414, '`uri_too_long`: a path parameter longer than 100 characters');
  if (auth === 'bearer') {
    if (draft.params) add(400, 'a malformed path parameter (the field is its name)');
    if (draft.query) add(400, 'a bad query parameter');
    add(400, 'a NUL (\\u0000) or a lone surrogate anywhere in a parameter or the body, or a body nested deeper than 64 levels: `validation_error`');
    add(400, 'a malformed percent-encoding in the path: `validation_error`');
    if (draft.method === 'POST' || draft.method === 'PATCH') {
      add(400, 'a bad body field (every one listed, by path; unknown fields too): `validation_error`');
      add(400, 'a body that is not valid JSON: `invalid_json`');
      add(413, 'a body over 1 MiB');
      add(415, 'a body that is not application/json');
    }
    if (draft.method === 'POST') {
      add(400, 'a malformed Idempotency-Key header');
      add(409, '`idempotency_conflict`: the Idempotency-Key was used with a different request');
      add(409, '`conflict`: the first request with this Idempotency-Key is still running after 15 s');
    }
    add(401, 'missing, malformed, unknown, revoked or expired credential');
    if (draft.scope) add(403, `the credential lacks the scope \`${draft.scope}\``);
    if (draft.params) add(403, 'the resource belongs to another tenant');
    if (draft.params) add(404, 'no such resource');
    add(429, 'over the request quota of the credential or of its tenant (or too many failed authentications from this address); see Retry-After');
    add(500, 'our failure; the body carries no internal detail');
    add(503, 'the identity provider\'s JWKS cannot be fetched (JWT credentials)');
  } else if (auth === 'dashboard-token') {
    add(403, 'the link token is missing, invalid, expired or signed for another run');
    add(404, 'no such run');
    add(429, 'over the quota of this link token or of this client address; see Retry-After');
    add(500, 'our failure');
  } else {
    add(500, 'our failure');
  }
  for (const [status, whys] of Object.entries(draft.errors ?? {})) for (const why of whys) add(Number(status) as ErrorStatus, why);
  return { ...draft, auth, errors };
}

const chainId = uuidParam('chainId');
const endpointId = uuidParam('endpointId');
const suiteId = uuidParam('suiteId');
const runId = uuidParam('runId');
const keyId = uuidParam('keyId');

export const ROUTES: readonly RouteDoc[] = [
  op({
    method: 'GET',
    path: '/v1/users/me',
    operationId: 'getCurrentUser',
    summary: 'The caller: API key or user, tenant, scopes',
    description: 'Verifies a credential; accepts either kind and needs no scope.',
    tag: 'users',
    scope: null,
    success: { status: 200, description: 'the caller', schema: S.User },
  }),

  // chains
  op({
    method: 'POST',
    path: '/v1/chains',
    operationId: 'createChain',
    summary: 'Create a chain',
    description: 'Either `name` and `slug` (and optionally the rest), or `preset`: a catalog chain preset whose fields the given ones override.',
    tag: 'chains',
    scope: 'chains:write',
    body: chains.createChainRequest,
    success: { status: 201, description: 'the chain', schema: S.Chain, location: true },
    errors: { 400: ['`preset` names no chain preset in the catalog'], 409: ['`conflict`: a chain with this slug exists'] },
  }),
  op({
    method: 'GET',
    path: '/v1/chains',
    operationId: 'listChains',
    summary: 'List chains, newest first',
    tag: 'chains',
    scope: 'chains:read',
    query: paginationQuery,
    queryDocs: pageDocs,
    success: { status: 200, description: 'a page of chains', schema: S.ChainPage },
  }),
  op({
    method: 'GET',
    path: '/v1/chains/{chainId}',
    operationId: 'getChain',
    summary: 'Get a chain',
    tag: 'chains',
    scope: 'chains:read',
    params: chainId,
    success: { status: 200, description: 'the chain', schema: S.Chain },
  }),
  op({
    method: 'PATCH',
    path: '/v1/chains/{chainId}',
    operationId: 'updateChain',
    summary: 'Change fields of a chain',
    tag: 'chains',
    scope: 'chains:write',
    params: chainId,
    body: chains.patchChainInput,
    success: { status: 200, description: 'the changed chain', schema: S.Chain },
    errors: { 409: ['`conflict`: a chain with this slug exists'] },
  }),
  op({
    method: 'DELETE',
    path: '/v1/chains/{chainId}',
    operationId: 'deleteChain',
    summary: 'Delete a chain no endpoint or suite uses',
    tag: 'chains',
    scope: 'chains:write',
    params: chainId,
    success: { status: 204, description: 'deleted' },
    errors: { 409: ['`conflict`: endpoints or suites still use the chain'] },
  }),

  // endpoints
  op({
    method: 'POST',
    path: '/v1/endpoints',
    operationId: 'createEndpoint',
    summary: 'Create an endpoint',
    description: '`url` and `headers` are secrets: stored encrypted, returned redacted (url) or not at all (header values).',
    tag: 'endpoints',
    scope: 'endpoints:write',
    body: endpoints.createEndpointInput,
    success: { status: 201, description: 'the endpoint', schema: S.Endpoint, location: true },
    errors: { 400: ['`chain_id` names no chain of the caller\'s tenant', 'a link-local or reserved address as host'] },
  }),
  op({
    method: 'GET',
    path: '/v1/endpoints',
    operationId: 'listEndpoints',
    summary: 'List endpoints, newest first',
    tag: 'endpoints',
    scope: 'endpoints:read',
    query: paginationQuery,
    queryDocs: pageDocs,
    success: { status: 200, description: 'a page of endpoints', schema: S.EndpointPage },
  }),
  op({
    method: 'GET',
    path: '/v1/endpoints/{endpointId}',
    operationId: 'getEndpoint',
    summary: 'Get an endpoint',
    tag: 'endpoints',
    scope: 'endpoints:read',
    params: endpointId,
    success: { status: 200, description: 'the endpoint', schema: S.Endpoint },
  }),
  op({
    method: 'PATCH',
    path: '/v1/endpoints/{endpointId}',
    operationId: 'updateEndpoint',
    summary: 'Change fields of an endpoint',
    description: '`headers` replaces every header at once. A run in progress uses the new values from its next chunk on.',
    tag: 'endpoints',
    scope: 'endpoints:write',
    params: endpointId,
    body: endpoints.patchEndpointInput,
    success: { status: 200, description: 'the changed endpoint', schema: S.Endpoint },
  }),
  op({
    method: 'DELETE',
    path: '/v1/endpoints/{endpointId}',
    operationId: 'deleteEndpoint',
    summary: 'Delete an endpoint no suite names and no run probed',
    tag: 'endpoints',
    scope: 'endpoints:write',
    params: endpointId,
    success: { status: 204, description: 'deleted' },
    errors: { 409: ['`conflict`: a suite names the endpoint, or a run probed it'] },
  }),

  // suites
  op({
    method: 'POST',
    path: '/v1/suites',
    operationId: 'createSuite',
    summary: 'Create a suite',
    tag: 'suites',
    scope: 'suites:write',
    body: createSuiteBody,
    success: { status: 201, description: 'the suite, its config with every default applied', schema: S.Suite, location: true },
    errors: {
      400: ['`chain_id` or an endpoint of the config is not the caller\'s, or an endpoint is on another chain', 'an unknown workload preset'],
      409: ['`conflict`: the chain or an endpoint was deleted meanwhile'],
    },
  }),
  op({
    method: 'GET',
    path: '/v1/suites',
    operationId: 'listSuites',
    summary: 'List suites, newest first',
    tag: 'suites',
    scope: 'suites:read',
    query: paginationQuery,
    queryDocs: pageDocs,
    success: { status: 200, description: 'a page of suites', schema: S.SuitePage },
  }),
  op({
    method: 'GET',
    path: '/v1/suites/{suiteId}',
    operationId: 'getSuite',
    summary: 'Get a suite',
    tag: 'suites',
    scope: 'suites:read',
    params: suiteId,
    success: { status: 200, description: 'the suite', schema: S.Suite },
  }),
  op({
    method: 'PATCH',
    path: '/v1/suites/{suiteId}',
    operationId: 'updateSuite',
    summary: 'Change fields of a suite',
    description: 'Runs already triggered keep the config they snapshotted.',
    tag: 'suites',
    scope: 'suites:write',
    params: suiteId,
    body: patchSuiteBody,
    success: { status: 200, description: 'the changed suite', schema: S.Suite },
    errors: { 409: ['`conflict`: an endpoint was deleted meanwhile'] },
  }),
  op({
    method: 'DELETE',
    path: '/v1/suites/{suiteId}',
    operationId: 'deleteSuite',
    summary: 'Delete a suite that has never run',
    tag: 'suites',
    scope: 'suites:write',
    params: suiteId,
    success: { status: 204, description: 'deleted' },
    errors: { 409: ['`conflict`: the suite has runs (kept as history)'] },
  }),

  // runs
  op({
    method: 'POST',
    path: '/v1/suites/{suiteId}/runs',
    operationId: 'triggerRun',
    summary: 'Trigger a run of a suite',
    description:
      'Starts the Temporal workflow `run-<id>` and answers at once with the queued run. The body is optional. ' +
      'Run triggers have their own, stricter quota.',
    tag: 'runs',
    scope: 'runs:write',
    params: suiteId,
    body: runs.triggerRunInput,
    success: { status: 201, description: 'the run, queued', schema: S.Run, location: true },
    errors: {
      400: ['`baseline_run_id` names no run of the caller\'s tenant'],
      429: ['over the run-trigger quota of the credential or of its tenant'],
      503: ['the workflow service is unavailable; the run was recorded as failed'],
    },
  }),
  op({
    method: 'GET',
    path: '/v1/suites/{suiteId}/trend',
    operationId: 'getSuiteTrend',
    summary: 'The suite\'s finished runs, newest first: verdict, candidate p50/p95/p99 with intervals, match rate, baseline limits',
    description:
      'One point per finished run (success, failed or cancelled). Needs runs:read: it reads runs, like every other run read. ' +
      'Intervals are null for runs judged before they were stored; baseline is null for a run without a baseline comparison.',
    tag: 'runs',
    scope: 'runs:read',
    params: suiteId,
    query: suiteTrend.suiteTrendQuery,
    queryDocs: pageDocs,
    success: { status: 200, description: 'a page of trend points', schema: S.SuiteTrendPage },
  }),
  op({
    method: 'GET',
    path: '/v1/runs',
    operationId: 'listRuns',
    summary: 'List runs, newest first',
    tag: 'runs',
    scope: 'runs:read',
    query: runs.listRunsQuery,
    queryDocs: { ...pageDocs, suite_id: 'only runs of this suite', status: 'only runs in this status' },
    success: { status: 200, description: 'a page of runs', schema: S.RunPage },
  }),
  op({
    method: 'GET',
    path: '/v1/runs/{runId}',
    operationId: 'getRun',
    summary: 'Get a run: status, progress, stats, targets, retry history',
    tag: 'runs',
    scope: 'runs:read',
    params: runId,
    success: { status: 200, description: 'the run', schema: S.Run },
  }),
  op({
    method: 'POST',
    path: '/v1/runs/{runId}/cancel',
    operationId: 'cancelRun',
    summary: 'Cancel a queued or running run',
    description: 'Asks the workflow to stop; probes stop within about a second and the run ends `cancelled`.',
    tag: 'runs',
    scope: 'runs:write',
    params: runId,
    success: { status: 202, description: 'the run; cancellation was requested', schema: S.Run },
    errors: { 409: ['`conflict`: the run is already finished'] },
  }),
  op({
    method: 'GET',
    path: '/v1/runs/{runId}/verdict',
    operationId: 'getRunVerdict',
    summary: 'The verdict of a finished run, with its CI exit code',
    tag: 'runs',
    scope: 'runs:read',
    params: runId,
    query: runs.verdictQuery,
    queryDocs: { wait: 'seconds (0–60) to hold the request until the run has finished (long poll)' },
    success: { status: 200, description: 'the verdict', schema: S.Verdict },
    errors: { 409: ['`run_not_finished`: the run is not terminal (yet, after `wait`)'] },
  }),
  op({
    method: 'GET',
    path: '/v1/runs/{runId}/metrics',
    operationId: 'getRunMetrics',
    summary: 'Latency over time per target, and per method',
    tag: 'runs',
    scope: 'runs:read',
    params: runId,
    success: { status: 200, description: 'the metrics', schema: S.RunMetrics },
  }),
  op({
    method: 'GET',
    path: '/v1/runs/{runId}/samples',
    operationId: 'listRunSamples',
    summary: 'The measured calls of a run, by target and sequence',
    tag: 'runs',
    scope: 'runs:read',
    params: runId,
    query: runData.listSamplesQuery,
    queryDocs: { ...pageDocs, target_id: 'only samples of this target', method: 'only calls of this JSON-RPC method', outcome: 'only samples with this outcome' },
    success: { status: 200, description: 'a page of samples', schema: S.SamplePage },
  }),

  // api keys
  op({
    method: 'POST',
    path: '/v1/api-keys',
    operationId: 'createApiKey',
    summary: 'Issue an API key',
    description:
      'The key itself is in this response only (`Cache-Control: no-store`); it is never stored, so an Idempotency-Key ' +
      'replay answers without `key` (revoke that key and issue another if the secret was lost). A caller can grant only scopes it holds.',
    tag: 'api-keys',
    scope: 'keys:admin',
    body: apiKeys.createApiKeyInput,
    success: { status: 201, description: 'the key, with its secret', schema: S.ApiKeyCreated, location: true },
    errors: { 403: ['the key would get a scope the caller does not hold'] },
  }),
  op({
    method: 'GET',
    path: '/v1/api-keys',
    operationId: 'listApiKeys',
    summary: 'List the tenant\'s API keys, newest first',
    tag: 'api-keys',
    scope: 'keys:admin',
    query: paginationQuery,
    queryDocs: pageDocs,
    success: { status: 200, description: 'a page of API keys', schema: S.ApiKeyPage },
  }),
  op({
    method: 'GET',
    path: '/v1/api-keys/{keyId}',
    operationId: 'getApiKey',
    summary: 'Get an API key (never its secret)',
    tag: 'api-keys',
    scope: 'keys:admin',
    params: keyId,
    success: { status: 200, description: 'the API key', schema: S.ApiKey },
  }),
  op({
    method: 'DELETE',
    path: '/v1/api-keys/{keyId}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: 'Takes effect at once. Revoking a revoked key changes nothing.',
    tag: 'api-keys',
    scope: 'keys:admin',
    params: keyId,
    success: { status: 200, description: 'the revoked key', schema: S.ApiKey },
  }),

  // catalog
  ...(['chain', 'workload'] as const).flatMap((kind) => {
    const Kind = kind === 'chain' ? 'Chain' : 'Workload';
    const base = `/v1/catalog/${kind}s`;
    const item = kind === 'chain' ? S.ChainPreset : S.WorkloadPreset;
    return [
      op({
        method: 'GET',
        path: base,
        operationId: `list${Kind}Presets`,
        summary: `List ${kind} presets: built-ins and the tenant's own`,
        tag: 'catalog',
        scope: 'catalog:read',
        query: catalog.catalogListQuery,
        queryDocs: { ...pageDocs, family: 'only presets of this chain family' },
        success: { status: 200, description: `a page of ${kind} presets`, schema: kind === 'chain' ? S.ChainPresetPage : S.WorkloadPresetPage },
      }),
      op({
        method: 'GET',
        path: `${base}/{presetId}`,
        operationId: `get${Kind}Preset`,
        summary: `Get a ${kind} preset by id or slug`,
        tag: 'catalog',
        scope: 'catalog:read',
        params: catalog.presetParam,
        success: { status: 200, description: `the ${kind} preset`, schema: item },
      }),
      op({
        method: 'POST',
        path: base,
        operationId: `create${Kind}Preset`,
        summary: `Add a ${kind} preset to the tenant's catalog`,
        tag: 'catalog',
        scope: 'catalog:write',
        body: kind === 'chain' ? catalog.createChainPresetInput : catalog.createWorkloadPresetInput,
        success: { status: 201, description: `the ${kind} preset`, schema: item, location: true },
        errors: { 409: ['`conflict`: the slug is taken (by a built-in or the tenant\'s own entry)'] },
      }),
      op({
        method: 'DELETE',
        path: `${base}/{presetId}`,
        operationId: `delete${Kind}Preset`,
        summary: `Delete one of the tenant's ${kind} presets`,
        description: 'Chains and suites made from a preset keep their copy.',
        tag: 'catalog',
        scope: 'catalog:write',
        params: catalog.presetParam,
        success: { status: 204, description: 'deleted' },
        errors: { 403: ['built-in presets are read-only'] },
      }),
    ];
  }),

  // public
  op({
    method: 'GET',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document',
    description: 'Public. Browsable at /docs.',
    tag: 'meta',
    scope: 'public',
    success: { status: 200, description: 'the document', schema: S.OpenApiDocument },
  }),
  op({
    method: 'GET',
    path: '/dashboard/api/runs/{runId}',
    operationId: 'getDashboardData',
    summary: 'Everything the run dashboard page shows',
    description:
      'Read by the page at /dashboard/runs/{runId}?token=…, the `dashboard_url` of a verdict. The token in that link is the ' +
      'only credential: signed for one run, read-only, expiring.',
    tag: 'dashboard',
    scope: 'public',
    params: runId,
    success: { status: 200, description: 'run, verdict (without dashboard_url), metrics and latency histogram', schema: S.DashboardData },
  }),
  op({
    method: 'GET',
    path: '/dashboard/api/runs/{runId}/suite',
    operationId: 'getDashboardSuiteTrend',
    summary: 'The trend of the run\'s suite, for the suite page',
    description:
      'Read by the page at /dashboard/runs/{runId}/suite?token=…, linked from the run page. The run\'s link token also ' +
      'authorises this: the last 100 finished runs of that run\'s suite (the suite is the run\'s own, never a parameter), ' +
      'nothing more.',
    tag: 'dashboard',
    scope: 'public',
    params: runId,
    success: { status: 200, description: 'the suite and its trend page', schema: S.DashboardSuiteTrend },
  }),
];
