import type { FastifyContextConfig } from 'fastify';
import { z } from 'zod';
import type { Scope } from '../../../auth/scopes';
import { codesOf, ErrorOfStatus, type ErrorStatus } from './schemas';

/*
 * One call describes a route: `operation({...})` returns the route's `config` (the scope the auth
 * hook enforces) and its `schema` (what the type provider validates and serializes with, and what
 * @fastify/swagger turns into the operation of /v1/openapi.json). The scope is given once, so
 * `config.scope` and the document's `x-required-scope` cannot disagree.
 *
 * Every error a route of its kind can answer (authentication, scope, rate limits, a bad path
 * parameter, a bad body, …) is added here; a route names only its own (`errors`).
 */

export const TAGS = [
  { name: 'users', description: 'Who the caller is.' },
  { name: 'tenants', description: 'Teams of the platform (platform credentials with tenants:admin).' },
  { name: 'chains', description: 'Blockchains the service probes endpoints of.' },
  { name: 'endpoints', description: 'Node endpoints of a chain; URLs and header values are secrets and never returned in full.' },
  { name: 'suites', description: 'What to run: targets, reference, baseline, workload, thresholds, retries.' },
  { name: 'runs', description: 'Executions of a suite: status, stats, verdict, metrics, samples.' },
  { name: 'webhooks', description: 'Notifications of run events to the tenant\'s own URLs.' },
  { name: 'catalog', description: 'Chain and workload presets: built-ins plus the tenant\'s own entries.' },
  { name: 'api-keys', description: 'API keys of the caller\'s tenant.' },
  { name: 'meta', description: 'This document, and what the service exposes about itself.' },
  { name: 'dashboard', description: 'Data behind the run dashboard page; the signed link token is the credential.' },
] as const;
export type Tag = (typeof TAGS)[number]['name'];

type SuccessStatus = 200 | 201 | 202;
type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface OperationSpec<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  S extends SuccessStatus | 204,
  R extends z.ZodType,
> {
  /** Only for the error list: what the route's kind can answer depends on it. */
  method: HttpMethod;
  /** The scope the route needs; null: any valid credential; 'public': no credential. */
  scope: Scope | null | 'public';
  /** A public route whose credential is a dashboard link's token (in the query). */
  dashboardLink?: boolean;
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  params?: P;
  querystring?: Q;
  body?: B;
  /** The success status with its body schema (none for 204). A 201 is documented with a Location header. */
  success: { status: S; description: string; schema?: R };
  /** The errors of this route beyond those of its kind, by status: when each is answered. */
  errors?: Partial<Record<ErrorStatus, string[]>>;
  /** More route config (e.g. secretResponseFields). */
  config?: Omit<FastifyContextConfig, 'scope'>;
}

const STATUS_TEXT: Record<ErrorStatus, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const json = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
});

/** The errors every operation of its kind can produce, with the route's own. */
function errorsOf(spec: OperationSpec<any, any, any, any, any>): Partial<Record<ErrorStatus, string[]>> {
  const errors: Partial<Record<ErrorStatus, string[]>> = {};
  const add = (status: ErrorStatus, why: string) => (errors[status] ??= []).push(why);
  const { method, scope, params, querystring } = spec;
  // The router checks path parameters before any authentication, on every kind of route.
  if (params) add(414, '`uri_too_long`: a path parameter longer than 100 characters');
  if (scope !== 'public') {
    if (params) add(400, 'a malformed path parameter (the field is its name)');
    if (querystring) add(400, 'a bad query parameter');
    add(400, 'a NUL (\\u0000) or a lone surrogate anywhere in a parameter or the body, or a body nested deeper than 64 levels: `validation_error`');
    add(400, 'a malformed percent-encoding in the path: `validation_error`');
    if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
      add(400, 'a bad body field (every one listed, by path; unknown fields too): `validation_error`');
      add(400, 'a body that is not valid JSON: `invalid_json`');
      add(413, 'a body over 1 MiB');
      add(415, 'a body that is not application/json');
    }
    if (method === 'POST') {
      add(400, 'a malformed Idempotency-Key header');
      add(409, '`idempotency_conflict`: the Idempotency-Key was used with a different request');
      add(409, '`conflict`: the first request with this Idempotency-Key is still running after 15 s');
    }
    add(401, 'missing, malformed, unknown, revoked or expired credential');
    if (scope) add(403, `the credential lacks the scope \`${scope}\``);
    if (params) add(403, 'the resource belongs to another tenant');
    if (params) add(404, 'no such resource');
    add(429, 'over the request quota of the credential or of its tenant (or too many failed authentications from this address); see Retry-After');
    add(500, 'our failure; the body carries no internal detail');
    add(503, 'the identity provider\'s JWKS cannot be fetched (JWT credentials)');
  } else if (spec.dashboardLink) {
    add(400, 'a NUL (\\u0000) or a lone surrogate anywhere in a parameter (the token included): `validation_error`');
    add(400, 'a malformed percent-encoding in the path: `validation_error`');
    add(401, 'the run\'s tenant is disabled (until it is enabled again)');
    add(403, 'the link token is missing, invalid, expired or signed for another run');
    add(404, 'no such run');
    add(429, 'over the quota of this link token or of this client address; see Retry-After');
    add(500, 'our failure');
  } else {
    // The input guard and the router answer these before any handler, on every route.
    add(400, 'a NUL (\\u0000) or a lone surrogate anywhere in a parameter: `validation_error`');
    add(400, 'a malformed percent-encoding in the path: `validation_error`');
    add(500, 'our failure');
  }
  for (const [status, whys] of Object.entries(spec.errors ?? {})) for (const why of whys) add(Number(status) as ErrorStatus, why);
  return errors;
}

function errorResponse(status: ErrorStatus, whys: string[]) {
  const codes = codesOf(status);
  const title = `${STATUS_TEXT[status]}${codes.length === 1 ? ` (\`${codes[0]}\`)` : ''}:`;
  return json([title, ...whys.map((why) => `- ${why}`)].join('\n'), ErrorOfStatus[status]);
}

/** How Fastify's type provider reads a route's reply type: the success status's JSON body schema. */
type SuccessResponse<S extends SuccessStatus | 204, R extends z.ZodType> = {
  [status in S]: { description: string; content: { 'application/json': { schema: R } } };
};

/** The route options (`config` and `schema`) of one operation; spread them into the route's options. */
export function operation<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  S extends SuccessStatus | 204 = 200,
  R extends z.ZodType = z.ZodUndefined,
>(spec: OperationSpec<P, Q, B, S, R>) {
  const { success } = spec;
  const errors = errorsOf(spec);
  const response: Record<number, unknown> = {
    [success.status]: success.schema ? json(success.description, success.schema) : z.undefined().describe(success.description),
  };
  for (const status of (Object.keys(errors).map(Number) as ErrorStatus[]).sort((a, b) => a - b)) {
    response[status] = errorResponse(status, errors[status]!);
  }
  const security = spec.scope !== 'public' ? [{ bearer: [] }] : spec.dashboardLink ? [{ dashboardLink: [] }] : [];
  const schema = {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    security,
    'x-required-scope': spec.scope,
    params: spec.params as P,
    querystring: spec.querystring as Q,
    body: spec.body as B,
    // Typed as the success response alone: the handler's return value (and reply.send's argument)
    // must then be the success schema's output, so a presenter that lacks or misspells a field does
    // not compile. Errors are thrown (AppError), never returned, so they need no place in it.
    response: response as SuccessResponse<S, R>,
  };
  // A part the route does not have must be absent, not undefined (Fastify warns about the latter).
  for (const part of ['params', 'querystring', 'body'] as const) if (schema[part] === undefined) delete schema[part];
  return { config: { ...spec.config, scope: spec.scope }, schema };
}
