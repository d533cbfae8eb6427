import { BlockList, isIP } from 'node:net';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'reserved';

function blockList(entries: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, type] of entries) list.addSubnet(network, prefix, type);
  return list;
}

const LOOPBACK = blockList([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
// Link-local includes the cloud metadata services: 169.254.169.254; fd00:ec2::254 (in fc00::/7)
// and Alibaba Cloud's 100.100.100.200 (in the shared 100.64/10) are listed so they are refused
// even when private targets are allowed. Checked before PRIVATE for that reason.
const LINK_LOCAL = blockList([
  ['169.254.0.0', 16, 'ipv4'],
  ['100.100.100.200', 32, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
  ['fd00:ec2::254', 128, 'ipv6'],
]);
const PRIVATE = blockList([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
]);
const RESERVED = blockList([
  ['0.0.0.0', 8, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'],
  // Documentation (TEST-NET-1/2/3): not routable, never a real endpoint.
  ['192.0.2.0', 24, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  // :: itself and the deprecated IPv4-compatible ::a.b.c.d (::7f00:1 is 127.0.0.1 in disguise).
  ['::', 96, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
  // NAT64, well-known (RFC 6052) and local-use (RFC 8215): they wrap IPv4 addresses of any kind.
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  // Deprecated site-local (RFC 3879) and discard-only (RFC 6666).
  ['fec0::', 10, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  // 6to4 and Teredo wrap IPv4 addresses (possibly link-local ones): never a probe target.
  ['2002::', 16, 'ipv6'],
  ['2001::', 32, 'ipv6'],
]);

/** ::ffff:a.b.c.d and ::ffff:XXXX:YYYY carry an IPv4 address; judge that address, not the wrapper. */
function unwrapMappedIpv4(address: string): string | null {
  // ::ffff:0:a.b.c.d (IPv4-translated) is unwrapped like ::ffff:a.b.c.d.
  const lower = address.toLowerCase().replace(/^::ffff:0{1,4}:(?=[0-9a-f]{1,4}:[0-9a-f]{1,4}$|\d+\.)/, '::ffff:');
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
}

/**
 * Pure: classifies an IP address (v4 or v6, brackets allowed). Non-canonical IPv4 spellings
 * (decimal, hex, octal) are normalised by WHATWG URL parsing before they get here; anything
 * that is not an IP literal is 'reserved' so it can never pass as public.
 */
export function classifyAddress(input: string): AddressClass {
  const address = input.replace(/^\[|\]$/g, '');
  const version = isIP(address);
  if (version === 0) return 'reserved';
  if (version === 6) {
    const mapped = unwrapMappedIpv4(address);
    if (mapped !== null) return classifyAddress(mapped);
  }
  const type = version === 4 ? 'ipv4' : 'ipv6';
  if (LINK_LOCAL.check(address, type)) return 'link_local';
  if (LOOPBACK.check(address, type)) return 'loopback';
  if (PRIVATE.check(address, type)) return 'private';
  if (RESERVED.check(address, type)) return 'reserved';
  return 'public';
}

export function isAddressAllowed(address: string, allowPrivateTargets: boolean): boolean {
  const kind = classifyAddress(address);
  if (kind === 'public') return true;
  if (kind === 'loopback' || kind === 'private') return allowPrivateTargets;
  return false;
}

/** For validation at creation time: an IP-literal host in an always-refused range. */
export function isAlwaysRefusedHost(hostname: string): boolean {
  const address = hostname.replace(/^\[|\]$/g, '');
  if (isIP(address) === 0) return false;
  const kind = classifyAddress(address);
  return kind === 'link_local' || kind === 'reserved';
}
