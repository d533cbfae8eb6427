import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

type Auth = { authorization: string };

/*
 * An endpoint's WebSocket URL is a secret like its HTTP url: encrypted at rest, shown redacted,
 * validated by the same outbound rules. Nothing here connects anywhere: the refusals are the
 * classifier's, at creation.
 */
describe('endpoints: ws_url beside url', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ worker: false, env: { RVS_ALLOW_PRIVATE_TARGETS: 'false' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  async function patch(url: string, auth: Auth, payload: unknown) {
    const response = await stack.app.inject({ method: 'PATCH', url, headers: auth, payload: payload as object });
    return { status: response.statusCode, body: response.json<any>(), raw: response.body };
  }
  async function chainOf(auth: Auth): Promise<string> {
    const chain = await post<any>(stack.app, '/v1/chains', auth, { name: 'Chain', slug: `c-${randomUUID().slice(0, 8)}`, chain_id: 1337 });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    return chain.body.id;
  }
  const fields = (body: any) => body.error.details.map((d: { field: string }) => d.field).sort();

  const WS_URL = 'wss://user:pw-WsS3cret@ws.example.com/v3/WsS3cretKey0123456789abcdef?apikey=WsS3cretQuery';
  const WS_REDACTED = 'wss://****@ws.example.com/****/****?****';

  it('stores ws_url encrypted and returns it redacted on create, get, list and patch; PATCH sets, keeps and clears it', async () => {
    const { auth } = await stack.newTenant();
    const chainId = await chainOf(auth);
    const created = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'node', url: 'https://rpc.example.com/', ws_url: WS_URL });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ url: 'https://rpc.example.com/', ws_url: WS_REDACTED });
    const fetched = await get<any>(stack.app, `/v1/endpoints/${created.body.id}`, auth);
    expect(fetched.body.ws_url).toBe(WS_REDACTED);
    const listed = await get<any>(stack.app, '/v1/endpoints', auth);
    expect(listed.body.data[0].ws_url).toBe(WS_REDACTED);
    for (const body of [created.body, fetched.body, listed.body]) expect(JSON.stringify(body)).not.toMatch(/S3cret|pw-/);
    const [row] = await stack.sql<any[]>`select * from endpoints where id = ${created.body.id}`;
    expect(JSON.stringify(row)).not.toMatch(/S3cret/);
    expect(row.ws_url_redacted).toBe(WS_REDACTED);
    expect(stack.box.decrypt(row.ws_url_encrypted)).toBe(WS_URL);

    // The same value again is no change: nothing is written, not even encrypted afresh.
    const same = await patch(`/v1/endpoints/${created.body.id}`, auth, { ws_url: WS_URL });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(created.body);
    const [unchanged] = await stack.sql<any[]>`select * from endpoints where id = ${created.body.id}`;
    expect(unchanged).toEqual(row);

    const other = 'ws://ws.example.org:8546/OtherS3cret';
    const changed = await patch(`/v1/endpoints/${created.body.id}`, auth, { ws_url: other });
    expect(changed.status, changed.raw).toBe(200);
    expect(changed.body.ws_url).toBe('ws://ws.example.org:8546/****');
    expect(changed.raw).not.toMatch(/S3cret/);
    const [afterChange] = await stack.sql<any[]>`select ws_url_encrypted from endpoints where id = ${created.body.id}`;
    expect(stack.box.decrypt(afterChange!.ws_url_encrypted)).toBe(other);

    const cleared = await patch(`/v1/endpoints/${created.body.id}`, auth, { ws_url: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.ws_url).toBeNull();
    expect(cleared.body.url).toBe('https://rpc.example.com/');
    const [afterClear] = await stack.sql<any[]>`select ws_url_redacted, ws_url_encrypted from endpoints where id = ${created.body.id}`;
    expect(afterClear).toEqual({ ws_url_redacted: null, ws_url_encrypted: null });
    // Clearing what is already clear writes nothing.
    const again = await patch(`/v1/endpoints/${created.body.id}`, auth, { ws_url: null });
    expect(again.body.updated_at).toBe(cleared.body.updated_at);
  });

  it('an endpoint without ws_url shows null', async () => {
    const { auth } = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: await chainOf(auth), name: 'n', url: 'https://rpc.example.com/' });
    expect(created.status).toBe(201);
    expect(created.body.ws_url).toBeNull();
  });

  it.each([
    ['the cloud metadata address', 'ws://169.254.169.254/latest', 'link-local and reserved addresses are never probed'],
    ['an IPv6 link-local literal', 'wss://[fe80::1]:8546/S3cretKey', 'link-local and reserved addresses are never probed'],
    ['a reserved literal', 'ws://0.0.0.0:8546/', 'link-local and reserved addresses are never probed'],
    ['a private literal with a key', 'wss://rpcuser:S3cretPw@10.0.0.5/S3cretPath?apikey=S3cret', 'is a private address, refused while RVS_ALLOW_PRIVATE_TARGETS is off'],
    ['a loopback literal', 'ws://127.0.0.1:8546/', 'is a loopback address, refused while RVS_ALLOW_PRIVATE_TARGETS is off'],
    ['localhost', 'ws://localhost:8546/', 'is a loopback address, refused while RVS_ALLOW_PRIVATE_TARGETS is off'],
    ['an http URL', 'https://rpc.example.com/', 'must be a ws or wss URL'],
    ['no URL', 'not a url', 'must be a ws or wss URL'],
  ])('refuses %s as ws_url with 400 on create and on patch, naming the field and never the URL', async (_name, wsUrl, message) => {
    const { auth } = await stack.newTenant();
    const chainId = await chainOf(auth);
    const created = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'n', url: 'https://rpc.example.com/', ws_url: wsUrl });
    expect(created.status).toBe(400);
    expect(fields(created.body)).toEqual(['ws_url']);
    expect(created.body.error.details[0].message).toContain(message);
    expect(JSON.stringify(created.body)).not.toMatch(/S3cret|rpcuser/);
    expect((await get<any>(stack.app, '/v1/endpoints', auth)).body.pagination.total).toBe(0);

    const ok = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'n', url: 'https://rpc.example.com/', ws_url: 'wss://ws.example.com/' });
    expect(ok.status).toBe(201);
    const patched = await patch(`/v1/endpoints/${ok.body.id}`, auth, { ws_url: wsUrl });
    expect(patched.status).toBe(400);
    expect(fields(patched.body)).toEqual(['ws_url']);
    expect(patched.raw).not.toMatch(/S3cret|rpcuser/);
    expect((await get<any>(stack.app, `/v1/endpoints/${ok.body.id}`, auth)).body.ws_url).toBe('wss://ws.example.com/');
  });
});
