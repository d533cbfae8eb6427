import { describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/chains/registry';
import { ENDPOINT_PROTOCOLS } from '../../src/domain/endpoint-protocol';
import { OutboundAddressRefusedError, refusedLiteral } from '../../src/net/guarded-lookup';
import { transportFor, UnknownProtocolError } from '../../src/probe/transports';
import { createEndpointInput } from '../../src/services/endpoints';
import { workloadSchema } from '../../src/domain/suite-config';
import { HEAD_WATCH_VIAS, headWatchTransport, TRANSPORT_REGISTRY, TRANSPORTS } from '../../src/domain/transport';
import { Freshness, Workload } from '../../src/http/routes/suites/schemas';

// Nothing here connects: a refused IP literal is refused before a socket is opened.

describe('transportFor', () => {
  it('has a transport for every endpoint protocol', () => {
    for (const protocol of ENDPOINT_PROTOCOLS) expect(typeof transportFor(protocol)).toBe('function');
  });

  it('the protocol an endpoint gets by default has a transport', () => {
    const parsed = createEndpointInput.parse({ chain_id: '00000000-0000-4000-8000-000000000000', name: 'a', url: 'https://node.example.com/' });
    expect(ENDPOINT_PROTOCOLS).toContain(parsed.protocol);
  });

  it('refuses a stored protocol this worker has no transport for, naming only the protocol', () => {
    expect(() => transportFor('json-rpc-ws')).toThrow(UnknownProtocolError);
    expect(() => transportFor('json-rpc-ws')).toThrow('endpoint protocol "json-rpc-ws" is not supported by this worker');
  });

  it('opens json-rpc-http through the outbound guard: a link-local literal is refused before connecting', () => {
    const open = transportFor('json-rpc-http');
    const target = { addresses: { http: 'http://user:secret@169.254.169.254/key' }, headers: {}, timeoutMs: 1000 };
    expect(() => open(target, { connections: 1, allowPrivateTargets: true, answers: CHAINS.evm })).toThrow(OutboundAddressRefusedError);
    expect(() => open(target, { connections: 1, allowPrivateTargets: true, answers: CHAINS.evm })).toThrow(/^refused to connect to a link_local address$/);
  });
});

describe('the transport registry', () => {
  it('is what the suite\'s workload.transport accepts, in the stored schema and the response schema alike', () => {
    expect(TRANSPORTS).toEqual(Object.keys(TRANSPORT_REGISTRY));
    for (const transport of TRANSPORTS) {
      expect(workloadSchema.parse({ methods: [{ method: 'eth_blockNumber' }], transport }).transport).toBe(transport);
      expect(Workload.shape.transport.unwrap().options).toContain(transport);
    }
    expect(() => workloadSchema.parse({ methods: [{ method: 'eth_blockNumber' }], transport: 'grpc' })).toThrow();
  });

  it('gives every endpoint protocol a client for every transport, reached only through the endpoint\'s address of it', () => {
    const options = { connections: 1, allowPrivateTargets: true, answers: CHAINS.evm };
    for (const protocol of ENDPOINT_PROTOCOLS) {
      for (const transport of TRANSPORTS) {
        const open = transportFor(protocol, transport);
        expect(() => open({ addresses: {}, headers: {}, timeoutMs: 1_000 }, options)).toThrow(`the endpoint has no ${TRANSPORT_REGISTRY[transport].legacyField}`);
        const url = `${TRANSPORT_REGISTRY[transport].schemes[0]}://169.254.169.254/key`;
        expect(() => open({ addresses: { [transport]: url }, headers: {}, timeoutMs: 1_000 }, options)).toThrow(/^refused to connect to a link_local address$/);
      }
    }
  });

  it('runs a head watch over the transport whose entry watches that way, and a suite may ask for each way', () => {
    expect(headWatchTransport('subscribe')).toBe('ws');
    expect(headWatchTransport('poll')).toBe('http');
    expect([...HEAD_WATCH_VIAS].sort()).toEqual(['poll', 'subscribe']);
    expect(Freshness.shape.via.options).toEqual(HEAD_WATCH_VIAS);
  });
});

describe('refusedLiteral', () => {
  it('judges IP-literal hosts by the policy and leaves names to the guarded lookup', () => {
    expect(refusedLiteral(new URL('http://169.254.169.254/'), true)).toBe('link_local');
    expect(refusedLiteral(new URL('http://[::ffff:127.0.0.1]:8545/'), false)).toBe('loopback');
    expect(refusedLiteral(new URL('http://127.0.0.1:8545/'), true)).toBeNull();
    expect(refusedLiteral(new URL('http://10.0.0.1/'), false)).toBe('private');
    expect(refusedLiteral(new URL('http://0x7f.1/'), false)).toBe('loopback');
    expect(refusedLiteral(new URL('http://node.example.com/'), false)).toBeNull();
    expect(refusedLiteral(new URL('http://8.8.8.8/'), false)).toBeNull();
  });
});
