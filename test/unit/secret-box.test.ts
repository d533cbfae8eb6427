import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box';

const box = new SecretBox('a-test-secret-key-of-at-least-32-chars');
const otherBox = new SecretBox('another-test-secret-key-of-32-chars!!');

/** Flips one byte of the base64url part at `index` of a sealed value (v1.iv.tag.body). */
function flipByte(sealed: string, index: 1 | 2 | 3): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

const PLAINTEXTS = [
  { name: 'an endpoint URL with a key', plaintext: 'https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef' },
  { name: 'a header value', plaintext: 'Bearer eyJhbGciOiJIUzI1NiJ9.payload.signature' },
  { name: 'non-ASCII text', plaintext: 'clé secrète — 秘密 🔑' },
  { name: 'a long value', plaintext: 'x'.repeat(10_000) },
  { name: 'a single character', plaintext: 'k' },
  { name: 'an empty string', plaintext: '' },
];

describe('SecretBox encrypt/decrypt', () => {
  it.each(PLAINTEXTS)('round-trips $name', ({ plaintext }) => {
    expect(box.decrypt(box.encrypt(plaintext))).toBe(plaintext);
  });

  // Only plaintexts long enough that random base64url cannot contain them by chance.
  it.each(PLAINTEXTS.filter((p) => p.plaintext.length >= 8))('never shows $name in the sealed value', ({ plaintext }) => {
    const sealed = box.encrypt(plaintext);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/);
    expect(sealed).not.toContain(plaintext);
    expect(sealed).not.toContain(Buffer.from(plaintext).toString('base64url'));
  });

  it('seals the same plaintext differently every time', () => {
    const plaintext = 'https://node.example.com/rpc?apikey=topsecret';
    const sealed = Array.from({ length: 20 }, () => box.encrypt(plaintext));
    expect(new Set(sealed).size).toBe(sealed.length);
    for (const s of sealed) expect(box.decrypt(s)).toBe(plaintext);
  });

  it.each([
    { name: 'the iv', tamper: (s: string) => flipByte(s, 1) },
    { name: 'the auth tag', tamper: (s: string) => flipByte(s, 2) },
    { name: 'the ciphertext', tamper: (s: string) => flipByte(s, 3) },
    { name: 'a truncated ciphertext', tamper: (s: string) => s.slice(0, -4) },
    { name: 'an unknown version', tamper: (s: string) => s.replace(/^v1\./, 'v2.') },
    { name: 'a missing part', tamper: (s: string) => s.split('.').slice(0, 3).join('.') },
    { name: 'a value that was never sealed', tamper: () => 'plain text' },
    { name: 'an empty string', tamper: () => '' },
  ])('refuses to decrypt a value with $name tampered with', ({ tamper }) => {
    const sealed = box.encrypt('https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef');
    expect(() => box.decrypt(tamper(sealed))).toThrow();
  });

  it.each(PLAINTEXTS)('cannot decrypt $name sealed under another key', ({ plaintext }) => {
    expect(() => otherBox.decrypt(box.encrypt(plaintext))).toThrow();
  });

  it('decrypts with a new instance built from the same key (a restart)', () => {
    const sealed = box.encrypt('persisted secret');
    expect(new SecretBox('a-test-secret-key-of-at-least-32-chars').decrypt(sealed)).toBe('persisted secret');
  });
});

describe('SecretBox sign', () => {
  it.each([
    { name: 'the same key and payload', a: box, b: new SecretBox('a-test-secret-key-of-at-least-32-chars'), pa: 'p', pb: 'p', equal: true },
    { name: 'another key', a: box, b: otherBox, pa: 'p', pb: 'p', equal: false },
    { name: 'another payload', a: box, b: box, pa: 'p', pb: 'q', equal: false },
  ])('signatures for $name are equal: $equal', ({ a, b, pa, pb, equal }) => {
    expect(a.sign(pa) === b.sign(pb)).toBe(equal);
  });

  it('signs into base64url', () => {
    expect(box.sign('payload')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
