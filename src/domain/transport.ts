/**
 * The transports an endpoint address can name, one entry each. Everything that lists transports
 * derives from these keys: the suite's `workload.transport` enum, the endpoint's `addresses`, and
 * the probe's table of clients and head watches (src/probe/transports.ts, a Record over them, so
 * the compiler makes a new transport bring its client there). Adding a transport is one entry here
 * and one there.
 *
 * - `schemes`: the URL schemes an address of this transport may use (`urlDescription` says so in messages).
 * - `legacyField`: the endpoint API field that shows this transport's address (the compatibility
 *   view kept from before addresses: `url`, `ws_url`); null for a transport that came after.
 * - `headWatch`: how a head watch over this transport hears of new heads: `subscribe` (pushed,
 *   the family's head subscription) or `poll` (the family's head read, asked for on an interval).
 */
export const TRANSPORT_REGISTRY = {
  http: { schemes: ['http', 'https'], urlDescription: 'an http or https URL', legacyField: 'url', headWatch: 'poll' },
  ws: { schemes: ['ws', 'wss'], urlDescription: 'a ws or wss URL', legacyField: 'ws_url', headWatch: 'subscribe' },
} as const satisfies Record<
  string,
  { schemes: readonly string[]; urlDescription: string; legacyField: string | null; headWatch: 'subscribe' | 'poll' }
>;

export type Transport = keyof typeof TRANSPORT_REGISTRY;

/** The registry's keys in declaration order: the zod enums over transports are built from this. */
export const TRANSPORTS = Object.keys(TRANSPORT_REGISTRY) as [Transport, ...Transport[]];

export function isTransport(value: string): value is Transport {
  return Object.hasOwn(TRANSPORT_REGISTRY, value);
}

/** How a head watch hears of new heads: pushed over a subscription, or asked for by polling. */
export type HeadWatchVia = (typeof TRANSPORT_REGISTRY)[Transport]['headWatch'];

/** The ways a head watch may run (a suite's `freshness.via`): one per way some transport watches. */
export const HEAD_WATCH_VIAS = [...new Set(TRANSPORTS.map((transport) => TRANSPORT_REGISTRY[transport].headWatch))] as [HeadWatchVia, ...HeadWatchVia[]];

/** The transport a head watch `via` runs over: the one whose registry entry watches that way. */
export function headWatchTransport(via: HeadWatchVia): Transport {
  return TRANSPORTS.find((transport) => TRANSPORT_REGISTRY[transport].headWatch === via)!;
}

/** How an endpoint's address of this transport is named in messages: its API field, else "<transport> address". */
export function addressName(transport: Transport): string {
  return TRANSPORT_REGISTRY[transport].legacyField ?? `${transport} address`;
}
