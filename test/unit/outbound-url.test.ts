import { describe, expect, it } from 'vitest';
import { privateAddressRefusal, userinfoDecodes } from '../../src/services/outbound-url';

const SETTING = 'RVS_ALLOW_PRIVATE_TARGETS';

describe('privateAddressRefusal (classification only: nothing here resolves or connects)', () => {
  it.each([
    ['http://127.0.0.1:8545/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://0x7f.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://[::1]:8545/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://localhost:8545/', 'loopback'],
    ['http://LOCALHOST./', 'loopback'],
    ['https://rpc.localhost/', 'loopback'],
    ['http://user:key@127.0.0.1/?apikey=k', 'loopback'],
    ['http://10.1.2.3/', 'private'],
    ['http://172.16.0.9/', 'private'],
    ['http://192.168.1.1:8545/', 'private'],
    ['http://100.64.0.1/', 'private'],
    ['http://[fd12::1]/', 'private'],
  ])('refuses %s as a %s address while the setting is off, and accepts it when it is on', (url, kind) => {
    const refusal = privateAddressRefusal(url, false, SETTING);
    expect(refusal).toBe(`is a ${kind} address, refused while ${SETTING} is off (an operator sets ${SETTING}=true to allow loopback and private addresses)`);
    expect(privateAddressRefusal(url, true, SETTING)).toBeNull();
  });

  it.each([
    'https://mainnet.example.com/v1/key',
    'https://node.internal/',
    'http://localhost.example.com/',
    'http://mylocalhost/',
    // Link-local and reserved are the static schema's (always refused), not this setting's.
    'http://169.254.169.254/',
    'http://8.8.8.8/',
    'not a url',
  ])('leaves %s to others (a name: the guarded lookup at connect time)', (url) => {
    expect(privateAddressRefusal(url, false, SETTING)).toBeNull();
  });

  it('never repeats the URL, its credentials or its host in the message', () => {
    const refusal = privateAddressRefusal('http://alice:s3cr3t@10.9.8.7:8545/k3y?apikey=s3cr3t', false, 'RVS_ALLOW_PRIVATE_WEBHOOKS')!;
    expect(refusal).toContain('RVS_ALLOW_PRIVATE_WEBHOOKS');
    for (const part of ['alice', 's3cr3t', '10.9.8.7', 'k3y', '8545']) expect(refusal).not.toContain(part);
  });
});

describe('userinfoDecodes', () => {
  it.each([
    ['http://us%zzer:p%ss@host/', false],
    ['http://user:p%ss@host/', false],
    ['http://us%zzer@host/', false],
    ['http://user:%E0%A4%A@host/', false],
    ['http://a%:b@host/', false],
    ['http://user:p%25ss@host/', true],
    ['http://us%40er:pa%3Ass@host/', true],
    ['http://user:pass@host/', true],
    ['http://host/path%zz', true],
    ['https://host/', true],
  ])('%s → %s', (url, expected) => {
    expect(userinfoDecodes(url)).toBe(expected);
  });
});
