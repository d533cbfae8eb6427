import { createPublicKey } from 'node:crypto';
import fastifyJwt, { type FastifyJWTOptions } from '@fastify/jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import { AppError, unauthorized } from '../errors';
import { bearerToken } from './bearer-token';
import { JwksKeys, type JwksAlgorithm } from './jwks-keys';
import { SCOPES, type Scope } from './scopes';

// Three base64url parts. The signature may be empty so that an unsigned (`alg: none`) token
// takes the JWT path and is refused there explicitly, not by accident of the API-key parser.
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Tolerated clock skew between us and the identity provider, for `exp` and `nbf`. */
export const JWT_CLOCK_TOLERANCE_MS = 30_000;
/** get-jwks keeps a fetched key this long before asking the provider again. */
const JWKS_CACHE_TTL_MS = 10 * 60_000;
/** At most one fetch per this long for key ids the provider has not served (and per known key). */
const JWKS_COOLDOWN_MS = 10_000;
/** How long past its TTL a known key keeps serving while the provider is unreachable. */
const JWKS_MAX_STALE_MS = 60 * 60_000;
const JWKS_MAX_BYTES = 256 * 1024;
const JWKS_TIMEOUT_MS = 5_000;
const JWKS_ALGORITHMS: readonly JwksAlgorithm[] = ['RS256', 'ES256'];

export interface JwtIdentity {
  subject: string;
  /** The tenant claim as given: a tenant id (UUID) or slug, resolved by the caller. */
  tenant: string;
  scopes: Scope[];
  name: string;
  email: string | null;
}

/** What verification needs of a request: `jwtVerify`, which @fastify/jwt decorates once registered. */
export type JwtRequest = Pick<FastifyRequest, 'jwtVerify'>;

export interface JwtVerifier {
  /** Registers @fastify/jwt on the app with the configured key source, pinned algorithms and claims. */
  register(app: FastifyInstance): void;
  /** Verifies the request's bearer JWT with @fastify/jwt; throws 401 (or 503 when the JWKS cannot be fetched). */
  verify(request: JwtRequest): Promise<JwtIdentity>;
  close(): Promise<void>;
}

export interface JwtVerifierOptions {
  jwksTimeoutMs?: number;
  jwksCooldownMs?: number;
  jwksCacheTtlMs?: number;
  jwksMaxStaleMs?: number;
}

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

type JwtConfig = Config['jwt'];

interface CompleteToken {
  header: { alg?: unknown; kid?: unknown };
  payload: { iss?: unknown };
}

/** Builds the verifier for the one configured source, or null when JWTs are not accepted. */
export function createJwtVerifier(config: JwtConfig, options: JwtVerifierOptions = {}): JwtVerifier | null {
  const { issuer, audience } = config;
  if (!issuer || !audience) return null;
  const claims = {
    allowedIss: [issuer],
    allowedAud: [audience],
    requiredClaims: ['iss', 'aud', 'exp', 'sub'],
    clockTolerance: JWT_CLOCK_TOLERANCE_MS,
    // The same token the API-key/JWT split looked at, whatever else the header holds.
    extractToken: (request: FastifyRequest) => bearerToken(request.headers.authorization) ?? undefined,
  };

  if (config.jwksUrl) {
    const keys = new JwksKeys({
      url: config.jwksUrl,
      timeoutMs: options.jwksTimeoutMs ?? JWKS_TIMEOUT_MS,
      cooldownMs: options.jwksCooldownMs ?? JWKS_COOLDOWN_MS,
      ttlMs: options.jwksCacheTtlMs ?? JWKS_CACHE_TTL_MS,
      maxStaleMs: options.jwksMaxStaleMs ?? JWKS_MAX_STALE_MS,
      maxBytes: JWKS_MAX_BYTES,
    });
    return verifier(config, keys.close.bind(keys), {
      decode: { complete: true },
      verify: { ...claims, algorithms: [...JWKS_ALGORITHMS] },
      // Everything a key lookup may trust is checked first: an algorithm we do not pin, or an
      // issuer that is not the configured one, never costs a fetch.
      secret: async (_request: FastifyRequest, token: unknown) => {
        const { header, payload } = token as CompleteToken;
        const alg = JWKS_ALGORITHMS.find((pinned) => pinned === header.alg);
        if (!alg || payload.iss !== issuer) throw unauthorized();
        // Without `kid` a token does not say which key of the set signed it.
        if (typeof header.kid !== 'string' || header.kid === '') throw unauthorized();
        return keys.publicKey(alg, header.kid);
      },
    });
  }
  if (config.publicKey) {
    return verifier(config, async () => {}, {
      secret: { public: config.publicKey },
      verify: { ...claims, algorithms: [algorithmOfPublicKey(config.publicKey)] },
    });
  }
  if (config.secret) {
    return verifier(config, async () => {}, { secret: config.secret, verify: { ...claims, algorithms: ['HS256'] } });
  }
  return null;
}

function algorithmOfPublicKey(pem: string): JwksAlgorithm {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error('RVS_JWT_PUBLIC_KEY must be an RSA or P-256 EC public key');
}

function verifier(config: JwtConfig, close: () => Promise<void>, plugin: FastifyJWTOptions): JwtVerifier {
  return {
    register(app) {
      void app.register(fastifyJwt, plugin);
    },
    async verify(request) {
      let payload: unknown;
      try {
        payload = await request.jwtVerify();
      } catch (error) {
        throw asAppError(error);
      }
      if (typeof payload !== 'object' || payload === null) throw unauthorized();
      return identityOf(config, payload as Record<string, unknown>);
    },
    close,
  };
}

/**
 * Our own errors (a refused key lookup, 503 for an unreachable JWKS) pass as they are; of the
 * plugin's, only an expired token says why, so that a client knows to refresh it.
 */
function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if ((error as { code?: unknown }).code === 'FST_JWT_AUTHORIZATION_TOKEN_EXPIRED') return unauthorized('the token has expired');
  return unauthorized();
}

/**
 * Longest claim values we take. The subject and tenant key queries and rate-limit buckets; the
 * name and email are shown back. Providers use far less (RFC 5321 caps an address at 254).
 */
const MAX_CLAIM_LENGTH = 255;
const MAX_EMAIL_LENGTH = 320;
// C0 and C1 controls and DEL: Postgres refuses NUL (a 500), the others only serve to forge log
// lines or terminal output. With the u flag, [\uD800-\uDFFF] matches only a lone surrogate,
// which Postgres would silently turn into U+FFFD, merging two subjects into one.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE_CLAIM_CHARACTER = /[\u0000-\u001F\u007F-\u009F]|[\uD800-\uDFFF]/u;

/** A signed string claim we can store and show: non-empty, not too long, no control character, well-formed. */
function isUsableClaim(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value !== '' && value.length <= maxLength && !UNSAFE_CLAIM_CHARACTER.test(value);
}

/**
 * A signed token is still foreign input: its claims are checked like any request field, and a
 * claim that cannot be used makes the token invalid (401), rather than a 500 further down.
 * An absent, empty or non-string name or email is ignored (they are optional); a bad string is not.
 */
function identityOf(config: JwtConfig, payload: Record<string, unknown>): JwtIdentity {
  const { sub, name, email } = payload;
  const tenant = payload[config.tenantClaim];
  if (!isUsableClaim(sub, MAX_CLAIM_LENGTH)) throw unauthorized();
  if (typeof tenant !== 'string' || tenant === '') throw unauthorized(`the token has no ${config.tenantClaim} claim`);
  if (!isUsableClaim(tenant, MAX_CLAIM_LENGTH)) throw unauthorized();
  const optional = (value: unknown, maxLength: number): string | null => {
    if (typeof value !== 'string' || value === '') return null;
    if (!isUsableClaim(value, maxLength)) throw unauthorized();
    return value;
  };
  return {
    subject: sub,
    tenant,
    scopes: scopesOf(payload),
    name: optional(name, MAX_CLAIM_LENGTH) ?? sub,
    email: optional(email, MAX_EMAIL_LENGTH),
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
