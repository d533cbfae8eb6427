import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

type Auth = { authorization: string };

/*
 * An endpoint's addresses, one per transport, every one stored the one way (encrypted, shown
 * redacted); `url` and `ws_url` are views of the http and ws ones, in requests and responses.
 * Nothing here connects anywhere.
 */
describe('endpoints: addresses by transport', () => {
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
  const details = (body: any) => body.error.details.map((d: { field: string; message: string }) => [d.field, d.message]);

  const HTTP = 'https://user:pw-S3cret@rpc.example.com/v2/S3cretKey?apikey=S3cretQuery';
  const WS = 'wss://ws.example.com/v3/WsS3cretKey';

  it('takes addresses on create and shows them redacted, with url and ws_url as their views', async () => {
    const { auth } = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/endpoints', auth, {
      chain_id: await chainOf(auth),
      name: 'node',
      addresses: [
        { transport: 'ws', url: WS },
        { transport: 'http', url: HTTP },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      url: 'https://****@rpc.example.com/****/****?****',
      ws_url: 'wss://ws.example.com/****/****',
      addresses: [
        { transport: 'http', url: 'https://****@rpc.example.com/****/****?****' },
        { transport: 'ws', url: 'wss://ws.example.com/****/****' },
      ],
    });
    const fetched = await get<any>(stack.app, `/v1/endpoints/${created.body.id}`, auth);
    expect(fetched.body).toEqual(created.body);
    for (const body of [created.body, fetched.body]) expect(JSON.stringify(body)).not.toMatch(/S3cret|pw-/);
    const [row] = await stack.sql<any[]>`select * from endpoints where id = ${created.body.id}`;
    expect(JSON.stringify(row)).not.toMatch(/S3cret/);
    expect(row.addresses.map((a: { transport: string; url_encrypted: string }) => [a.transport, stack.box.decrypt(a.url_encrypted)])).toEqual([
      ['http', HTTP],
      ['ws', WS],
    ]);
  });

  it('an endpoint created with url and ws_url has them as its http and ws addresses', async () => {
    const { auth } = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: await chainOf(auth), name: 'n', url: 'https://a.example.com/', ws_url: 'wss://a.example.com/' });
    expect(created.status).toBe(201);
    expect(created.body.addresses).toEqual([
      { transport: 'http', url: 'https://a.example.com/' },
      { transport: 'ws', url: 'wss://a.example.com/' },
    ]);
  });

  it.each([
    [
      'a transport given twice',
      { url: 'https://a.example.com/', addresses: [{ transport: 'http', url: 'https://b.example.com/' }] },
      [['addresses.0.transport', 'the http address is given twice (also as url): give each transport once']],
    ],
    ['no http address', { addresses: [{ transport: 'ws', url: WS }] }, [['url', 'an endpoint needs an http address: give url (or an address of transport http in addresses)']]],
    ['a URL of another transport\'s scheme', { addresses: [{ transport: 'http', url: WS }] }, [['addresses.0.url', 'must be an http or https URL']]],
    ['a transport the registry lacks', { url: 'https://a.example.com/', addresses: [{ transport: 'grpc', url: 'https://g.example.com/' }] }, [['addresses.0.transport', expect.any(String)]]],
    [
      'a private literal with a key',
      { addresses: [{ transport: 'http', url: 'https://rpcuser:S3cretPw@10.0.0.5/S3cretPath' }] },
      [['addresses.0.url', 'is a private address, refused while RVS_ALLOW_PRIVATE_TARGETS is off (an operator sets RVS_ALLOW_PRIVATE_TARGETS=true to allow loopback and private addresses)']],
    ],
  ])('refuses %s with 400 on the field, never repeating the URL', async (_name, body, expected) => {
    const { auth } = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: await chainOf(auth), name: 'n', ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(400);
    expect(details(created.body)).toEqual(expected);
    expect(JSON.stringify(created.body)).not.toMatch(/S3cret|rpcuser/);
  });

  it('PATCH addresses replaces them all, keeps the ciphertext of an equal one, and writes nothing when all are equal', async () => {
    const { auth } = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: await chainOf(auth), name: 'n', url: HTTP, ws_url: WS });
    expect(created.status).toBe(201);
    const path = `/v1/endpoints/${created.body.id}`;
    const [before] = await stack.sql<any[]>`select addresses from endpoints where id = ${created.body.id}`;

    const same = await patch(path, auth, { addresses: [{ transport: 'http', url: HTTP }, { transport: 'ws', url: WS }] });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(created.body);

    // The ws address goes (left out of the list); the http one is equal and keeps its ciphertext.
    const dropped = await patch(path, auth, { addresses: [{ transport: 'http', url: HTTP }] });
    expect(dropped.status, dropped.raw).toBe(200);
    expect(dropped.body.ws_url).toBeNull();
    expect(dropped.body.addresses).toEqual([{ transport: 'http', url: created.body.url }]);
    const [after] = await stack.sql<any[]>`select addresses, ws_url_encrypted from endpoints where id = ${created.body.id}`;
    expect(after.addresses).toEqual([before.addresses[0]]);
    expect(after.ws_url_encrypted).toBeNull();

    const mixed = await patch(path, auth, { url: HTTP, addresses: [{ transport: 'http', url: HTTP }] });
    expect(mixed.status).toBe(400);
    expect(details(mixed.body)).toEqual([['addresses', 'addresses replaces every address: give it without url and ws_url']]);
    const noHttp = await patch(path, auth, { addresses: [{ transport: 'ws', url: WS }] });
    expect(noHttp.status).toBe(400);
    expect(noHttp.raw).not.toMatch(/S3cret/);
  });
});
