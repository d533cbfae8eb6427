import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { SCOPES } from '../../auth/scopes';
import { ERROR_STATUS, type ErrorCode } from '../../errors';
import { ROUTES, TAGS, type ErrorStatus, type RouteDoc } from './routes';
import { componentRegistry } from './schemas';

/*
 * The OpenAPI 3.1 document, built from the route table (routes.ts) and the zod schemas with
 * z.toJSONSchema: request parts from the services' input schemas (io: 'input', so fields with
 * defaults are optional), response bodies from schemas.ts (io: 'output'), every registered
 * response schema a component. Paths are full paths (`/v1/...`) on the server `/`, so the
 * versioned API and the dashboard's data route sit in one document. Built once at startup.
 */

export type Json = Record<string, unknown>;
export type OpenApiDocument = Json & { openapi: string; paths: Record<string, Record<string, Json>>; components: Json };

const TARGET = 'draft-2020-12';
const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const ref = (kind: 'schemas' | 'headers' | 'parameters', id: string) => ({ $ref: `#/components/${kind}/${id}` });

/** Drops what JSON Schema output carries that a reader does not need: per-schema $schema/$id, the safe-integer bounds of every integer, the regex zod adds to date-time. */
function tidy<T>(node: T): T {
  if (Array.isArray(node)) return node.map(tidy) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'pattern' && (node as Json).format === 'date-time') continue;
    out[key] = tidy(value);
  }
  return out as T;
}

const toJson = (schema: z.ZodType, io: 'input' | 'output') => tidy(z.toJSONSchema(schema, { target: TARGET, io }) as Json);

function responseSchema(schema: z.ZodType): Json {
  const id = componentRegistry.get(schema)?.id;
  if (!id) throw new Error('a response schema must be registered as a component (schemas.ts)');
  return ref('schemas', id);
}

interface ObjectJson {
  properties?: Record<string, Json>;
  required?: string[];
}

function parameters(where: 'path' | 'query', schema: z.ZodObject, docs: Record<string, string> = {}): Json[] {
  // Required-ness from the input side (defaults make a parameter optional), the value from the
  // output side: a query string like limit=20 is described by what it means, an integer 1–200.
  const input = toJson(schema, 'input') as ObjectJson;
  const output = toJson(schema, 'output') as ObjectJson;
  return Object.keys(input.properties ?? {}).map((name) => ({
    name,
    in: where,
    required: where === 'path' || (input.required ?? []).includes(name),
    ...(docs[name] ? { description: docs[name] } : {}),
    schema: output.properties?.[name] ?? input.properties![name],
  }));
}

const codesOf = (status: number) => (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);

function errorResponse(route: RouteDoc, status: ErrorStatus, whys: string[]): Json {
  const codes = codesOf(status);
  const headers: Json = { 'X-Request-Id': ref('headers', 'XRequestId') };
  if (route.auth !== 'none' && status !== 401) {
    Object.assign(headers, {
      'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
      'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
      'RateLimit-Reset': ref('headers', 'RateLimitReset'),
    });
  }
  if (status === 429) headers['Retry-After'] = ref('headers', 'RetryAfter');
  return {
    description: [`${STATUS_TEXT[status]}${codes.length === 1 ? ` (\`${codes[0]}\`)` : ''}:`, ...whys.map((why) => `- ${why}`)].join('\n'),
    headers,
    content: { 'application/json': { schema: ref('schemas', `Error${status}`) } },
  };
}

function successResponse(route: RouteDoc): Json {
  const { success } = route;
  const headers: Json = { 'X-Request-Id': ref('headers', 'XRequestId') };
  if (route.auth !== 'none') {
    // Always set on a success of an authenticated or dashboard request: the request was counted.
    Object.assign(headers, {
      'RateLimit-Limit': { ...HEADERS.RateLimitLimit, required: true },
      'RateLimit-Remaining': { ...HEADERS.RateLimitRemaining, required: true },
      'RateLimit-Reset': { ...HEADERS.RateLimitReset, required: true },
    });
  }
  if (success.location) headers.Location = ref('headers', 'Location');
  if (route.auth === 'bearer' && route.method === 'POST') headers['Idempotency-Replayed'] = ref('headers', 'IdempotencyReplayed');
  return {
    description: success.description,
    headers,
    ...(success.schema ? { content: { 'application/json': { schema: responseSchema(success.schema) } } } : {}),
  };
}

function operation(route: RouteDoc): Json {
  const params = [
    ...(route.params ? parameters('path', route.params) : []),
    ...(route.query ? parameters('query', route.query, route.queryDocs) : []),
    ...(route.auth === 'bearer' && route.method === 'POST' ? [ref('parameters', 'IdempotencyKey')] : []),
  ];
  const responses: Json = { [String(route.success.status)]: successResponse(route) };
  for (const status of (Object.keys(route.errors).map(Number) as ErrorStatus[]).sort((a, b) => a - b)) {
    responses[String(status)] = errorResponse(route, status, route.errors[status]!);
  }
  let requestBody: Json | undefined;
  if (route.body) {
    const schema = toJson(route.body, 'input');
    requestBody = {
      required: ((schema as ObjectJson).required ?? []).length > 0,
      content: { 'application/json': { schema } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: route.auth === 'bearer' ? [{ bearer: [] }] : route.auth === 'dashboard-token' ? [{ dashboardLink: [] }] : [],
    'x-required-scope': route.scope,
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

function errorSchemas(): Record<string, Json> {
  const statuses = [...new Set(ROUTES.flatMap((r) => Object.keys(r.errors).map(Number)))].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => [
      `Error${status}`,
      {
        description: `The error envelope of a ${status} response.`,
        allOf: [
          ref('schemas', 'ErrorEnvelope'),
          { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codesOf(status) } } } } },
        ],
      },
    ]),
  );
}

const header = (description: string, schema: Json, required = false): Json => ({ description, required, schema });

const HEADERS = {
  XRequestId: header('The request id (an incoming well-formed X-Request-Id is echoed); equals error.request_id.', { type: 'string' }, true),
  RateLimitLimit: header('Requests allowed in the current one-minute window.', { type: 'integer', minimum: 0 }),
  RateLimitRemaining: header('Requests left in the current window.', { type: 'integer', minimum: 0 }),
  RateLimitReset: header('Seconds until the current window ends.', { type: 'integer', minimum: 1 }),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer', minimum: 1 }, true),
  Location: header('The path of the created resource.', { type: 'string' }, true),
  IdempotencyReplayed: header('`true` when this is the stored response to an earlier request with the same Idempotency-Key.', {
    type: 'string',
    enum: ['true'],
  }),
};

const DESCRIPTION = `
Verifies blockchain node endpoints against thresholds, a reference endpoint and a baseline run.
Runs execute as durable Temporal workflows; a verdict gives pass/fail with a CI exit code.

- **Authentication**: \`Authorization: Bearer <token>\`, an API key (\`rvs_<prefix>_<secret>\`) or a JWT of
  the identity provider. Each operation names the scope it needs in \`x-required-scope\` (\`null\`: any
  valid credential; \`"public"\`: no credential). Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}.
- **Errors**: every non-2xx body is \`{"error": {"code", "message", "details": [{"field", "message"}], "request_id"}}\`,
  with the same request id in \`X-Request-Id\` — parser errors before any route too: request headers over
  16 KiB are 431 \`request_header_fields_too_large\`, a request not received in time is 408 \`request_timeout\`,
  bytes that are not HTTP/1.1 are 400 \`validation_error\` (the connection is then closed).
- **Lists**: \`limit\` (1–200, default 50) and \`offset\` (default 0); newest first; \`{data, pagination}\`.
- **Headers**: \`X-Request-Id\` on every response; \`RateLimit-Limit\`, \`RateLimit-Remaining\`,
  \`RateLimit-Reset\` on authenticated ones, \`Retry-After\` on a 429; \`Idempotency-Key\` on any
  authenticated POST replays the first response to a retried request.
`.trim();

export function buildOpenApiDocument(): OpenApiDocument {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string };
  const { schemas } = z.toJSONSchema(componentRegistry, {
    target: TARGET,
    io: 'output',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };

  const paths: Record<string, Record<string, Json>> = {};
  for (const route of ROUTES) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }

  return {
    openapi: '3.1.1',
    info: { title: 'Run Verification Service API', version: pkg.version, description: DESCRIPTION },
    servers: [{ url: '/', description: 'this server; API paths carry the version segment /v1' }],
    tags: TAGS.map((tag) => ({ ...tag })),
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: { ...tidy(schemas), ...errorSchemas() },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key (rvs_<prefix>_<secret>) or JWT',
          description: 'An API key of this service, or a JWT issued by the configured identity provider.',
        },
        dashboardLink: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description: 'The signed, expiring, read-only token of a verdict\'s dashboard_url.',
        },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'The first response (2xx or 4xx) to a key is kept for 24 hours, per credential (an API key, or a JWT\'s tenant and ' +
            'subject): the same request again from the same credential replays it (Idempotency-Replayed: true, ' +
            'Cache-Control: no-store); a different request with the key is 409 idempotency_conflict. A request still ' +
            'running holds the key for a lease of 60 s (RVS_IDEMPOTENCY_LEASE_S); a duplicate waits up to 15 s, then 409 ' +
            'conflict. After the lease (the API died mid-request) the same request takes the key over and runs; a run ' +
            'trigger then answers with the run the first request had committed.',
          schema: { type: 'string', pattern: '^[!-~]{1,255}$' },
        },
      },
      headers: HEADERS,
    },
  };
}
