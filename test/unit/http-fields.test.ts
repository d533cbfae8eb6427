import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEADER_NAME, isClientSetHeader, isValidHeaderName, isValidHeaderValue } from '../../src/domain/http-fields';

/*
 * The endpoints API stores a tenant's headers and the probe client sends them through undici on
 * every request of every run: a header the API accepts but undici refuses fails every run. These
 * tests build undici's own request object (the constructor that validates headers before anything
 * is sent) from everything the API rule accepts.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- undici's request validation is not exported
const UndiciRequest = require('undici/lib/core/request.js') as new (origin: string, options: object, handler: object) => unknown;

/** What the endpoints API accepts (src/services/endpoints.ts applies exactly these). */
const apiAccepts = (name: string, value: string) => isValidHeaderName(name) && !isClientSetHeader(name) && isValidHeaderValue(value);

/** Builds the request the probe client would send with this header (src/probe/json-rpc-client.ts). */
function buildUndiciRequest(name: string, value: string): void {
  const headers = { 'content-type': 'application/json', 'user-agent': 'run-verification-service', [name.toLowerCase()]: value };
  new UndiciRequest('http://127.0.0.1:1', { path: '/', method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}' }, { onRequestStart() {} });
}

describe('HTTP header fields: what the endpoints API accepts, undici sends', () => {
  it.each([
    ['Host', 'example.test'],
    ['content-length', '10'],
    ['Content-Type', 'text/plain'],
    ['transfer-encoding', 'chunked'],
    ['Connection', 'close'],
    ['Expect', '100-continue'],
    ['upgrade', 'websocket'],
    ['Keep-Alive', 'timeout=5'],
  ])('refuses %s, which the probe client sets or undici refuses', (name, value) => {
    expect(apiAccepts(name, value)).toBe(false);
  });

  it.each([
    ['Authorization', 'Bearer abc.def'],
    ['X-Api-Key', 'k3y'],
    ['x-empty', ''],
    ['X-Obs-Text', 'caf\u00e9'],
    ['X-Inner-Tab', 'a\tb'],
    ['User-Agent', 'my-ci/1.0'],
    ['TE', 'trailers'],
  ])('accepts %s, and undici builds the request', (name, value) => {
    expect(apiAccepts(name, value)).toBe(true);
    expect(() => buildUndiciRequest(name, value)).not.toThrow();
  });

  it('every header name and value the API accepts can be built into an undici request', () => {
    const nameChar = fc.constantFrom(..."ABCXYZabcxyz0189!#$%&'*+.^_`|~-");
    const names = fc.oneof(
      fc.stringMatching(HEADER_NAME),
      fc.array(nameChar, { minLength: 1, maxLength: 12 }).map((chars) => chars.join('')),
      // Every name undici or the probe client treats specially, in any letter case.
      fc
        .constantFrom('host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'expect', 'upgrade', 'keep-alive', 'te', 'trailer')
        .chain((name) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''))),
    );
    const values = fc.oneof(
      fc.string({ unit: fc.integer({ min: 0, max: 0x1ff }).map((code) => String.fromCharCode(code)), maxLength: 24 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 24 }),
    );
    fc.assert(
      fc.property(names, values, (name, value) => {
        fc.pre(apiAccepts(name, value));
        buildUndiciRequest(name, value);
      }),
      { numRuns: 2_000 },
    );
  });
});
