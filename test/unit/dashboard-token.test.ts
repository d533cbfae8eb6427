import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box';
import { DASHBOARD_TOKEN_TTL_MS, signDashboardToken, verifyDashboardToken } from '../../src/services/dashboard-token';

const box = new SecretBox('a-test-secret-key-of-at-least-32-chars');
const RUN_ID = '11111111-1111-4111-8111-111111111111';
const OTHER_RUN_ID = '22222222-2222-4222-8222-222222222222';
const ISSUED_AT = new Date('2025-01-01T00:00:00.000Z');
const EXPIRES_AT = new Date(ISSUED_AT.getTime() + DASHBOARD_TOKEN_TTL_MS);
const token = signDashboardToken(box, RUN_ID, EXPIRES_AT);
const at = (ms: number) => new Date(ISSUED_AT.getTime() + ms);

const [PAYLOAD = '', SIGNATURE = ''] = token.split('.');

/** Changes the first character of a base64url string (the first always carries six data bits). */
const changeFirst = (s: string) => `${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;

describe('dashboard token', () => {
  it('lives a week', () => {
    expect(DASHBOARD_TOKEN_TTL_MS).toBe(7 * 24 * 60 * 60 * 1000);
  });

  it('is URL-safe and names no secret', () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(PAYLOAD, 'base64url').toString('utf8'))).toEqual({
      run: RUN_ID,
      exp: EXPIRES_AT.getTime() / 1000,
    });
  });

  it.each([
    { name: 'just issued', now: at(0), valid: true },
    { name: 'one day later', now: at(24 * 60 * 60 * 1000), valid: true },
    { name: 'one second before expiry', now: at(DASHBOARD_TOKEN_TTL_MS - 1000), valid: true },
    { name: 'one millisecond before expiry', now: at(DASHBOARD_TOKEN_TTL_MS - 1), valid: true },
    { name: 'exactly at expiry', now: at(DASHBOARD_TOKEN_TTL_MS), valid: false },
    { name: 'one second after expiry', now: at(DASHBOARD_TOKEN_TTL_MS + 1000), valid: false },
    { name: 'a year later', now: at(365 * 24 * 60 * 60 * 1000), valid: false },
  ])('for the right run, $name → valid: $valid', ({ now, valid }) => {
    expect(verifyDashboardToken(box, token, RUN_ID, now)).toBe(valid);
  });

  it.each([
    { name: 'another run id', check: () => verifyDashboardToken(box, token, OTHER_RUN_ID, at(0)) },
    { name: 'an empty run id', check: () => verifyDashboardToken(box, token, '', at(0)) },
    { name: 'another key', check: () => verifyDashboardToken(new SecretBox('another-test-secret-key-of-32-chars!!'), token, RUN_ID, at(0)) },
    { name: 'a tampered signature', check: () => verifyDashboardToken(box, `${PAYLOAD}.${changeFirst(SIGNATURE)}`, RUN_ID, at(0)) },
    { name: 'a truncated signature', check: () => verifyDashboardToken(box, `${PAYLOAD}.${SIGNATURE.slice(0, -1)}`, RUN_ID, at(0)) },
    { name: 'a tampered payload', check: () => verifyDashboardToken(box, `${changeFirst(PAYLOAD)}.${SIGNATURE}`, RUN_ID, at(0)) },
    {
      name: 'a payload for another run with the original signature',
      check: () => {
        const [forged = ''] = signDashboardToken(box, OTHER_RUN_ID, EXPIRES_AT).split('.');
        return verifyDashboardToken(box, `${forged}.${SIGNATURE}`, OTHER_RUN_ID, at(0));
      },
    },
    {
      name: 'an extended expiry with the original signature',
      check: () => {
        const extended = Buffer.from(JSON.stringify({ run: RUN_ID, exp: EXPIRES_AT.getTime() / 1000 + 86_400 * 365 })).toString(
          'base64url',
        );
        return verifyDashboardToken(box, `${extended}.${SIGNATURE}`, RUN_ID, at(DASHBOARD_TOKEN_TTL_MS + 1000));
      },
    },
    {
      name: 'an unsigned payload',
      check: () => verifyDashboardToken(box, `${PAYLOAD}.`, RUN_ID, at(0)),
    },
    { name: 'the signature alone', check: () => verifyDashboardToken(box, SIGNATURE, RUN_ID, at(0)) },
    { name: 'an empty token', check: () => verifyDashboardToken(box, '', RUN_ID, at(0)) },
    { name: 'a JWT-shaped value', check: () => verifyDashboardToken(box, 'eyJhbGciOiJub25lIn0.eyJydW4iOiJ4In0.', RUN_ID, at(0)) },
  ])('is refused for $name', ({ check }) => {
    expect(check()).toBe(false);
  });

  it('verifies a freshly signed token for each run only', () => {
    const runs = [RUN_ID, OTHER_RUN_ID];
    for (const signedFor of runs) {
      const t = signDashboardToken(box, signedFor, EXPIRES_AT);
      for (const askedFor of runs) expect(verifyDashboardToken(box, t, askedFor, at(0))).toBe(signedFor === askedFor);
    }
  });

  it('refuses a link issued before RVS_DASHBOARD_LINKS_NOT_BEFORE and keeps those issued at or after it', () => {
    const now = at(60_000);
    expect(verifyDashboardToken(box, token, RUN_ID, now, at(1_000))).toBe(false);
    expect(verifyDashboardToken(box, token, RUN_ID, now, at(0))).toBe(true);
    expect(verifyDashboardToken(box, token, RUN_ID, now, at(-1_000))).toBe(true);
    const reissued = signDashboardToken(box, RUN_ID, new Date(at(1_000).getTime() + DASHBOARD_TOKEN_TTL_MS));
    expect(verifyDashboardToken(box, reissued, RUN_ID, now, at(1_000))).toBe(true);
    // Still only for its own run, and still expiring.
    expect(verifyDashboardToken(box, reissued, OTHER_RUN_ID, now, at(1_000))).toBe(false);
    expect(verifyDashboardToken(box, reissued, RUN_ID, at(1_000 + DASHBOARD_TOKEN_TTL_MS), at(0))).toBe(false);
  });
});

