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
      expected: 'https://****@node.example.com/rpc',
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
      name: 'query values, names kept',
      raw: 'https://node.example.com/rpc?apikey=topsecret&network=mainnet',
      expected: 'https://node.example.com/rpc?apikey=****&network=****',
      secrets: ['topsecret'],
    },
    {
      name: 'repeated query names',
      raw: 'https://node.example.com/?key=first-secret&key=second-secret',
      expected: 'https://node.example.com/?key=****&key=****',
      secrets: ['first-secret', 'second-secret'],
    },
    {
      name: 'Infura-style /v3/<32 hex>',
      raw: `https://mainnet.infura.io/v3/${INFURA_KEY}`,
      expected: 'https://mainnet.infura.io/v3/****',
      secrets: [INFURA_KEY],
    },
    {
      name: 'Alchemy-style /v2/<key>',
      raw: `https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY_KEY}`,
      expected: 'https://eth-mainnet.g.alchemy.com/v2/****',
      secrets: [ALCHEMY_KEY],
    },
    {
      name: 'QuickNode-style /<64 hex>/',
      raw: `https://still-frosty-moon.quiknode.pro/${QUICKNODE_TOKEN}/`,
      expected: 'https://still-frosty-moon.quiknode.pro/****/',
      secrets: [QUICKNODE_TOKEN],
    },
    {
      name: 'key in the path and in the query and userinfo together',
      raw: `https://bob:pw-pw-pw@rpc.example.com:8545/v3/${INFURA_KEY}?token=abc123`,
      expected: 'https://****@rpc.example.com:8545/v3/****?token=****',
      secrets: ['bob', 'pw-pw-pw', INFURA_KEY, 'abc123'],
    },
    {
      name: 'a fragment is dropped',
      raw: 'https://node.example.com/rpc#SuperSecretFragment123',
      expected: 'https://node.example.com/rpc',
      secrets: ['SuperSecretFragment123'],
    },
  ])('redacts $name', ({ raw, expected, secrets }) => {
    const redacted = redactUrl(raw);
    expect(redacted).toBe(expected);
    for (const secret of secrets) expect(redacted).not.toContain(secret);
  });

  it.each([
    'https://node.example.com/',
    'https://node.example.com/rpc',
    'https://node.example.com/api/v1/eth/mainnet',
    'https://eth-mainnet.public.blastapi.io/',
    'https://rpc.ankr.com/eth',
    'http://127.0.0.1:8545/',
    'http://[::1]:8545/',
    'https://node.example.com/a-long-all-lowercase-path-segment',
  ])('keeps a URL without secrets unchanged: %s', (raw) => {
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
