import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// rvs_<12-char prefix>_<secret>: the prefix finds the row, the secret is compared by hash.
const API_KEY_PATTERN = /^rvs_([A-Za-z0-9]{12})_([A-Za-z0-9]{32,128})$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface ParsedApiKey {
  prefix: string;
  secret: string;
}

export function parseApiKey(token: string): ParsedApiKey | null {
  const match = API_KEY_PATTERN.exec(token);
  return match ? { prefix: match[1]!, secret: match[2]! } : null;
}

function randomAlphanumeric(length: number): string {
  // 248 is the largest multiple of 62 below 256: rejecting bytes above it keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(): { key: string } & ParsedApiKey {
  const prefix = randomAlphanumeric(12);
  const secret = randomAlphanumeric(40);
  return { key: `rvs_${prefix}_${secret}`, prefix, secret };
}

export function hashApiKeySecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const candidate = hashApiKeySecret(secret);
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}
