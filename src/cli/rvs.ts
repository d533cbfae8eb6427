import { main } from './main';

// `rvs` entry point (bin/rvs, or `npm run rvs --`): everything else lives in main.ts.
void main({ argv: process.argv.slice(2), env: process.env, stdout: process.stdout, stderr: process.stderr }).then((code) => {
  process.exitCode = code;
});
