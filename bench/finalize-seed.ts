import { randomUUID } from 'node:crypto';
import type { Sql } from '../src/db/client';
import { insertRun } from '../src/db/runs';
import { suiteConfigSchema } from '../src/domain/suite-config';

/** The suite config a finalize bench runs with, given the seeded candidate and reference endpoints. */
export type BenchSuiteConfig = (endpoints: { candidate: string; reference: string }) => Record<string, unknown>;

/**
 * A running run of one candidate and one reference in a new tenant, as finalize finds it once
 * probing is done: tenant, chain, two endpoints (never contacted: finalize reads stored rows only),
 * a suite with the bench's config and the run with its two targets. The benches then write the
 * rows they measure with SQL.
 */
export async function seedFinalizeRun(
  sql: Sql,
  configOf: BenchSuiteConfig,
  callsPlanned: number,
): Promise<{ runId: string; candidateId: string; referenceId: string }> {
  const tenantId = randomUUID();
  const chainId = randomUUID();
  const [candidateEndpoint, referenceEndpoint] = [randomUUID(), randomUUID()];
  const suiteId = randomUUID();
  await sql`insert into tenants (id, name, slug) values (${tenantId}, 'bench', ${`bench-${tenantId}`})`;
  await sql`insert into chains (id, tenant_id, name, slug, family, chain_id) values (${chainId}, ${tenantId}, 'Bench', 'bench', 'evm', 1)`;
  for (const [id, name] of [[candidateEndpoint, 'candidate'], [referenceEndpoint, 'reference']] as const) {
    await sql`
      insert into endpoints (id, tenant_id, chain_id, name, protocol, addresses, timeout_ms)
      values (${id}, ${tenantId}, ${chainId}, ${name}, 'json-rpc-http',
              '[{"transport": "http", "url_redacted": "http://127.0.0.1:9", "url_encrypted": "unused"}]', 2000)`;
  }
  const config = suiteConfigSchema.parse(configOf({ candidate: candidateEndpoint, reference: referenceEndpoint }));
  await sql`insert into suites (id, tenant_id, chain_id, name, config) values (${suiteId}, ${tenantId}, ${chainId}, 'bench', ${sql.json(config as never)})`;
  const runId = randomUUID();
  const [candidateId, referenceId] = [randomUUID(), randomUUID()];
  await insertRun(sql, {
    id: runId,
    tenantId,
    suiteId,
    triggeredBy: 'api',
    baselineRunId: null,
    metadata: {},
    configSnapshot: { suite: { id: suiteId, name: 'bench', config }, chain: { id: chainId, name: 'Bench', slug: 'bench', explorer_url: null } },
    seed: 1,
    workflowId: `run-${runId}`,
    targets: [
      { id: candidateId, endpointId: candidateEndpoint, endpointName: 'candidate', role: 'primary', callsPlanned },
      { id: referenceId, endpointId: referenceEndpoint, endpointName: 'reference', role: 'reference', callsPlanned },
    ],
  });
  await sql`update runs set status = 'running', claimed_at = now(), started_at = now() where id = ${runId}`;
  return { runId, candidateId, referenceId };
}
