// Compiles the CLI (src/cli, and the pure src/domain modules it shares with the service) into
// plain JavaScript under dist/. npm packages stay external: they are the CLI package's
// dependencies (yaml, zod), installed beside it, so nothing of the server (Fastify, Temporal,
// postgres, tsx) reaches a machine that installs the CLI.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const dist = join(here, 'dist');
const { version } = JSON.parse(await readFile(join(here, 'package.json'), 'utf8'));

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await build({
  entryPoints: { rvs: join(root, 'src/cli/rvs.ts'), action: join(root, 'src/cli/action.ts') },
  outdir: dist,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  banner: { js: '#!/usr/bin/env node' },
  define: { RVS_CLI_VERSION: JSON.stringify(version) },
  logLevel: 'warning',
});
await chmod(join(dist, 'rvs.js'), 0o755);

// The file's JSON Schema ships with the CLI (`rvs schema` prints the same document), for editors
// without access to a running service.
const schema = execFileSync(process.execPath, [join(dist, 'rvs.js'), 'schema'], { cwd: here, encoding: 'utf8' });
await writeFile(join(dist, 'rvs-file.schema.json'), schema);
