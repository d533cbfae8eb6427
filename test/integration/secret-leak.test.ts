import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

// Distinct markers in every place a provider puts a credential.
const PATH_KEY = 'PathKeyS3cret0123456789abcdef';
const QUERY_KEY = 'QueryS3cretValue';
const USER_PASSWORD = 'UserPassS3cret';
const HEADER_VALUE = 'HeaderS3cretValue';
const PATCHED_HEADER = 'PatchedHeaderS3cret';
const WS_KEY = 'WsPathKeyS3cret0123456789';
const SECRETS = [PATH_KEY, QUERY_KEY, USER_PASSWORD, HEADER_VALUE, PATCHED_HEADER, WS_KEY];

describe('endpoint secrets', () => {
  let stack: Stack;
  let node: FakeNode;
  beforeAll(async () => {
    stack = await startStack({ captureLogs: true });
    node = await startFakeNode(answers.ok());
  });
  afterAll(async () => {
    await node.close();
    await stack.close();
  });

  it('never appear in any response, log line or error message, while the probe does use them', async () => {
    const { auth } = await stack.newTenant();
    const url = `${node.url.replace('http://', `http://user:${USER_PASSWORD}@`)}/v3/${PATH_KEY}?apikey=${QUERY_KEY}`;
    const setup = await createSuite(stack.app, auth, {
      candidates: [url],
      headers: { 'x-api-key': HEADER_VALUE },
      config: { workload: { requests_per_target: 20, warmup_requests: 0 } },
    });
    const endpoint = `/v1/endpoints/${setup.endpointIds[0]}`;
    const bodies: string[] = [];
    const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object) => {
      const response = await stack.app.inject({ method, url: path, headers: auth, ...(payload ? { payload } : {}) });
      bodies.push(response.body);
      return response;
    };

    await call('GET', endpoint);
    await call('GET', '/v1/endpoints');
    expect((await call('PATCH', endpoint, { name: 'renamed', headers: { 'x-api-key': PATCHED_HEADER } })).statusCode).toBe(200);
    // Errors must not echo what was sent either: a bad field next to a secret URL, a bad header value.
    expect((await call('POST', '/v1/endpoints', { chain_id: setup.chainId, name: '', url, headers: { 'x-api-key': `${HEADER_VALUE}\n` } })).statusCode).toBe(400);
    expect((await call('PATCH', endpoint, { url: `ftp://x/${PATH_KEY}` })).statusCode).toBe(400);
    // The WebSocket URL is the same kind of secret: set, refused and shown only redacted.
    expect((await call('PATCH', endpoint, { ws_url: `wss://user:${USER_PASSWORD}@ws.example.com/v3/${WS_KEY}?apikey=${QUERY_KEY}` })).statusCode).toBe(200);
    expect((await call('PATCH', endpoint, { ws_url: `ws://169.254.169.254/${WS_KEY}?apikey=${QUERY_KEY}` })).statusCode).toBe(400);
    expect((await call('POST', '/v1/endpoints', { chain_id: setup.chainId, name: '', url, ws_url: `wss://ws.example.com/${WS_KEY}` })).statusCode).toBe(400);
    expect((await call('GET', endpoint)).json().ws_url).toBe('wss://****@ws.example.com/****/****?****');

    const created = await call('POST', `/v1/suites/${setup.suiteId}/runs`);
    const run = await waitForRun(stack.app, auth, created.json().id);
    expect(run.status).toBe('success');
    for (const path of [`/v1/runs/${run.id}`, `/v1/runs/${run.id}/verdict`, `/v1/runs/${run.id}/metrics`, `/v1/runs/${run.id}/samples`, '/v1/runs']) {
      expect((await call('GET', path)).statusCode).toBe(200);
    }
    // Deleting the endpoint is refused (runs reference it); the message names it, not its URL.
    expect((await call('DELETE', endpoint)).statusCode).toBe(409);

    // The probe really sent the (patched) credential and the secret path…
    expect(node.requests.at(-1)!.headers['x-api-key']).toBe(PATCHED_HEADER);
    expect(node.requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from(`user:${USER_PASSWORD}`).toString('base64')}`);
    // …and none of it is anywhere a person or another system can read.
    expect(stack.logs.length).toBeGreaterThan(10);
    const everything = [...bodies, ...stack.logs].join('\n');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
    const [row] = await stack.sql`select * from endpoints where id = ${setup.endpointIds[0]!}`;
    for (const secret of SECRETS) expect(JSON.stringify(row)).not.toContain(secret);
  });

  it('of a trigger\'s ephemeral targets never appear in responses, logs, the run\'s rows or its workflow history, while the probe uses them', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { workload: { requests_per_target: 20, warmup_requests: 0 } },
    });
    const url = `${node.url.replace('http://', `http://user:${USER_PASSWORD}@`)}/v3/${PATH_KEY}?apikey=${QUERY_KEY}`;
    const bodies: string[] = [];
    const call = async (method: 'GET' | 'POST', path: string, payload?: object, headers: Record<string, string> = {}) => {
      const response = await stack.app.inject({ method, url: path, headers: { ...auth, ...headers }, ...(payload ? { payload } : {}) });
      bodies.push(response.body, JSON.stringify(response.headers));
      return response;
    };
    const trigger = { targets: [{ url, name: 'preview', headers: { 'x-api-key': HEADER_VALUE } }], branch: 'pr-1' };

    // Refused triggers must not echo the URL or header value next to the bad field either.
    const refused = [
      { targets: [{ url, headers: { 'x-api-key': `${HEADER_VALUE}\n` } }] },
      { targets: [{ url: `ftp://x/${PATH_KEY}` }] },
      { targets: [{ url: `http://169.254.169.254/${PATH_KEY}?k=${QUERY_KEY}` }] },
      { targets: [{ url, headers: { 'x-api-key': HEADER_VALUE } }], branch: 'bad branch' },
    ];
    for (const body of refused) expect((await call('POST', `/v1/suites/${setup.suiteId}/runs`, body)).statusCode).toBe(400);

    const created = await call('POST', `/v1/suites/${setup.suiteId}/runs`, trigger, { 'idempotency-key': 'leak-check' });
    expect(created.statusCode).toBe(201);
    const replayed = await call('POST', `/v1/suites/${setup.suiteId}/runs`, trigger, { 'idempotency-key': 'leak-check' });
    expect(replayed.headers['idempotency-replayed']).toBe('true');
    const run = await waitForRun(stack.app, auth, created.json().id);
    expect(run.status).toBe('success');
    expect(run.targets[0]).toMatchObject({ endpoint_name: 'preview', ephemeral: true, endpoint_url: `http://****@127.0.0.1:${new URL(node.url).port}/****/****?****` });
    for (const path of [`/v1/runs/${run.id}`, `/v1/runs/${run.id}/verdict`, `/v1/runs/${run.id}/metrics`, `/v1/runs/${run.id}/samples`, '/v1/runs', `/v1/suites/${setup.suiteId}/trend`, '/v1/endpoints']) {
      expect((await call('GET', path)).statusCode).toBe(200);
    }

    // The probe really sent the header and the credentials in the URL…
    expect(node.requests.at(-1)!.headers['x-api-key']).toBe(HEADER_VALUE);
    expect(node.requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from(`user:${USER_PASSWORD}`).toString('base64')}`);
    // …and none of it is in a response, a log line, the run's rows (the endpoint row holds it
    // encrypted), a kept idempotent response, or any payload of the run's workflow history.
    const history = await stack.client.workflow.getHandle(workflowIdForRun(run.id)).fetchHistory();
    const historyText = JSON.stringify(history, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value));
    expect(historyText).toContain(run.id); // payloads decoded: the run id is in the workflow's input
    const rows = await stack.sql`
      select (select to_jsonb(r) from runs r where r.id = ${run.id}) as run,
             (select jsonb_agg(to_jsonb(t)) from run_targets t where t.run_id = ${run.id}) as targets,
             (select jsonb_agg(to_jsonb(e)) from endpoints e where e.owner_run_id = ${run.id}) as endpoints,
             (select jsonb_agg(to_jsonb(k)) from idempotency_keys k where k.key = 'leak-check') as kept`;
    const everything = [...bodies, ...stack.logs, historyText, JSON.stringify(rows)].join('\n');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
    expect(stack.box.decrypt(rows[0]!.endpoints[0].url_encrypted)).toBe(url);
  });
});
