import { readOrCreateSecretFile } from './secret-file';

/**
 * RVS_SECRET_KEY, or the key generated into the data dir on first start. Every API and worker
 * process of one deployment must see the same key; across machines, set RVS_SECRET_KEY.
 */
export async function resolveSecretKey(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  return (await readOrCreateSecretFile(dataDir, 'secret.key')).value;
}
