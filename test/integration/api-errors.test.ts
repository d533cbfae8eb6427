import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { generateApiKey } from '../../src/auth/api-key';
import { createLogger } from '../../src/logger';
import { get, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

const MISSING_RUN = '7d3f2f8e-1c1a-4d55-9a7e-3c2b1a0f9e8d';

function expectEnvelope(body: any, code: string, requestId: unknown) {
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array), request_id: requestId },
  });
}

describe('API errors, authentication and validation', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ worker: false });
  });
  afterAll(async () => {
    await stack.close();
  });

  it.each([
    ['no Authorization header', {}],
    ['a malformed Authorization header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an unknown API key', { authorization: `Bearer ${generateApiKey().key}` }],
    ['a token that is not an API key', { authorization: 'Bearer not-a-key' }],
  ])('answers 401 unauthorized for %s, in the envelope with the request id', async (_case, headers) => {
    const response = await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers });
    expect(response.statusCode).toBe(401);
    expectEnvelope(response.json(), 'unauthorized', response.headers['x-request-id']);
    expect(response.json().error.details).toEqual([]);
  });

  it('answers 401 for a known key prefix with the wrong secret', async () => {
    const { key } = await stack.newTenant();
    const wrong = key.replace(/_[A-Za-z0-9]+$/, `_${'x'.repeat(40)}`);
    const response = await get(stack.app, '/v1/users/me', { authorization: `Bearer ${wrong}` });
    expect(response.status).toBe(401);
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const { auth } = await stack.newTenant();
    const echoed = await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: { ...auth, 'x-request-id': 'ci-build-42.step-3' } });
    expect(echoed.headers['x-request-id']).toBe('ci-build-42.step-3');
    const replaced = await stack.app.inject({ method: 'GET', url: '/v1/runs/nope', headers: { ...auth, 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(replaced.json().error.request_id).toBe(replaced.headers['x-request-id']);
  });

  it('returns the caller for GET /v1/users/me', async () => {
    const { auth, tenantId } = await stack.newTenant(['runs:read']);
    const me = await get(stack.app, '/v1/users/me', auth);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: expect.any(String),
      kind: 'api_key',
      tenant: { id: tenantId, name: expect.any(String) },
      scopes: ['runs:read'],
      name: 'test',
      email: null,
    });
  });

  it('answers 400 invalid_json for a malformed body and changes nothing', async () => {
    const { auth } = await stack.newTenant();
    const response = await stack.app.inject({
      method: 'POST',
      url: '/v1/chains',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expect(response.statusCode).toBe(400);
    expectEnvelope(response.json(), 'invalid_json', response.headers['x-request-id']);
    expect((await get<any>(stack.app, '/v1/chains', auth)).body.pagination.total).toBe(0);
  });

  it('answers 415 for a body that is not JSON and 413 for one over 1 MiB', async () => {
    const { auth } = await stack.newTenant();
    const text = await stack.app.inject({ method: 'POST', url: '/v1/chains', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'name=x' });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('unsupported_media_type');
    const big = await stack.app.inject({
      method: 'POST',
      url: '/v1/chains',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), slug: 'big' }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('payload_too_large');
  });

  it('answers 404 not_found for an unknown run and 400 validation_error naming a malformed id', async () => {
    const { auth } = await stack.newTenant();
    const missing = await get<any>(stack.app, `/v1/runs/${MISSING_RUN}`, auth);
    expect(missing.status).toBe(404);
    expectEnvelope(missing.body, 'not_found', missing.headers['x-request-id']);
    const malformed = await get<any>(stack.app, '/v1/runs/not-a-uuid', auth);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'runId', message: expect.any(String) }] });
    const verdict = await get<any>(stack.app, '/v1/runs/123/verdict', auth);
    expect(verdict.body.error.details[0].field).toBe('runId');
    const unknownRoute = await get<any>(stack.app, '/v1/nothing-here', auth);
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.body.error.code).toBe('not_found');
  });

  it('lists every bad field of a create in details, unknown fields included', async () => {
    const { auth } = await stack.newTenant();
    const response = await post<any>(stack.app, '/v1/chains', auth, { name: '', slug: 'Not A Slug', explorer_url: 'ftp://x', colour: 'red' });
    expect(response.status).toBe(400);
    const fields = response.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['colour', 'explorer_url', 'name', 'slug']);
  });

  it('rejects link-local endpoint URLs at creation and never probes them', async () => {
    const { auth } = await stack.newTenant();
    const chain = await post<any>(stack.app, '/v1/chains', auth, { name: 'c', slug: 'c' });
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[::ffff:169.254.169.254]/', 'http://2852039166/']) {
      const response = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: 'metadata', url });
      expect(response.status, url).toBe(400);
      expect(response.body.error.details[0].field).toBe('url');
    }
  });

  it('answers 403 forbidden for a key without the scope, and for another tenant\u2019s resource', async () => {
    const owner = await stack.newTenant();
    const chain = await post<any>(stack.app, '/v1/chains', owner.auth, { name: 'Mine', slug: 'mine' });
    const readOnly = await stack.newTenant(['chains:read']);
    const denied = await post<any>(stack.app, '/v1/chains', readOnly.auth, { name: 'x', slug: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
    const other = await stack.newTenant();
    const foreign = await get<any>(stack.app, `/v1/chains/${chain.body.id}`, other.auth);
    expect(foreign.status).toBe(403);
    // Lists never show another tenant's rows.
    expect((await get<any>(stack.app, '/v1/chains', other.auth)).body.pagination.total).toBe(0);
  });

  it('never returns endpoint secrets: URL keys are redacted and header values omitted', async () => {
    const { auth } = await stack.newTenant();
    const chain = await post<any>(stack.app, '/v1/chains', auth, { name: 'c', slug: 'c' });
    const secretPath = 'S3cretPathKey0123456789abcdef';
    const created = await post<any>(stack.app, '/v1/endpoints', auth, {
      chain_id: chain.body.id,
      name: 'provider',
      url: `https://user:pw-S3cret@rpc.example.com/v2/${secretPath}?apikey=S3cretQuery`,
      headers: { 'x-api-key': 'S3cretHeader' },
    });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe('https://****@rpc.example.com/****/****?****');
    expect(created.body.header_names).toEqual(['x-api-key']);
    const listed = await get<any>(stack.app, '/v1/endpoints', auth);
    const fetched = await get<any>(stack.app, `/v1/endpoints/${created.body.id}`, auth);
    for (const body of [created.body, listed.body, fetched.body]) {
      expect(JSON.stringify(body)).not.toMatch(/S3cret/);
    }
    const [row] = await stack.sql`select * from endpoints where id = ${created.body.id}`;
    expect(JSON.stringify(row)).not.toMatch(/S3cret/);
  });

  it('pages lists with limit and offset and reports has_more exactly', async () => {
    const { auth } = await stack.newTenant();
    for (let i = 0; i < 5; i++) await post(stack.app, '/v1/chains', auth, { name: `c${i}`, slug: `c${i}` });
    const first = await get<any>(stack.app, '/v1/chains?limit=2', auth);
    expect(first.body.pagination).toEqual({ total: 5, limit: 2, offset: 0, has_more: true });
    expect(first.body.data.map((c: { slug: string }) => c.slug)).toEqual(['c4', 'c3']);
    const last = await get<any>(stack.app, '/v1/chains?limit=2&offset=4', auth);
    expect(last.body.pagination).toEqual({ total: 5, limit: 2, offset: 4, has_more: false });
    expect(last.body.data).toHaveLength(1);
    const exact = await get<any>(stack.app, '/v1/chains?limit=5', auth);
    expect(exact.body.pagination.has_more).toBe(false);
    const beyond = await get<any>(stack.app, '/v1/chains?offset=10', auth);
    expect(beyond.body).toEqual({ data: [], pagination: { total: 5, limit: 50, offset: 10, has_more: false } });
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'offset=-1', 'limit=1.5']) {
      const bad = await get<any>(stack.app, `/v1/chains?${query}`, auth);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.code).toBe('validation_error');
    }
  });

  describe('framework and parser errors come in the envelope with the request id', () => {
    const cases: [string, { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string }, number, string][] = [
      ['malformed percent-encoding in the path', { method: 'GET', url: '/v1/chains/%E0%A4%A' }, 400, 'validation_error'],
      ['a path parameter over 100 characters', { method: 'GET', url: `/v1/runs/${'a'.repeat(101)}` }, 414, 'uri_too_long'],
      ['an over-long parameter of a public route', { method: 'GET', url: `/dashboard/api/runs/${'a'.repeat(101)}` }, 414, 'uri_too_long'],
      ['a body that is not JSON', { method: 'POST', url: '/v1/chains', headers: { 'content-type': 'application/xml' }, payload: '<a/>' }, 415, 'unsupported_media_type'],
      ['a body without a content type', { method: 'POST', url: '/v1/chains', headers: { 'content-type': '' }, payload: '{}' }, 415, 'unsupported_media_type'],
      ['an empty JSON body', { method: 'POST', url: '/v1/chains', headers: { 'content-type': 'application/json' }, payload: '' }, 400, 'invalid_json'],
      ['malformed JSON', { method: 'POST', url: '/v1/chains', headers: { 'content-type': 'application/json' }, payload: '{"a":' }, 400, 'invalid_json'],
      ['a __proto__ key', { method: 'POST', url: '/v1/chains', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1}}' }, 400, 'invalid_json'],
      [
        'a body over 1 MiB',
        { method: 'POST', url: '/v1/chains', headers: { 'content-type': 'application/json' }, payload: `{"name":"${'x'.repeat(1024 * 1024)}"}` },
        413,
        'payload_too_large',
      ],
      ['an unknown route', { method: 'GET', url: '/v1/no-such-thing' }, 404, 'not_found'],
      ['an unknown method on a known path', { method: 'POST', url: '/v1/users/me' }, 404, 'not_found'],
    ];

    it.each(cases)('%s', async (_name, request, status, code) => {
      const { auth } = await stack.newTenant();
      const response = await stack.app.inject({ ...request, headers: { ...auth, ...request.headers } });
      expect(response.statusCode).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const requestId = response.headers['x-request-id'];
      expect(requestId).toEqual(expect.any(String));
      expect(response.json()).toEqual({ error: { code, message: expect.any(String), details: [], request_id: requestId } });
    });

    it('echoes a well-formed X-Request-Id on router errors too', async () => {
      for (const url of ['/v1/chains/%E0%A4%A', `/v1/runs/${'a'.repeat(101)}`]) {
        const response = await stack.app.inject({ method: 'GET', url, headers: { 'x-request-id': 'ci-router-1' } });
        expect(response.headers['x-request-id'], url).toBe('ci-router-1');
        expect(response.json().error.request_id, url).toBe('ci-router-1');
      }
    });

    describe('over a real socket (Node\u2019s HTTP parser answers before Fastify sees a request)', () => {
      let port: number;
      beforeAll(async () => {
        await stack.app.listen({ port: 0, host: '127.0.0.1' });
        port = (stack.app.server.address() as { port: number }).port;
      });

      /** Sends raw bytes, returns everything the server wrote until it closed the connection. */
      function exchange(bytes: string): Promise<string> {
        return new Promise((resolve, reject) => {
          const socket = connect(port, '127.0.0.1');
          let received = '';
          socket.setEncoding('utf8');
          socket.on('data', (chunk: string) => (received += chunk));
          socket.on('end', () => resolve(received));
          socket.on('error', reject);
          socket.setTimeout(10_000, () => reject(new Error(`no close; received ${JSON.stringify(received)}`)));
          socket.on('connect', () => socket.write(bytes));
        });
      }

      function parse(raw: string) {
        const [head, body] = [raw.slice(0, raw.indexOf('\r\n\r\n')), raw.slice(raw.indexOf('\r\n\r\n') + 4)];
        const [statusLine, ...headerLines] = head.split('\r\n');
        const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
      }

      it('answers headers over 16 KiB with 431 in the envelope, with X-Request-Id, and closes', async () => {
        const bigHeaders = Array.from({ length: 20 }, (_, i) => `X-Filler-${i}: ${'f'.repeat(1_000)}\r\n`).join('');
        const raw = await exchange(`GET /v1/users/me HTTP/1.1\r\nHost: 127.0.0.1\r\n${bigHeaders}\r\n`);
        const response = parse(raw);
        expect(response.status).toBe(431);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(response.body)));
        expect(response.headers.connection).toBe('close');
        expect(response.body).toEqual({
          error: { code: 'request_header_fields_too_large', message: expect.any(String), details: [], request_id: response.headers['x-request-id'] },
        });
        expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      });

      it('answers bytes that are not HTTP with 400 in the envelope, and the server keeps serving', async () => {
        const response = parse(await exchange('NOT HTTP AT ALL\r\n\r\n'));
        expect(response.status).toBe(400);
        expect(response.body.error).toEqual({ code: 'validation_error', message: expect.any(String), details: [], request_id: response.headers['x-request-id'] });
        const after = parse(await exchange('GET /v1/users/me HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
        expect(after.status).toBe(401);
        expect(after.body.error.request_id).toBe(after.headers['x-request-id']);
      });
    });
  });
  describe('what any client may send, over a real socket, with the log at info level', () => {
    let app: FastifyInstance;
    let port: number;
    const logs: string[] = [];
    beforeAll(async () => {
      const logger = createLogger('info', 'test', { write: (line: string) => void logs.push(line) });
      app = buildApp({ config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null }, logger);
      await app.listen({ port: 0, host: '127.0.0.1' });
      port = (app.server.address() as { port: number }).port;
    });
    afterAll(async () => {
      await app.close();
    });

    const errorLines = (from: number) =>
      logs
        .slice(from)
        .map((line) => JSON.parse(line) as { level: number })
        .filter((line) => line.level >= 50);

    /**
     * Writes the request head and all of `body` before reading anything (as a client streaming an
     * upload does), then reads one response: the status line, headers and the JSON body.
     */
    function sendWholeThenRead(head: string, body: Buffer = Buffer.alloc(0)) {
      return new Promise<{ status: number; requestId: string | undefined; body: any }>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let received = Buffer.alloc(0);
        const finish = () => {
          const text = received.toString('utf8');
          const split = text.indexOf('\r\n\r\n');
          if (split < 0) return false;
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(text.slice(0, split))?.[1]);
          const payload = received.subarray(Buffer.byteLength(text.slice(0, split)) + 4);
          if (!(payload.length >= length)) return false;
          socket.destroy();
          resolve({
            status: Number(text.split(' ')[1]),
            requestId: /\r\nx-request-id: ([^\r]+)/i.exec(text.slice(0, split))?.[1],
            body: JSON.parse(payload.subarray(0, length).toString('utf8')),
          });
          return true;
        };
        socket.on('data', (chunk: Buffer) => {
          received = Buffer.concat([received, chunk]);
          finish();
        });
        socket.on('error', (error) => reject(new Error(`${String(error)} after ${received.length} bytes of answer`)));
        socket.on('close', () => finish() || reject(new Error(`closed without a whole answer: ${JSON.stringify(received.toString('utf8').slice(0, 200))}`)));
        socket.setTimeout(20_000, () => reject(new Error('no answer within 20 s')));
        socket.on('connect', () => {
          socket.pause();
          socket.write(head);
          socket.write(body, (error) => (error ? reject(new Error(`the upload failed: ${String(error)}`)) : socket.resume()));
        });
      });
    }

    it.each([
      ['QUERY without a body', 'QUERY /v1/suites HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['QUERY without a body on an unknown path', 'QUERY /nothing/here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['QUERY with a JSON body', 'QUERY /v1/suites HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'],
      ['QUERY with a body of no declared type', 'QUERY /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\n\r\nabc'],
      ['PROPFIND', 'PROPFIND /v1/suites HTTP/1.1\r\nHost: 127.0.0.1\r\nDepth: 1\r\n\r\n'],
      ['PROPFIND with an XML body', 'PROPFIND / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/xml\r\nContent-Length: 4\r\n\r\n<a/>'],
      ['a made-up method', 'BREWCOFFEE /v1/suites HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['OPTIONS', 'OPTIONS /v1/suites HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://example.test\r\nAccess-Control-Request-Method: POST\r\n\r\n'],
      ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['TRACE', 'TRACE /v1/users/me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['SEARCH without a body', 'SEARCH /dashboard/api/runs/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['DELETE of a collection', 'DELETE /v1/suites HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
    ])('answers %s without credentials with a 4xx in the envelope and logs nothing at error level', async (_name, request) => {
      const before = logs.length;
      const response = await sendWholeThenRead(request);
      expect([400, 404, 405]).toContain(response.status);
      expect(response.body).toEqual({ error: { code: expect.any(String), message: expect.any(String), details: [], request_id: response.requestId } });
      expect(errorLines(before)).toEqual([]);
    });

    it('answers a 12 MiB upload sent in full with 413 payload_too_large every time, never a reset', async () => {
      const { key } = await stack.newTenant();
      const body = Buffer.alloc(12 * 1024 * 1024, 0x20);
      const before = logs.length;
      for (let attempt = 0; attempt < 6; attempt++) {
        // Half of them ask to close the connection after the answer, as many one-shot clients do.
        const close = attempt % 2 === 1 ? 'Connection: close\r\n' : '';
        const response = await sendWholeThenRead(
          `POST /v1/chains HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${close}\r\n`,
          body,
        );
        expect(response.status, `attempt ${attempt}`).toBe(413);
        expect(response.body).toEqual({ error: { code: 'payload_too_large', message: expect.any(String), details: [], request_id: response.requestId } });
      }
      // Chunked, with no length declared: refused once 1 MiB has arrived, the rest read and dropped.
      const chunked = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
      const response = await sendWholeThenRead(
        `POST /v1/chains HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        chunked,
      );
      expect(response.status).toBe(413);
      expect(response.body.error.code).toBe('payload_too_large');
      expect(errorLines(before)).toEqual([]);
    });
  });

  describe('stalled and aborted request bodies (a real socket, an app with a 1 s request timeout)', () => {
    let app: FastifyInstance;
    let port: number;
    const logs: string[] = [];
    beforeAll(async () => {
      const logger = createLogger('info', 'test', { write: (line: string) => void logs.push(line) });
      app = buildApp({ config: stack.config, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null }, logger, { requestTimeoutMs: 1_000 });
      await app.listen({ port: 0, host: '127.0.0.1' });
      port = (app.server.address() as { port: number }).port;
    });
    afterAll(async () => {
      await app.close();
    });

    /** Writes `bytes`, then waits (at most 15 s, a generous bound) for the server to close the connection. */
    function stall(bytes: string): Promise<{ received: string; closed: boolean }> {
      return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let received = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (received += chunk));
        socket.on('close', () => resolve({ received, closed: true }));
        socket.on('error', reject);
        socket.setTimeout(15_000, () => {
          socket.destroy();
          resolve({ received, closed: false });
        });
        socket.on('connect', () => socket.write(bytes));
      });
    }

    it('answers a body that stops arriving with 408 in the envelope and closes the connection', async () => {
      const { key } = await stack.newTenant();
      const { received, closed } = await stall(
        `POST /v1/chains HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      expect(closed, `still open after 15 s; received ${JSON.stringify(received)}`).toBe(true);
      const head = received.slice(0, received.indexOf('\r\n\r\n'));
      const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
      const requestId = /\r\nx-request-id: ([^\r]+)/i.exec(head)?.[1];
      expect(body).toEqual({ error: { code: 'request_timeout', message: expect.any(String), details: [], request_id: requestId } });
    });

    it('logs a client that aborts mid-body as a client error, not as a 500 at error level', async () => {
      const { key } = await stack.newTenant();
      const before = logs.length;
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', reject);
        socket.on('connect', () => {
          socket.write(
            `POST /v1/chains HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
          );
          // Long enough for the request to be authenticated and its body to be read.
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 300);
        });
      });
      // An aborted request is never answered, so Fastify writes no "request completed": wait for the
      // line our error handler writes about it.
      const parsed = () => logs.slice(before).map((line) => JSON.parse(line) as { level: number; msg: string; reqId?: string });
      const aborted = () => {
        const incoming = parsed().find((line) => line.msg === 'incoming request');
        return parsed().find((line) => incoming && line.reqId === incoming.reqId && line.msg !== 'incoming request');
      };
      const deadline = Date.now() + 10_000;
      while (!aborted() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const lines = parsed();
      expect(aborted(), JSON.stringify(lines)).toBeDefined();
      expect(lines.filter((line) => line.level >= 50), JSON.stringify(lines)).toEqual([]);
    });
  });
});
