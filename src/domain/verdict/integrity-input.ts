/* What the integrity check judges (its part of the verdict input): apart from the check, which reads the verdict's types. */

/** One stored finding, as the loader reads it (src/db/run-integrity.ts). */
export type IntegrityInputFinding =
  | { method: string; params: string; kind: 'proven'; block: string | null }
  | { method: string; params: string; kind: 'wrong'; block: string | null; path: string; message: string }
  | { method: string; params: string; kind: 'not_provable'; reason: string };

/** What finalize reads for the check: the suite enabled it (config.integrity). */
export interface IntegrityInput {
  family: string;
  /** False: the family has no verifier (the check does not apply, and says so). */
  verifiable: boolean;
  anchor: { number: string; hash: string; source: 'trusted_block' | 'reference' } | null;
  candidates: readonly {
    endpoint_id: string;
    endpoint_name: string;
    /** Null: the step stored nothing for it (it did not run, or its worker was lost). */
    result: { proven: number; wrong: number; not_provable: number; extra_requests: number; findings: readonly IntegrityInputFinding[] } | null;
  }[];
}
