import { timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../crypto/secret-box';

/** Dashboard links stay valid for a week: long enough for a pull-request review. */
export const DASHBOARD_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A read-only, expiring capability for one run's dashboard page; no API key ever goes in a link. */
export function signDashboardToken(box: SecretBox, runId: string, expiresAt: Date): string {
  const payload = Buffer.from(JSON.stringify({ run: runId, exp: Math.floor(expiresAt.getTime() / 1000) })).toString(
    'base64url',
  );
  return `${payload}.${box.sign(`dashboard:${payload}`)}`;
}

export function verifyDashboardToken(box: SecretBox, token: string, runId: string, now: Date, notBefore?: Date): boolean {
  return dashboardTokenExpiry(box, token, runId, now, notBefore) !== null;
}

/**
 * When a valid token for this run expires; null when it is not valid (forged, another run's,
 * expired, or revoked). `notBefore` (RVS_DASHBOARD_LINKS_NOT_BEFORE) revokes every link issued
 * before it: a link's issue time is its expiry minus the TTL (to the second), so no key needs
 * rotating — RVS_SECRET_KEY also encrypts every stored endpoint secret.
 */
export function dashboardTokenExpiry(box: SecretBox, token: string, runId: string, now: Date, notBefore?: Date): Date | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [payload, signature] = parts as [string, string];
  const expected = Buffer.from(box.sign(`dashboard:${payload}`));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { run?: unknown; exp?: unknown };
    const valid = claims.run === runId && typeof claims.exp === 'number' && claims.exp * 1000 > now.getTime();
    const revoked = valid && notBefore !== undefined && (claims.exp as number) * 1000 - DASHBOARD_TOKEN_TTL_MS < notBefore.getTime();
    return valid && !revoked ? new Date((claims.exp as number) * 1000) : null;
  } catch {
    return null;
  }
}
