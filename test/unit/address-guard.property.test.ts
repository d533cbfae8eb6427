import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, isAddressAllowed } from '../../src/net/address-guard';

// Pure classification only: nothing here resolves a name or opens a connection.

const CLASSES = ['public', 'loopback', 'private', 'link_local', 'reserved'];

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));

/** An IPv4 address inside network/prefix. */
function inIpv4Subnet(network: string, prefix: number) {
  const base = network.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  return fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((offset) => toDotted(base + offset));
}

function toDotted(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** An IPv6 address whose first hextet lies in [from, to] (a /N prefix test for N ≤ 16). */
function ipv6WithFirstHextet(from: number, to: number) {
  return fc
    .tuple(fc.integer({ min: from, max: to }), fc.array(hextet, { minLength: 7, maxLength: 7 }))
    .map(([first, rest]) => [first.toString(16), ...rest].join(':'));
}

describe('classifyAddress (properties)', () => {
  it('never throws and always returns a class; anything that is not an IP literal is reserved', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 60 }), (input) => {
        const kind = classifyAddress(input);
        expect(CLASSES).toContain(kind);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.domain(), (hostname) => {
        expect(classifyAddress(hostname)).toBe('reserved');
      }),
    );
  });

  it('judges an IPv4-mapped IPv6 address (dotted or hex) as the IPv4 address it carries', () => {
    fc.assert(
      fc.property(ipv4, (address) => {
        const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        const kind = classifyAddress(address);
        expect(classifyAddress(`::ffff:${address}`)).toBe(kind);
        expect(classifyAddress(`[::ffff:${hex}]`)).toBe(kind);
        expect(classifyAddress(`0:0:0:0:0:ffff:${hex}`)).toBe(kind);
      }),
      { numRuns: 2000 },
    );
  });

  it('sees through every WHATWG URL spelling of an IPv4 host (decimal, hex, octal)', () => {
    // new URL() only parses: it resolves nothing and connects nowhere.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (value) => {
        const dotted = toDotted(value);
        for (const spelling of [String(value), `0x${value.toString(16)}`, dotted.split('.').map((p) => `0${Number(p).toString(8)}`).join('.')]) {
          expect(new URL(`http://${spelling}/`).hostname).toBe(dotted);
          expect(classifyAddress(new URL(`http://${spelling}/`).hostname)).toBe(classifyAddress(dotted));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses link-local, metadata and reserved ranges even when private targets are allowed', () => {
    const alwaysRefused = fc.oneof(
      inIpv4Subnet('169.254.0.0', 16),
      fc.constant('100.100.100.200'),
      inIpv4Subnet('0.0.0.0', 8),
      inIpv4Subnet('224.0.0.0', 3),
      ipv6WithFirstHextet(0xfe80, 0xfeff), // fe80::/10 link-local and fec0::/10 site-local
      fc.array(hextet, { minLength: 5, maxLength: 5 }).map((rest) => `64:ff9b:1:${rest.join(':')}`),
      fc.array(hextet, { minLength: 4, maxLength: 4 }).map((rest) => `100:0:0:0:${rest.join(':')}`),
      inIpv4Subnet('169.254.0.0', 16).map((address) => `::ffff:${address}`),
    );
    fc.assert(
      fc.property(alwaysRefused, (address) => {
        expect(isAddressAllowed(address, true)).toBe(false);
        expect(isAddressAllowed(address, false)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('allows loopback and private ranges only when private targets are allowed', () => {
    const privateOrLoopback = fc.oneof(
      inIpv4Subnet('127.0.0.0', 8),
      inIpv4Subnet('10.0.0.0', 8),
      inIpv4Subnet('172.16.0.0', 12),
      inIpv4Subnet('192.168.0.0', 16),
      ipv6WithFirstHextet(0xfc00, 0xfdff).filter((address) => !address.startsWith('fd00:ec2:')),
    );
    fc.assert(
      fc.property(privateOrLoopback, (address) => {
        expect(isAddressAllowed(address, false)).toBe(false);
        expect(isAddressAllowed(address, true)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('allows without private targets only what it classifies as public', () => {
    fc.assert(
      fc.property(fc.oneof(ipv4, fc.ipV6(), fc.ipV4Extended()), (address) => {
        expect(isAddressAllowed(address, false)).toBe(classifyAddress(address) === 'public');
      }),
      { numRuns: 3000 },
    );
  });
});
