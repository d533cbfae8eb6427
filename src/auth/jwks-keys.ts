import { createPublicKey, type JsonWebKey } from 'node:crypto';
import buildGetJwks, { type GetJwks, type GetJwksOptions } from 'get-jwks';
import { Agent, type Dispatcher } from 'undici';
import { AppError, unauthorized } from '../errors';

/** The algorithms a JWKS key may be used with, each pinned to one key type. */
export type JwksAlgorithm = 'RS256' | 'ES256';

export interface JwksOptions {
  /** The configured JWKS URL: the only place keys come from. */
  url: string;
  /** Whole fetch: connect, headers and body together. */
  timeoutMs: number;
  /** At most one fetch per this long for key ids the provider has not served before (and per known key). */
  cooldownMs: number;
  /** How long get-jwks keeps a fetched key before asking the provider again. */
  ttlMs: number;
  /** How long past its TTL a known key keeps serving while the provider is unreachable. */
  maxStaleMs: number;
  maxBytes: number;
}

/** What we remember of a key id the provider has served: enough to serve it stale during an outage. */
interface KnownKey {
  checkedAt: number;
  freshAt: number;
  pem: string;
}

/** The provider serves a handful of keys; more known key ids than this would be a misbehaving provider. */
const MAX_KNOWN_KEYS = 100;

const unavailable = () => new AppError('service_unavailable', 'the identity provider keys could not be fetched; try again later');
const isOutage = (error: unknown) => error instanceof AppError && error.code === 'service_unavailable';

/**
 * Public keys of the identity provider, looked up with get-jwks at the configured URL only — never
 * at the token's `iss`, `jku` or `x5u`: trusting a URL named by a token not yet verified would let
 * anyone sign tokens with their own keys, and make us fetch attacker-chosen URLs.
 *
 * get-jwks fetches the whole set for every key id it does not hold, and forgets a miss at once. So
 * that made-up key ids cannot turn each request into a request to the provider, fetches go
 * through a gate: a fetch that finds its key (a new or rotated key) leaves the gate open; a miss
 * or a failure closes it for the cooldown, during which other unknown key ids are refused without
 * a fetch. Key ids the provider has served before are refreshed on their own, at most once per
 * cooldown each, so a flood of made-up ids cannot lock out the keys in use. During an outage a
 * known key keeps serving its last good value for a bounded time.
 */
export class JwksKeys {
  private readonly getJwks: GetJwks;
  private readonly domain: string;
  private readonly agent: Agent;
  private readonly known = new Map<string, KnownKey>();
  private unknownGate = { closedAt: Number.NEGATIVE_INFINITY, outage: false };
  private unknownFetch: Promise<unknown> | null = null;

  constructor(private readonly options: JwksOptions) {
    const url = new URL(options.url);
    // get-jwks builds the URL as domain + jwksPath; both come from configuration, nothing from a token.
    this.domain = `${url.origin}/`;
    const timeout = options.timeoutMs;
    this.agent = new Agent({ connect: { timeout }, headersTimeout: timeout, bodyTimeout: timeout, maxResponseSize: options.maxBytes });
    this.getJwks = buildGetJwks({
      ttl: options.ttlMs,
      jwksPath: `${url.pathname}${url.search}`,
      issuersWhitelist: [this.domain],
      fetchOptions: {
        // get-jwks's own `timeout` is not a fetch option; the dispatcher bounds the exchange. Its
        // type comes from Node's bundled undici, ours from undici 7: the same dispatch contract.
        dispatcher: this.agent.compose(wholeExchangeDeadline(timeout)) as unknown as NonNullable<GetJwksOptions['fetchOptions']>['dispatcher'],
        redirect: 'error',
        headers: { accept: 'application/json' },
      },
    });
  }

  /** The PEM public key for a token's `kid` and pinned `alg`; 401 when there is none, 503 when the set cannot be fetched. */
  async publicKey(alg: JwksAlgorithm, kid: string): Promise<string> {
    const cacheKey = this.getJwks.generateCacheKey(alg, kid, this.domain);
    const known = this.known.get(cacheKey);
    // A key get-jwks holds, or is fetching already, costs no fetch.
    if (this.getJwks.cache.get(cacheKey) !== undefined) return this.orStale(this.lookUp(alg, kid), known);
    if (known) {
      if (Date.now() - known.checkedAt < this.options.cooldownMs) return this.staleOrUnavailable(known);
      return this.refresh(alg, kid, cacheKey, known);
    }
    // Unknown key ids fetch one at a time, so a burst of them is decided by the first fetch.
    while (this.unknownFetch) await this.unknownFetch.catch(() => undefined);
    if (this.getJwks.cache.get(cacheKey) !== undefined) return this.lookUp(alg, kid);
    if (Date.now() - this.unknownGate.closedAt < this.options.cooldownMs) throw this.unknownGate.outage ? unavailable() : unauthorized();
    const fetch = this.fetch(alg, kid, cacheKey).catch((error: unknown) => {
      this.unknownGate = { closedAt: Date.now(), outage: isOutage(error) };
      throw error;
    });
    this.unknownFetch = fetch;
    try {
      return await fetch;
    } finally {
      this.unknownFetch = null;
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async refresh(alg: JwksAlgorithm, kid: string, cacheKey: string, known: KnownKey): Promise<string> {
    known.checkedAt = Date.now();
    // get-jwks would answer a failed fetch with its stale copy whatever the failure; we decide
    // ourselves, so that a key the provider has dropped stops working at once.
    this.getJwks.staleCache.delete(cacheKey);
    try {
      return await this.orStale(this.fetch(alg, kid, cacheKey), known);
    } catch (error) {
      if (!isOutage(error)) this.known.delete(cacheKey);
      throw error;
    }
  }

  /** While the provider is unreachable a known key serves its last good value; requests joining a refresh under way too. */
  private orStale(lookup: Promise<string>, known: KnownKey | undefined): Promise<string> {
    return lookup.catch((error: unknown) => {
      if (known && isOutage(error)) return this.staleOrUnavailable(known);
      throw error;
    });
  }

  private staleOrUnavailable(known: KnownKey): string {
    if (Date.now() - known.freshAt <= this.options.ttlMs + this.options.maxStaleMs) return known.pem;
    throw unavailable();
  }

  /** A lookup that makes get-jwks fetch the set; what it finds becomes a known key. */
  private async fetch(alg: JwksAlgorithm, kid: string, cacheKey: string): Promise<string> {
    const pem = await this.lookUp(alg, kid);
    const now = Date.now();
    this.known.delete(cacheKey);
    this.known.set(cacheKey, { checkedAt: now, freshAt: now, pem });
    if (this.known.size > MAX_KNOWN_KEYS) this.known.delete(this.known.keys().next().value!);
    return pem;
  }

  private async lookUp(alg: JwksAlgorithm, kid: string): Promise<string> {
    let jwk: JsonWebKey & { use?: unknown };
    try {
      jwk = await this.getJwks.getJwk({ domain: this.domain, alg, kid });
    } catch (error) {
      throw (error as { code?: unknown }).code === 'JWK_NOT_FOUND' ? unauthorized() : unavailable();
    }
    return pemOf(jwk, alg);
  }
}

/** The key as PEM, when its type is the one the token's algorithm is pinned to and it is a signing key. */
function pemOf(jwk: JsonWebKey & { use?: unknown }, alg: JwksAlgorithm): string {
  const fits = alg === 'RS256' ? jwk.kty === 'RSA' : jwk.kty === 'EC' && jwk.crv === 'P-256';
  if (!fits || (jwk.use !== undefined && jwk.use !== 'sig')) throw unauthorized();
  try {
    return createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
  } catch {
    throw unauthorized();
  }
}

/**
 * undici's timeouts bound each phase (connect, headers, the gap between body chunks); a slow
 * trickle of bytes would pass them all. This bounds the whole exchange.
 */
function wholeExchangeDeadline(ms: number): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => {
    let timer: NodeJS.Timeout | undefined;
    return dispatch(options, {
      onRequestStart(controller, context) {
        timer = setTimeout(() => controller.abort(new Error(`JWKS fetch exceeded ${ms} ms`)), ms);
        handler.onRequestStart?.(controller, context);
      },
      onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
      onResponseStart: (controller, statusCode, headers, statusMessage) => handler.onResponseStart?.(controller, statusCode, headers, statusMessage),
      onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
      onResponseEnd(controller, trailers) {
        clearTimeout(timer);
        handler.onResponseEnd?.(controller, trailers);
      },
      onResponseError(controller, error) {
        clearTimeout(timer);
        handler.onResponseError?.(controller, error);
      },
    });
  };
}
