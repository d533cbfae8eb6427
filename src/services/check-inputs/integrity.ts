import { runPlanOf } from '../../chains/registry';
import { findRunIntegrity } from '../../db/run-integrity';
import { runSettingsOf } from '../../domain/run-plan';
import type { CheckInputLoader } from './check-input';

/**
 * integrity: what the integrity step stored per candidate (run_integrity, migration 040), when
 * the suite enables it (config.integrity). A family without a verifier is read as such: the
 * check then says it does not apply.
 */
export const integrityInput: CheckInputLoader = async ({ sql, run, candidates }) => {
  if (!runSettingsOf(run).integrity) return {};
  const chain = runPlanOf(run).chain;
  const stored = await findRunIntegrity(sql, run.id);
  const first = [...stored.values()][0];
  return {
    integrity: {
      family: chain.family,
      verifiable: chain.integrity !== undefined,
      anchor:
        first && first.anchor_number !== null && first.anchor_hash !== null && first.anchor_source !== null
          ? { number: first.anchor_number, hash: first.anchor_hash, source: first.anchor_source }
          : null,
      candidates: candidates.map((t) => {
        const row = stored.get(t.id);
        return {
          endpoint_id: t.endpoint_id,
          endpoint_name: t.endpoint_name,
          result: row ? { proven: row.proven, wrong: row.wrong, not_provable: row.not_provable, extra_requests: row.extra_requests, findings: row.findings } : null,
        };
      }),
    },
  };
};
