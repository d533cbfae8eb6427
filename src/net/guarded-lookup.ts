import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { classifyAddress, isAddressAllowed, type AddressClass } from './address-guard';

/*
 * The one outbound guard: every connection the service opens to an address a tenant chose (probes
 * over HTTP, a WebSocket transport, webhook delivery) resolves its host through guardedLookup, and
 * checks an IP-literal host (which no lookup ever sees) with refusedLiteral first.
 */

export class OutboundAddressRefusedError extends Error {
  constructor(readonly kind: string) {
    // The message names the kind of address only: the host may be part of a secret URL.
    super(`refused to connect to a ${kind} address`);
    this.name = 'OutboundAddressRefusedError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup that refuses every resolved address the policy does not allow. */
export function guardedLookup(allowPrivateTargets: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((a) => !isAddressAllowed(a.address, allowPrivateTargets));
      if (refused) return callback(new OutboundAddressRefusedError(classifyAddress(refused.address)), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * The kind of a URL's IP-literal host the policy refuses, or null (a name, or an allowed literal).
 * No DNS lookup happens for an IP literal, so the lookup guard never sees it: callers check it
 * before connecting.
 */
export function refusedLiteral(url: URL, allowPrivateTargets: boolean): AddressClass | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0 || isAddressAllowed(host, allowPrivateTargets)) return null;
  return classifyAddress(host);
}
