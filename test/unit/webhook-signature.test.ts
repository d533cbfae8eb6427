import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook, webhookSecretKey } from '../../src/domain/webhook-signature';

// The example of the Standard Webhooks specification (its README's test vector).
const SPEC_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SPEC_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const SPEC_TIMESTAMP = 1614265330;
const SPEC_BODY = '{"test": 2432232314}';
const SPEC_SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

describe('signWebhook', () => {
  it('reproduces the signature of the specification example', () => {
    expect(signWebhook(SPEC_SECRET, SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY)).toBe(SPEC_SIGNATURE);
  });

  it('is accepted by the reference implementation (standardwebhooks) for a generated secret', () => {
    const secret = generateWebhookSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: 'run.finished', data: { run_id: 'x', note: 'ünïcode ✓' } });
    const headers = { 'webhook-id': 'd-1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, 'd-1', timestamp, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // One changed byte of the body, the id or the timestamp fails the check.
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'd-2' })).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': String(timestamp - 1) })).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('keys the HMAC with the decoded secret bytes, not the secret text', () => {
    const secret = generateWebhookSecret();
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update('id.1.body').digest('base64');
    expect(signWebhook(secret, 'id', 1, 'body')).toBe(`v1,${expected}`);
  });
});

describe('webhook secrets', () => {
  it('generates whsec_ and the base64 of 24 random bytes, never twice the same', () => {
    const secrets = Array.from({ length: 100 }, generateWebhookSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect(webhookSecretKey(secret)).toHaveLength(24);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it.each([
    { name: 'no prefix', secret: Buffer.alloc(24, 1).toString('base64') },
    { name: 'a wrong prefix', secret: `wsec_${Buffer.alloc(24, 1).toString('base64')}` },
    { name: '23 bytes', secret: `whsec_${Buffer.alloc(23, 1).toString('base64')}` },
    { name: '65 bytes', secret: `whsec_${Buffer.alloc(65, 1).toString('base64')}` },
    { name: 'base64url characters', secret: `whsec_${'-_'.repeat(16)}` },
    { name: 'broken padding', secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}=` },
    { name: 'nothing after the prefix', secret: 'whsec_' },
  ])('refuses $name', ({ secret }) => {
    expect(webhookSecretKey(secret)).toBeNull();
    expect(() => signWebhook(secret, 'id', 1, 'body')).toThrow('not a whsec_ secret');
  });

  it('accepts 24 to 64 bytes', () => {
    expect(webhookSecretKey(`whsec_${Buffer.alloc(64, 7).toString('base64')}`)).toHaveLength(64);
    expect(webhookSecretKey(SPEC_SECRET)).toHaveLength(24);
  });
});
