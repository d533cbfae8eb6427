import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { endpointClientVersion, openEndpointClient } from '../../activities/endpoint-client';
import { CHAINS } from '../../src/chains/registry';
import { SecretBox } from '../../src/crypto/secret-box';
import type { EndpointRow } from '../../src/db/endpoints';

// Nothing here connects: clients open their sockets with their first call.

const box = new SecretBox(randomBytes(32).toString('hex'));
const address = (transport: string, url: string) => ({ transport, url_redacted: url, url_encrypted: box.encrypt(url) });
const endpoint = (wsUrl: string | null) =>
  ({
    name: 'node',
    protocol: 'json-rpc-http',
    addresses: [address('http', 'http://127.0.0.1:1/'), ...(wsUrl === null ? [] : [address('ws', wsUrl)])],
    headers_encrypted: null,
  }) as EndpointRow;

describe('endpointClientVersion', () => {
  it('counts the ws_url only for a WebSocket workload', () => {
    const a = endpoint('ws://127.0.0.1:1/a');
    const b = { ...a, addresses: [a.addresses[0]!, address('ws', 'ws://127.0.0.1:1/b')] };
    expect(endpointClientVersion(a, 'http')).toBe(endpointClientVersion(b, 'http'));
    expect(endpointClientVersion(a)).toBe(endpointClientVersion(b));
    expect(endpointClientVersion(a, 'ws')).not.toBe(endpointClientVersion(b, 'ws'));
    expect(endpointClientVersion(a, 'ws')).not.toBe(endpointClientVersion(a, 'http'));
  });
});

describe('openEndpointClient', () => {
  const options = { timeoutMs: 1_000, connections: 1, chain: CHAINS.evm };
  const deps = { box, allowPrivateTargets: false };

  it('opens over the ws_url for a ws workload, through the outbound guard', () => {
    // The HTTP url is loopback too: only the ws_url (link-local) is refused when ws is asked for.
    expect(() => openEndpointClient(deps, endpoint('ws://169.254.169.254/k'), { ...options, transport: 'ws' })).toThrow(/refused to connect to a link_local address/);
    expect(() => openEndpointClient(deps, endpoint('ws://169.254.169.254/k'), options)).toThrow(/refused to connect to a loopback address/);
  });

  it('fails for good, naming no URL, when a ws workload meets an endpoint without ws_url', () => {
    let error: unknown;
    try {
      openEndpointClient(deps, endpoint(null), { ...options, transport: 'ws' });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ type: 'EndpointHasNoWsUrl', nonRetryable: true });
    expect((error as Error).message).toBe("endpoint node: the endpoint has no ws_url, and the workload's transport is ws");
  });
});
