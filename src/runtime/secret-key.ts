import { readOrCreateSecretFile } from './secret-file';

/** Shorter keys are refused (config.ts checks RVS_SECRET_KEY the same way at startup). */
export const MIN_SECRET_KEY_LENGTH = 32;

/**
 * RVS_SECRET_KEY, or the key generated into the data dir on first start. Every API and worker
 * process of one deployment must see the same key; across machines, set RVS_SECRET_KEY. A short
 * key (a hand-edited or truncated file) stops the process: it encrypts every endpoint secret.
 */
export async function resolveSecretKey(configured: string | undefined, dataDir: string): Promise<string> {
  const key = configured ?? (await readOrCreateSecretFile(dataDir, 'secret.key')).value;
  if (key.length < MIN_SECRET_KEY_LENGTH) {
    throw new Error(`the secret key (RVS_SECRET_KEY or ${dataDir}/secret.key) must be at least ${MIN_SECRET_KEY_LENGTH} characters`);
  }
  return key;
}
