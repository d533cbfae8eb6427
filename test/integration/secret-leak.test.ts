import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

// Distinct markers in every place a provider puts a credential.
const PATH_KEY = 'PathKeyS3cret0123456789abcdef';
const QUERY_KEY = 'QueryS3cretValue';
const USER_PASSWORD = 'UserPassS3cret';
const HEADER_VALUE = 'HeaderS3cretValue';
const PATCHED_HEADER = 'PatchedHeaderS3cret';
const SECRETS = [PATH_KEY, QUERY_KEY, USER_PASSWORD, HEADER_VALUE, PATCHED_HEADER];

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
});
