import { isIP } from 'node:net';
import { classifyAddress } from '../net/address-guard';

/*
 * What can be known about an outbound URL (an endpoint's or a webhook's) when it is created, so
 * that nothing is accepted that every probe or delivery would then refuse. Host names are not
 * resolved here: the answer may change by the time we connect (the guarded lookup judges every
 * connection), and a lookup in the API's request path would let any tenant make our resolver
 * query names of its choosing and hold one of the few libuv threads for as long as DNS takes.
 */

/** Names that always mean this machine (RFC 6761, and every resolver we use): refused like 127.0.0.1. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The loopback or private kind of a URL's host as far as it can be told without DNS (an IP
 * literal, in any spelling WHATWG URL normalises, or a localhost name); null otherwise.
 */
function privateKindWithoutDns(url: URL): 'loopback' | 'private' | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return isLocalhostName(host) ? 'loopback' : null;
  const kind = classifyAddress(host);
  return kind === 'loopback' || kind === 'private' ? kind : null;
}

/**
 * Why a URL will be refused at every connection while `setting` (RVS_ALLOW_PRIVATE_TARGETS for
 * endpoints, RVS_ALLOW_PRIVATE_WEBHOOKS for webhooks) is off, or null. The message names the
 * setting and the kind of address, never the URL (it may carry a key).
 */
export function privateAddressRefusal(url: string, allowed: boolean, setting: string): string | null {
  if (allowed || !URL.canParse(url)) return null;
  const kind = privateKindWithoutDns(new URL(url));
  if (kind === null) return null;
  return `is a ${kind} address, refused while ${setting} is off (an operator sets ${setting}=true to allow loopback and private addresses)`;
}

/**
 * Whether the user and password of a URL decode: they are sent as Basic auth, decoded, so a
 * malformed percent-encoding (`%zz`, a lone `%`) would fail every probe or delivery.
 */
export function userinfoDecodes(url: string): boolean {
  if (!URL.canParse(url)) return true;
  const { username, password } = new URL(url);
  try {
    decodeURIComponent(username);
    decodeURIComponent(password);
    return true;
  } catch {
    return false;
  }
}

/** The refinement message for userinfoDecodes; it never repeats the value (a credential). */
export const USERINFO_MESSAGE = 'the user or password before @ has a malformed percent-encoding (write a literal % as %25)';
