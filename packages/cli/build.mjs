// Compiles the CLI (src/cli, and the pure src/domain modules it shares with the service) into
// plain JavaScript under dist/: one file per entry point, with its two libraries (yaml, zod)
// bundled in, so installing the package needs Node and nothing from a registry, and nothing of
// the server (Fastify, Temporal, postgres, tsx) comes along. `npm run lint` keeps src/cli from
// importing anything else.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
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
  entryPoints: { cli: join(root, 'src/cli/package-entry.ts') },
  outdir: dist,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // In the action's checkout only packages/cli has node_modules (npm install there); in this
  // repository the root's serve, with the same versions.
  nodePaths: [join(here, 'node_modules')],
  define: { RVS_CLI_VERSION: JSON.stringify(version) },
  logLevel: 'warning',
});
const shim = (call) => `#!/usr/bin/env node\n'use strict';\nrequire('./cli.js').${call}();\n`;
await writeFile(join(dist, 'rvs.js'), shim('runCli'), { mode: 0o755 });
await writeFile(join(dist, 'action.js'), shim('runActionCli'));

// The file's JSON Schema ships with the CLI (`rvs schema` prints the same document), for editors
// without access to a running service.
const schema = execFileSync(process.execPath, [join(dist, 'rvs.js'), 'schema'], { cwd: here, encoding: 'utf8' });
await writeFile(join(dist, 'rvs-file.schema.json'), schema);
