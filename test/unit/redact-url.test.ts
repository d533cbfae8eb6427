import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactUrl } from '../../src/domain/redact-url';

const INFURA_KEY = '0123456789abcdef0123456789abcdef';
const ALCHEMY_KEY = 'AbCdEfGh-IjKl_MnOpQrStUv12';
const QUICKNODE_TOKEN = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

describe('redactUrl', () => {
  it.each([
    {
      name: 'userinfo with a password',
      raw: 'https://alice:s3cretPassw0rd@node.example.com/rpc',
      expected: 'https://****@node.example.com/****',
      secrets: ['alice', 's3cretPassw0rd'],
    },
    {
      name: 'userinfo with a user only',
      raw: 'https://apitoken99@node.example.com/',
      expected: 'https://****@node.example.com/',
      secrets: ['apitoken99'],
    },
    {
      name: 'userinfo with a password only',
      raw: 'https://:hunter2hunter2@node.example.com/',
      expected: 'https://****@node.example.com/',
      secrets: ['hunter2hunter2'],
    },
    {
      name: 'query names and values',
      raw: 'https://node.example.com/rpc?apikey=topsecret&network=mainnet',
      expected: 'https://node.example.com/****?****',
      secrets: ['topsecret', 'apikey'],
    },
    {
      name: 'a bare query token (no name=value)',
      raw: 'https://node.example.com/?TOKEN42',
      expected: 'https://node.example.com/?****',
      secrets: ['TOKEN42'],
    },
    {
      name: 'repeated query names',
      raw: 'https://node.example.com/?key=first-secret&key=second-secret',
      expected: 'https://node.example.com/?****',
      secrets: ['first-secret', 'second-secret'],
    },
    {
      name: 'Infura-style /v3/<32 hex>',
      raw: `https://mainnet.infura.io/v3/${INFURA_KEY}`,
      expected: 'https://mainnet.infura.io/****/****',
      secrets: [INFURA_KEY],
    },
    {
      name: 'Alchemy-style /v2/<key>',
      raw: `https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY_KEY}`,
      expected: 'https://eth-mainnet.g.alchemy.com/****/****',
      secrets: [ALCHEMY_KEY],
    },
    {
      name: 'QuickNode-style /<64 hex>/ (trailing slash kept)',
      raw: `https://still-frosty-moon.quiknode.pro/${QUICKNODE_TOKEN}/`,
      expected: 'https://still-frosty-moon.quiknode.pro/****/',
      secrets: [QUICKNODE_TOKEN],
    },
    {
      name: 'a short segment (under 16 characters)',
      raw: 'https://rpc.example.com/v2/abc',
      expected: 'https://rpc.example.com/****/****',
      secrets: ['abc'],
    },
    {
      name: 'a segment with a colon',
      raw: 'https://rpc.example.com/key:SECRET',
      expected: 'https://rpc.example.com/****',
      secrets: ['SECRET'],
    },
    ...[':', '+', '@', '!', '$', ',', '(', "'", '*', ';', '='].map((char) => ({
      name: `a segment with "${char}"`,
      raw: `https://rpc.example.com/api/k${char}Zq9xSecretValue`,
      expected: 'https://rpc.example.com/****/****',
      secrets: ['Zq9xSecretValue'],
    })),
    {
      name: 'a percent-encoded segment',
      raw: 'https://rpc.example.com/k%20ey%3ASECRET',
      expected: 'https://rpc.example.com/****',
      secrets: ['SECRET', '%3A'],
    },
    {
      name: 'empty segments stay empty',
      raw: 'https://rpc.example.com//v2//abc',
      expected: 'https://rpc.example.com//****//****',
      secrets: ['abc', 'v2'],
    },
    {
      name: 'key in the path and in the query and userinfo together, port kept',
      raw: `https://bob:pw-pw-pw@rpc.example.com:8545/v3/${INFURA_KEY}?token=abc123`,
      expected: 'https://****@rpc.example.com:8545/****/****?****',
      secrets: ['bob', 'pw-pw-pw', INFURA_KEY, 'abc123'],
    },
    {
      name: 'a fragment is dropped',
      raw: 'https://node.example.com/rpc#SuperSecretFragment123',
      expected: 'https://node.example.com/****',
      secrets: ['SuperSecretFragment123'],
    },
    {
      name: 'an empty query is dropped',
      raw: 'https://node.example.com/?',
      expected: 'https://node.example.com/',
      secrets: [],
    },
  ])('redacts $name', ({ raw, expected, secrets }) => {
    const redacted = redactUrl(raw);
    expect(redacted).toBe(expected);
    for (const secret of secrets) expect(redacted).not.toContain(secret);
  });

  it.each([
    'https://node.example.com/',
    'https://eth-mainnet.public.blastapi.io/',
    'http://127.0.0.1:8545/',
    'http://[::1]:8545/',
  ])('keeps a root URL unchanged: %s', (raw) => {
    expect(redactUrl(raw)).toBe(raw);
  });

  it.each([
    { name: 'a relative path', raw: '/v3/0123456789abcdef0123456789abcdef' },
    { name: 'plain text', raw: 'not a url' },
    { name: 'an empty string', raw: '' },
    { name: 'a host with a space', raw: 'https://bad host/SecretKey0123456789' },
    { name: 'a bad port', raw: 'https://node.example.com:99999/SecretKey0123456789' },
  ])('returns **** for unparsable input ($name)', ({ raw }) => {
    expect(redactUrl(raw)).toBe(REDACTED);
  });
});

describe('redactUrl with keepPath (a URL of our own service)', () => {
  it.each([
    { raw: 'http://rvs.test/v1', expected: 'http://rvs.test/v1' },
    { raw: 'https://user:secret@rvs.example.com:8443/prefix/v1', expected: 'https://****@rvs.example.com:8443/prefix/v1' },
    { raw: 'https://rvs.example.com/v1?token=secret', expected: 'https://rvs.example.com/v1?****' },
    { raw: 'http://user:secret@ho st/', expected: REDACTED },
  ])('$raw → $expected', ({ raw, expected }) => {
    expect(redactUrl(raw, { keepPath: true })).toBe(expected);
  });
});

describe('redactUrl properties', () => {
  const BASE = 'https://rpc.example.com:8545';
  /** Scheme, host and port, then only slashes and ****; at most one redacted query. */
  const SHAPE = /^https:\/\/(\*{4}@)?rpc\.example\.com:8545(\/(\*{4})?)*(\?\*{4})?$/;
  // Secrets carry a marker that occurs nowhere in the base URL, so "not contained" means something.
  const secret = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).map((s) => `Zq${s}`);

  it('never lets a path segment or query value through, whatever its characters', () => {
    fc.assert(
      fc.property(fc.array(secret, { minLength: 1, maxLength: 5 }), fc.array(fc.tuple(fc.string(), secret), { maxLength: 3 }), (segments, query) => {
        const path = segments.map((s) => `/${encodeURIComponent(s)}`).join('');
        const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
        const redacted = redactUrl(`${BASE}${path}${search ? `?${search}` : ''}`);
        expect(redacted).toMatch(SHAPE);
        for (const s of [...segments, ...query.map(([, value]) => value)]) {
          expect(redacted).not.toContain(s);
          expect(redacted).not.toContain(encodeURIComponent(s));
        }
      }),
    );
  });

  it('keeps only scheme, host and port for any raw text after the authority', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80, unit: 'binary' }), fc.option(fc.tuple(secret, secret)), (rest, userinfo) => {
        const auth = userinfo ? `${encodeURIComponent(userinfo[0])}:${encodeURIComponent(userinfo[1])}@` : '';
        const redacted = redactUrl(`https://${auth}rpc.example.com:8545/${rest}`);
        expect(redacted).toMatch(SHAPE);
      }),
    );
  });
});
