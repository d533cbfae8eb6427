import { loadConfigOrExit } from '../config';
import { createSql } from './client';
import { migrate } from './migrate';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (deployments that migrate before rollout). */
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  if (!config.databaseUrl) {
    process.stderr.write('npm run migrate needs DATABASE_URL\n');
    process.exit(1);
  }
  const sql = createSql(config.databaseUrl, { max: 1 });
  try {
    const applied = await migrate(sql);
    process.stdout.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'nothing to apply\n');
  } finally {
    await sql.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
