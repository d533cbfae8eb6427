import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The secret in `<dataDir>/<name>`, or undefined when the file does not exist. */
export async function readSecretFile(dataDir: string, name: string): Promise<string | undefined> {
  try {
    return (await readFile(path.join(dataDir, name), 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The secret in `<dataDir>/<name>`, generated (32 random bytes, base64url, mode 0600) on first use.
 * Several processes may start at once: the first writer wins and the others read its value.
 */
export async function readOrCreateSecretFile(dataDir: string, name: string): Promise<{ value: string; created: boolean }> {
  const existing = await readSecretFile(dataDir, name);
  if (existing) return { value: existing, created: false };
  await mkdir(dataDir, { recursive: true });
  const value = randomBytes(32).toString('base64url');
  try {
    await writeFile(path.join(dataDir, name), `${value}\n`, { mode: 0o600, flag: 'wx' });
    return { value, created: true };
  } catch {
    return { value: (await readSecretFile(dataDir, name)) ?? value, created: false };
  }
}
