import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readOrCreateSecretFile } from '../../src/runtime/secret-file';
import { resolveSecretKey } from '../../src/runtime/secret-key';

const dirs: string[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rvs-secret-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('readOrCreateSecretFile', () => {
  // The API, the worker and the supervisor may all start at once on a fresh data dir. A reader
  // that saw the file between its creation and its write used to take '' as the secret (and
  // SecretBox('') is a key anybody can compute).
  it('gives every concurrent caller on a fresh dir the same non-empty value, and exactly one of them created it', async () => {
    for (let round = 0; round < 20; round++) {
      const dataDir = path.join(await freshDir(), 'data');
      const results = await Promise.all(Array.from({ length: 16 }, () => readOrCreateSecretFile(dataDir, 'secret.key')));
      const values = new Set(results.map((result) => result.value));
      expect([...values], `round ${round}`).toHaveLength(1);
      expect([...values][0]!.length, `round ${round}`).toBeGreaterThanOrEqual(32);
      expect(results.filter((result) => result.created), `round ${round}`).toHaveLength(1);
      // No temporary file is left behind, and the secret is readable by its owner only.
      expect(await readdir(dataDir)).toEqual(['secret.key']);
      expect((await stat(path.join(dataDir, 'secret.key'))).mode & 0o777).toBe(0o600);
    }
  });

  it('never takes a secret file that another process has created but not written yet: it waits for the content', async () => {
    const dataDir = await freshDir();
    const file = path.join(dataDir, 'secret.key');
    // What a concurrent writer's file looks like between its creation and its write.
    await writeFile(file, '');
    const written = 's'.repeat(43);
    const late = new Promise<void>((resolve) => setTimeout(() => void writeFile(file, `${written}\n`).then(() => resolve()), 200));
    const result = await readOrCreateSecretFile(dataDir, 'secret.key');
    await late;
    expect(result).toEqual({ value: written, created: false });
  });

  it('refuses a secret file that stays empty, rather than using an empty secret', async () => {
    const dataDir = await freshDir();
    await writeFile(path.join(dataDir, 'secret.key'), '\n');
    await expect(readOrCreateSecretFile(dataDir, 'secret.key')).rejects.toThrow(/is empty/);
  });

  it('returns an existing secret as it is', async () => {
    const dataDir = await freshDir();
    await writeFile(path.join(dataDir, 'secret.key'), `${'k'.repeat(43)}\n`);
    expect(await readOrCreateSecretFile(dataDir, 'secret.key')).toEqual({ value: 'k'.repeat(43), created: false });
  });
});

describe('resolveSecretKey', () => {
  it('refuses to start on a secret file holding a key shorter than 32 characters', async () => {
    const dataDir = await freshDir();
    await writeFile(path.join(dataDir, 'secret.key'), 'short\n');
    await expect(resolveSecretKey(undefined, dataDir)).rejects.toThrow(/at least 32 characters/);
  });

  it('refuses a configured key shorter than 32 characters, and takes a long enough one as it is', async () => {
    const dataDir = await freshDir();
    await expect(resolveSecretKey('short', dataDir)).rejects.toThrow(/at least 32 characters/);
    expect(await resolveSecretKey('c'.repeat(32), dataDir)).toBe('c'.repeat(32));
  });
});
