import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { createVerifier, TokenError, type Algorithm } from 'fast-jwt';
import { Agent, fetch } from 'undici';
import type { Config } from '../config';
import { AppError, unauthorized } from '../errors';
import { SCOPES, type Scope } from './scopes';

// Three base64url parts. The signature may be empty so that an unsigned (`alg: none`) token
// takes the JWT path and is refused there explicitly, not by accident of the API-key parser.
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Tolerated clock skew between us and the identity provider, for `exp` and `nbf`. */
export const JWT_CLOCK_TOLERANCE_MS = 30_000;
/** The key set is refetched after this long, or sooner when a token names a key id it does not hold. */
const JWKS_CACHE_TTL_MS = 10 * 60_000;
/** At most one JWKS fetch per this long, whatever tokens arrive. */
const JWKS_COOLDOWN_MS = 10_000;
/** How long past its TTL the last good key set may serve while the provider is unreachable. */
const JWKS_MAX_STALE_MS = 60 * 60_000;
const JWKS_MAX_BYTES = 256 * 1024;
const JWKS_TIMEOUT_MS = 5_000;

export interface JwtIdentity {
  subject: string;
  /** The tenant claim as given: a tenant id (UUID) or slug, resolved by the caller. */
  tenant: string;
  scopes: Scope[];
  name: string;
  email: string | null;
}

export interface JwtVerifier {
  /** Verifies signature, algorithm, iss, aud, exp and nbf; throws 401 (or 503 when the JWKS cannot be fetched). */
  verify(token: string): Promise<JwtIdentity>;
  close(): Promise<void>;
}

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

type JwtConfig = Config['jwt'];

/** Builds the verifier for the one configured source, or null when JWTs are not accepted. */
export function createJwtVerifier(config: JwtConfig, options: { jwksTimeoutMs?: number; jwksCooldownMs?: number } = {}): JwtVerifier | null {
  const { issuer, audience } = config;
  if (!issuer || !audience) return null;
  const claims = { allowedIss: [issuer], allowedAud: [audience], requiredClaims: ['iss', 'aud', 'exp', 'sub'], clockTolerance: JWT_CLOCK_TOLERANCE_MS };

  if (config.jwksUrl) {
    return jwksVerifier(config, claims, { timeoutMs: options.jwksTimeoutMs ?? JWKS_TIMEOUT_MS, cooldownMs: options.jwksCooldownMs ?? JWKS_COOLDOWN_MS });
  }
  if (config.publicKey) {
    const algorithm = algorithmOfPublicKey(config.publicKey);
    const verify = createVerifier({ key: config.publicKey, algorithms: [algorithm], ...claims });
    return staticVerifier(config, [algorithm], verify);
  }
  if (config.secret) {
    const verify = createVerifier({ key: config.secret, algorithms: ['HS256'], ...claims });
    return staticVerifier(config, ['HS256'], verify);
  }
  return null;
}

function algorithmOfPublicKey(pem: string): Algorithm {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error('RVS_JWT_PUBLIC_KEY must be an RSA or P-256 EC public key');
}

function staticVerifier(config: JwtConfig, algorithms: readonly Algorithm[], verify: (token: string) => unknown): JwtVerifier {
  return {
    async verify(token) {
      headerOf(token, algorithms);
      return identityOf(config, await verifyOrThrow(() => verify(token)));
    },
    async close() {},
  };
}

function jwksVerifier(config: JwtConfig, claims: object, options: JwksOptions): JwtVerifier {
  const algorithms: Algorithm[] = ['RS256', 'ES256'];
  const keys = new JwksCache(config.jwksUrl!, options);
  const verify = createVerifier({
    key: async ({ header }: { header: Record<string, unknown> }) => keys.pemFor(header.kid, header.alg as Algorithm),
    algorithms,
    ...claims,
  });
  return {
    async verify(token) {
      headerOf(token, algorithms);
      return identityOf(config, await verifyOrThrow(() => verify(token)));
    },
    close: () => keys.close(),
  };
}

interface JwksOptions {
  timeoutMs: number;
  cooldownMs: number;
}

interface JwksKey {
  kid: string | undefined;
  alg: Algorithm;
  pem: string;
}

/**
 * The key set of the identity provider, fetched whole from the configured URL only — never from
 * `iss`, `jku` or `x5u` of a token we have not verified yet: honouring those would let anyone sign
 * tokens with their own keys, and make us fetch attacker-chosen URLs.
 *
 * The whole document is cached (not key by key) so that a token naming an unknown key id can
 * cause at most one refetch per cooldown, and such a refetch can only bring in the provider's new
 * keys: a flood of made-up key ids neither multiplies requests to the provider nor locks out a
 * rotated key. While the provider is unreachable the last good set keeps serving, for a bounded time.
 */
class JwksCache {
  private keys: JwksKey[] = [];
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | null = null;
  private readonly agent: Agent;

  constructor(
    private readonly url: string,
    private readonly options: JwksOptions,
  ) {
    const timeout = options.timeoutMs;
    this.agent = new Agent({ connectTimeout: timeout, headersTimeout: timeout, bodyTimeout: timeout, maxResponseSize: JWKS_MAX_BYTES });
  }

  async pemFor(kid: unknown, alg: Algorithm): Promise<string> {
    if (kid !== undefined && typeof kid !== 'string') throw unauthorized();
    const now = Date.now();
    let key = this.find(kid, alg, now);
    const due = key === undefined || now - this.fetchedAt > JWKS_CACHE_TTL_MS;
    // Requests arriving while a fetch is under way wait for it rather than fail for want of a key.
    if (due && (this.inflight !== null || now - this.attemptedAt >= this.options.cooldownMs)) {
      // A failed refresh keeps the last good set; with none at all the caller gets a 503 below.
      await this.refresh().catch(() => undefined);
      key = this.find(kid, alg, Date.now());
    }
    if (key) return key.pem;
    if (!this.usable(Date.now())) throw new AppError('service_unavailable', 'the identity provider keys could not be fetched; try again later');
    throw unauthorized();
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private usable(now: number): boolean {
    return now - this.fetchedAt <= JWKS_CACHE_TTL_MS + JWKS_MAX_STALE_MS;
  }

  /** A token without `kid` is accepted only when exactly one key fits its algorithm. */
  private find(kid: string | undefined, alg: Algorithm, now: number): JwksKey | undefined {
    if (!this.usable(now)) return undefined;
    const fitting = this.keys.filter((key) => key.alg === alg && (kid === undefined || key.kid === kid));
    return kid === undefined && fitting.length !== 1 ? undefined : fitting[0];
  }

  private refresh(): Promise<void> {
    this.inflight ??= this.load().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async load(): Promise<void> {
    this.attemptedAt = Date.now();
    // No redirects: the configured URL is the only place keys come from. The signal bounds the
    // whole exchange; the agent's timeouts alone would let a slow trickle of bytes go on and on.
    const response = await fetch(this.url, {
      dispatcher: this.agent,
      redirect: 'error',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!response.ok) throw new Error(`JWKS answered HTTP ${response.status}`);
    const body = (await response.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error('JWKS has no keys array');
    this.keys = body.keys.flatMap((jwk: unknown) => {
      const key = usableKey(jwk);
      return key ? [key] : [];
    });
    this.fetchedAt = Date.now();
  }
}

/** Keeps signing keys we can pin an algorithm to (RSA → RS256, P-256 → ES256); skips the rest. */
function usableKey(value: unknown): JwksKey | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const jwk = value as JsonWebKey & { kid?: unknown; alg?: unknown };
  if (jwk.use !== undefined && jwk.use !== 'sig') return undefined;
  const alg: Algorithm | undefined = jwk.kty === 'RSA' ? 'RS256' : jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : undefined;
  if (!alg || (jwk.alg !== undefined && jwk.alg !== alg)) return undefined;
  try {
    const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
    return { kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, alg, pem };
  } catch {
    return undefined;
  }
}

/** Refuses a token whose header is unreadable or names an algorithm we do not pin, before any key is looked up. */
function headerOf(token: string, algorithms: readonly Algorithm[]): void {
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
  } catch {
    throw unauthorized();
  }
  const alg = (header as { alg?: unknown } | null)?.alg;
  if (typeof alg !== 'string' || !(algorithms as readonly string[]).includes(alg)) throw unauthorized();
}

async function verifyOrThrow(verify: () => unknown): Promise<Record<string, unknown>> {
  try {
    const payload = await verify();
    if (typeof payload !== 'object' || payload === null) throw unauthorized();
    return payload as Record<string, unknown>;
  } catch (error) {
    const original = error instanceof TokenError ? (error as { originalError?: unknown }).originalError : undefined;
    if (original instanceof AppError) throw original;
    if (error instanceof AppError) throw error;
    if (error instanceof TokenError && error.code === TokenError.codes.expired) throw unauthorized('the token has expired');
    throw unauthorized();
  }
}

function identityOf(config: JwtConfig, payload: Record<string, unknown>): JwtIdentity {
  const { sub, name, email } = payload;
  const tenant = payload[config.tenantClaim];
  if (typeof sub !== 'string' || sub === '') throw unauthorized();
  if (typeof tenant !== 'string' || tenant === '') throw unauthorized(`the token has no ${config.tenantClaim} claim`);
  return {
    subject: sub,
    tenant,
    scopes: scopesOf(payload),
    name: typeof name === 'string' && name !== '' ? name : sub,
    email: typeof email === 'string' && email !== '' ? email : null,
  };
}

/** `scope` is a space-separated string (RFC 8693); `scp` and `permissions` are arrays (some providers send `scp` as a string too). */
function scopesOf(payload: Record<string, unknown>): Scope[] {
  const names = new Set<string>();
  for (const claim of [payload.scope, payload.scp, payload.permissions]) {
    if (typeof claim === 'string') for (const name of claim.split(' ')) names.add(name);
    else if (Array.isArray(claim)) for (const name of claim) if (typeof name === 'string') names.add(name);
  }
  return SCOPES.filter((scope) => names.has(scope));
}
