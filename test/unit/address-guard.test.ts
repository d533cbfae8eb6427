import { describe, expect, it } from 'vitest';
import {
  classifyAddress,
  isAddressAllowed,
  isAlwaysRefusedHost,
  type AddressClass,
} from '../../src/net/address-guard';

// Pure classification only: nothing here resolves a name or opens a connection.

const CASES: { address: string; kind: AddressClass }[] = [
  // Link-local, including the cloud metadata services: always refused.
  { address: '169.254.169.254', kind: 'link_local' },
  { address: '169.254.0.1', kind: 'link_local' },
  { address: '169.254.255.255', kind: 'link_local' },
  { address: 'fe80::1', kind: 'link_local' },
  { address: 'FE80::1', kind: 'link_local' },
  { address: 'febf:ffff::1', kind: 'link_local' },
  { address: 'fd00:ec2::254', kind: 'link_local' },
  { address: '[fd00:ec2::254]', kind: 'link_local' },
  // Alibaba Cloud's metadata service sits inside the shared 100.64/10 range.
  { address: '100.100.100.200', kind: 'link_local' },
  { address: '::ffff:100.100.100.200', kind: 'link_local' },
  // Loopback.
  { address: '127.0.0.1', kind: 'loopback' },
  { address: '127.255.255.254', kind: 'loopback' },
  { address: '127.1.2.3', kind: 'loopback' },
  { address: '::1', kind: 'loopback' },
  { address: '[::1]', kind: 'loopback' },
  { address: '0:0:0:0:0:0:0:1', kind: 'loopback' },
  // Private and shared (carrier-grade NAT) ranges.
  { address: '10.0.0.1', kind: 'private' },
  { address: '10.255.255.255', kind: 'private' },
  { address: '172.16.0.1', kind: 'private' },
  { address: '172.31.255.255', kind: 'private' },
  { address: '192.168.0.1', kind: 'private' },
  { address: '192.168.255.255', kind: 'private' },
  { address: '100.64.0.1', kind: 'private' },
  { address: '100.127.255.255', kind: 'private' },
  { address: 'fc00::1', kind: 'private' },
  { address: 'fd12:3456:789a::1', kind: 'private' },
  // Just outside those ranges.
  { address: '172.15.255.255', kind: 'public' },
  { address: '172.32.0.1', kind: 'public' },
  { address: '100.63.255.255', kind: 'public' },
  { address: '100.128.0.1', kind: 'public' },
  { address: '169.253.255.255', kind: 'public' },
  { address: '169.255.0.1', kind: 'public' },
  { address: '11.0.0.1', kind: 'public' },
  { address: '8.8.8.8', kind: 'public' },
  { address: '1.1.1.1', kind: 'public' },
  { address: '2001:4860:4860::8888', kind: 'public' },
  { address: '[2606:4700:4700::1111]', kind: 'public' },
  // Reserved: unspecified, multicast, broadcast, documentation, NAT64.
  { address: '0.0.0.0', kind: 'reserved' },
  { address: '0.1.2.3', kind: 'reserved' },
  { address: '224.0.0.1', kind: 'reserved' },
  { address: '239.255.255.250', kind: 'reserved' },
  { address: '255.255.255.255', kind: 'reserved' },
  { address: '198.18.0.1', kind: 'reserved' },
  { address: '::', kind: 'reserved' },
  { address: '::7f00:1', kind: 'reserved' },
  { address: '::a9fe:a9fe', kind: 'reserved' },
  { address: '::808:808', kind: 'reserved' },
  { address: '[::]', kind: 'reserved' },
  { address: 'ff02::1', kind: 'reserved' },
  { address: '2001:db8::1', kind: 'reserved' },
  { address: '64:ff9b::a9fe:a9fe', kind: 'reserved' },
  // Local-use NAT64 (RFC 8215), deprecated site-local, discard-only: never a probe target.
  { address: '64:ff9b:1::a9fe:a9fe', kind: 'reserved' },
  { address: '64:ff9b:1:ffff::1', kind: 'reserved' },
  { address: 'fec0::1', kind: 'reserved' },
  { address: 'feff:ffff::1', kind: 'reserved' },
  { address: '100::1', kind: 'reserved' },
  { address: '100::ffff:ffff:ffff:ffff', kind: 'reserved' },
  // Documentation ranges.
  { address: '192.0.2.1', kind: 'reserved' },
  { address: '198.51.100.1', kind: 'reserved' },
  { address: '203.0.113.1', kind: 'reserved' },
  // IPv4-mapped IPv6 is judged by the IPv4 address it carries.
  { address: '::ffff:169.254.169.254', kind: 'link_local' },
  { address: '::ffff:a9fe:a9fe', kind: 'link_local' },
  { address: '::FFFF:A9FE:A9FE', kind: 'link_local' },
  { address: '[::ffff:a9fe:a9fe]', kind: 'link_local' },
  { address: '0:0:0:0:0:ffff:a9fe:a9fe', kind: 'link_local' },
  { address: '0000:0000:0000:0000:0000:ffff:169.254.169.254', kind: 'link_local' },
  { address: '[::ffff:127.0.0.1]', kind: 'loopback' },
  { address: '::ffff:7f00:1', kind: 'loopback' },
  { address: '::ffff:7f00:0001', kind: 'loopback' },
  { address: '::ffff:10.0.0.1', kind: 'private' },
  { address: '::ffff:a00:1', kind: 'private' },
  { address: '::ffff:0.0.0.0', kind: 'reserved' },
  { address: '::ffff:8.8.8.8', kind: 'public' },
  { address: '::ffff:808:808', kind: 'public' },
  // IPv4-compatible (deprecated) form.
  { address: '::127.0.0.1', kind: 'loopback' },
  { address: '::169.254.169.254', kind: 'link_local' },
  // Not an IP literal: never public.
  { address: 'localhost', kind: 'reserved' },
  { address: 'node.example.com', kind: 'reserved' },
  { address: '', kind: 'reserved' },
  { address: '2130706433', kind: 'reserved' },
  { address: '0x7f.1', kind: 'reserved' },
  { address: '127.1', kind: 'reserved' },
  { address: '256.1.1.1', kind: 'reserved' },
  { address: 'http://8.8.8.8/', kind: 'reserved' },
];

describe('classifyAddress', () => {
  it.each(CASES)('$address → $kind', ({ address, kind }) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('WHATWG URL normalisation feeds classifyAddress', () => {
  // new URL() only parses; it resolves nothing and connects nowhere.
  it.each([
    { url: 'http://2130706433/', hostname: '127.0.0.1', kind: 'loopback' },
    { url: 'http://0x7f.1/', hostname: '127.0.0.1', kind: 'loopback' },
    { url: 'http://0177.0.0.1/', hostname: '127.0.0.1', kind: 'loopback' },
    { url: 'http://127.1/', hostname: '127.0.0.1', kind: 'loopback' },
    { url: 'http://0x7f000001:8545/', hostname: '127.0.0.1', kind: 'loopback' },
    { url: 'http://2852039166/', hostname: '169.254.169.254', kind: 'link_local' },
    { url: 'http://0xa9fea9fe/', hostname: '169.254.169.254', kind: 'link_local' },
    { url: 'http://0251.0376.0251.0376/', hostname: '169.254.169.254', kind: 'link_local' },
    { url: 'http://169.254.169.254./', hostname: '169.254.169.254', kind: 'link_local' },
    { url: 'http://[::ffff:169.254.169.254]/', hostname: '[::ffff:a9fe:a9fe]', kind: 'link_local' },
    { url: 'http://[0:0:0:0:0:ffff:127.0.0.1]/', hostname: '[::ffff:7f00:1]', kind: 'loopback' },
    { url: 'http://[fd00:ec2::254]/', hostname: '[fd00:ec2::254]', kind: 'link_local' },
    { url: 'http://[::1]:8545/', hostname: '[::1]', kind: 'loopback' },
    { url: 'http://012.0.0.1/', hostname: '10.0.0.1', kind: 'private' },
    { url: 'https://134744072/', hostname: '8.8.8.8', kind: 'public' },
  ] as const)('$url → $hostname → $kind', ({ url, hostname, kind }) => {
    const parsed = new URL(url).hostname;
    expect(parsed).toBe(hostname);
    expect(classifyAddress(parsed)).toBe(kind);
  });
});

describe('isAddressAllowed', () => {
  it.each([
    { address: '8.8.8.8', withoutPrivate: true, withPrivate: true },
    { address: '2001:4860:4860::8888', withoutPrivate: true, withPrivate: true },
    { address: '127.0.0.1', withoutPrivate: false, withPrivate: true },
    { address: '::1', withoutPrivate: false, withPrivate: true },
    { address: '::ffff:127.0.0.1', withoutPrivate: false, withPrivate: true },
    { address: '10.1.2.3', withoutPrivate: false, withPrivate: true },
    { address: '192.168.1.10', withoutPrivate: false, withPrivate: true },
    { address: 'fd12::1', withoutPrivate: false, withPrivate: true },
    // Metadata and link-local are refused even when private targets are allowed.
    { address: '169.254.169.254', withoutPrivate: false, withPrivate: false },
    { address: '::ffff:a9fe:a9fe', withoutPrivate: false, withPrivate: false },
    { address: 'fe80::1', withoutPrivate: false, withPrivate: false },
    { address: 'fd00:ec2::254', withoutPrivate: false, withPrivate: false },
    { address: '100.100.100.200', withoutPrivate: false, withPrivate: false },
    { address: '100.100.100.201', withoutPrivate: false, withPrivate: true },
    { address: '64:ff9b:1::7f00:1', withoutPrivate: false, withPrivate: false },
    { address: 'fec0::1', withoutPrivate: false, withPrivate: false },
    { address: '100::1', withoutPrivate: false, withPrivate: false },
    { address: '0.0.0.0', withoutPrivate: false, withPrivate: false },
    { address: '::', withoutPrivate: false, withPrivate: false },
    { address: '224.0.0.1', withoutPrivate: false, withPrivate: false },
    { address: 'node.example.com', withoutPrivate: false, withPrivate: false },
  ])('$address: allowed=$withoutPrivate without private targets, $withPrivate with', ({ address, withoutPrivate, withPrivate }) => {
    expect(isAddressAllowed(address, false)).toBe(withoutPrivate);
    expect(isAddressAllowed(address, true)).toBe(withPrivate);
  });
});

describe('isAlwaysRefusedHost', () => {
  it.each([
    // Hostnames are checked when connecting, not at creation.
    { hostname: 'node.example.com', refused: false },
    { hostname: 'localhost', refused: false },
    { hostname: 'metadata.google.internal', refused: false },
    // IP literals in always-refused ranges.
    { hostname: '169.254.169.254', refused: true },
    { hostname: '[fe80::1]', refused: true },
    { hostname: 'fe80::1', refused: true },
    { hostname: '[fd00:ec2::254]', refused: true },
    { hostname: '[::ffff:a9fe:a9fe]', refused: true },
    { hostname: '0.0.0.0', refused: true },
    { hostname: '[::]', refused: true },
    { hostname: '224.0.0.1', refused: true },
    { hostname: '100.100.100.200', refused: true },
    { hostname: '[64:ff9b:1::1]', refused: true },
    { hostname: '[fec0::1]', refused: true },
    { hostname: '[100::1]', refused: true },
    // Loopback and private depend on RVS_ALLOW_PRIVATE_TARGETS, so they are not refused here.
    { hostname: '127.0.0.1', refused: false },
    { hostname: '[::1]', refused: false },
    { hostname: '10.0.0.1', refused: false },
    { hostname: '8.8.8.8', refused: false },
  ])('$hostname → $refused', ({ hostname, refused }) => {
    expect(isAlwaysRefusedHost(hostname)).toBe(refused);
  });

  it.each(['http://2852039166/', 'http://0xa9fea9fe/', 'http://[::ffff:169.254.169.254]/', 'http://169.254.169.254./'])(
    'refuses the metadata address in the hostname of %s',
    (url) => {
      expect(isAlwaysRefusedHost(new URL(url).hostname)).toBe(true);
    },
  );
});
