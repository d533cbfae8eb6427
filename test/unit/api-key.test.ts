import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKeySecret, parseApiKey, secretMatches } from '../../src/auth/api-key';

const PREFIX = 'AbCdEf123456';
const SECRET_40 = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0';

describe('generateApiKey', () => {
  it('has the form rvs_<12 alphanumerics>_<40 alphanumerics> and parses back into its parts', () => {
    const generated = generateApiKey();
    expect(generated.key).toMatch(/^rvs_[A-Za-z0-9]{12}_[A-Za-z0-9]{40}$/);
    expect(generated.key).toBe(`rvs_${generated.prefix}_${generated.secret}`);
    expect(parseApiKey(generated.key)).toEqual({ prefix: generated.prefix, secret: generated.secret });
  });

  it('never repeats a key or a prefix', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    expect(new Set(keys.map((k) => k.key)).size).toBe(keys.length);
    expect(new Set(keys.map((k) => k.prefix)).size).toBe(keys.length);
  });
});

describe('parseApiKey', () => {
  it.each([
    { name: 'a 40-character secret', token: `rvs_${PREFIX}_${SECRET_40}`, secret: SECRET_40 },
    { name: 'the shortest secret (32)', token: `rvs_${PREFIX}_${'x'.repeat(32)}`, secret: 'x'.repeat(32) },
    { name: 'the longest secret (128)', token: `rvs_${PREFIX}_${'Z9'.repeat(64)}`, secret: 'Z9'.repeat(64) },
  ])('accepts $name', ({ token, secret }) => {
    expect(parseApiKey(token)).toEqual({ prefix: PREFIX, secret });
  });

  it.each([
    { name: 'an empty string', token: '' },
    { name: 'a wrong prefix', token: `rvk_${PREFIX}_${SECRET_40}` },
    { name: 'an upper-case prefix', token: `RVS_${PREFIX}_${SECRET_40}` },
    { name: 'no rvs_ prefix at all', token: `${PREFIX}_${SECRET_40}` },
    { name: 'a key prefix of 11 characters', token: `rvs_${PREFIX.slice(1)}_${SECRET_40}` },
    { name: 'a key prefix of 13 characters', token: `rvs_${PREFIX}x_${SECRET_40}` },
    { name: 'a secret of 31 characters', token: `rvs_${PREFIX}_${'x'.repeat(31)}` },
    { name: 'a secret of 129 characters', token: `rvs_${PREFIX}_${'x'.repeat(129)}` },
    { name: 'a dash in the secret', token: `rvs_${PREFIX}_${SECRET_40.slice(0, 20)}-${SECRET_40.slice(21)}` },
    { name: 'an underscore in the key prefix', token: `rvs_AbCdEf_23456_${SECRET_40}` },
    { name: 'a non-ASCII letter', token: `rvs_${PREFIX}_${SECRET_40.slice(1)}é` },
    { name: 'a trailing newline', token: `rvs_${PREFIX}_${SECRET_40}\n` },
    { name: 'surrounding spaces', token: ` rvs_${PREFIX}_${SECRET_40} ` },
    { name: 'a missing separator', token: `rvs_${PREFIX}${SECRET_40}` },
    {
      name: 'a JWT',
      token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwidGVuYW50X2lkIjoidCJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    },
    { name: 'a JWT-looking token with the rvs_ prefix', token: `rvs_${PREFIX}_${SECRET_40}.eyJ0.sig` },
  ])('rejects $name', ({ token }) => {
    expect(parseApiKey(token)).toBeNull();
  });
});

describe('secretMatches', () => {
  const stored = hashApiKeySecret(SECRET_40);

  it.each([
    { name: 'the same secret', secret: SECRET_40, matches: true },
    { name: 'a secret differing in the last character', secret: `${SECRET_40.slice(0, -1)}1`, matches: false },
    { name: 'a secret differing only in case', secret: SECRET_40.toLowerCase(), matches: false },
    { name: 'a prefix of the secret', secret: SECRET_40.slice(0, 32), matches: false },
    { name: 'an empty secret', secret: '', matches: false },
  ])('$name → $matches', ({ secret, matches }) => {
    expect(secretMatches(secret, stored)).toBe(matches);
  });

  it.each([
    { name: 'an empty stored hash', storedHash: Buffer.alloc(0) },
    { name: 'a truncated stored hash', storedHash: stored.subarray(0, 16) },
  ])('is false (and does not throw) against $name', ({ storedHash }) => {
    expect(secretMatches(SECRET_40, storedHash)).toBe(false);
  });

  it('matches a generated key against the hash of its own secret only', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(secretMatches(a.secret, hashApiKeySecret(a.secret))).toBe(true);
    expect(secretMatches(a.secret, hashApiKeySecret(b.secret))).toBe(false);
  });
});
