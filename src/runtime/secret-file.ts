import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';

/** How long a reader waits for a secret file that exists but is still empty (a writer of an older version between create and write). */
const EMPTY_FILE_WAIT_MS = 2_000;
const EMPTY_FILE_POLL_MS = 50;

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
 * The secret in an existing file. An empty read is retried for a while and then refused: an
 * empty secret is a publicly known one (SecretBox('') encrypts with a key anybody can compute).
 */
async function readWrittenSecretFile(dataDir: string, name: string): Promise<string> {
  const deadline = Date.now() + EMPTY_FILE_WAIT_MS;
  for (;;) {
    const value = await readSecretFile(dataDir, name);
    if (value) return value;
    if (Date.now() >= deadline) throw new Error(`the secret file ${path.join(dataDir, name)} is empty; remove it to have a new one generated, or fill it`);
    await sleep(EMPTY_FILE_POLL_MS);
  }
}

const isCode = (error: unknown, ...codes: string[]) => codes.includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * The secret in `<dataDir>/<name>`, generated (32 random bytes, base64url, mode 0600) on first use.
 * Several processes may start at once (the API, the worker, the supervisor). The secret is
 * written to a temporary file of this process first and then hard-linked into place, so the file
 * appears with its content or not at all; `link` fails with EEXIST when another process won, and
 * then its value is read.
 */
export async function readOrCreateSecretFile(dataDir: string, name: string): Promise<{ value: string; created: boolean }> {
  const existing = await readSecretFile(dataDir, name);
  if (existing !== undefined) return { value: existing || (await readWrittenSecretFile(dataDir, name)), created: false };
  await mkdir(dataDir, { recursive: true });
  const value = randomBytes(32).toString('base64url');
  const file = path.join(dataDir, name);
  const temp = path.join(dataDir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temp, `${value}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, file);
    return { value, created: true };
  } catch (error) {
    if (isCode(error, 'EEXIST')) return { value: await readWrittenSecretFile(dataDir, name), created: false };
    // A file system without hard links: create exclusively and write (readers wait out the gap).
    if (!isCode(error, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS')) throw error;
    try {
      await writeFile(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
      return { value, created: true };
    } catch (fallbackError) {
      if (!isCode(fallbackError, 'EEXIST')) throw fallbackError;
      return { value: await readWrittenSecretFile(dataDir, name), created: false };
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}
