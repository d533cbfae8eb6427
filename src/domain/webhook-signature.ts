import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks: a secret is `whsec_` and the base64 of 24 to 64 random bytes. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const SECRET_BODY = /^[A-Za-z0-9+/]+={0,2}$/;

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** The key bytes of a secret, or null when it is not a Standard Webhooks secret. */
export function webhookSecretKey(secret: string): Buffer | null {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const body = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!SECRET_BODY.test(body) || body.length % 4 !== 0) return null;
  const key = Buffer.from(body, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : null;
}

/**
 * The `webhook-signature` header value: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`
 * keyed with the secret's bytes. The same id and body are signed on every attempt; only the
 * timestamp changes, so a receiver can reject replays of old attempts.
 */
export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = webhookSecretKey(secret);
  if (key === null) throw new Error('the webhook secret is not a whsec_ secret');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
