import { ADAPTED_FAMILIES, chainAdapter, hasAdapter } from '../chains/registry';
import type { ChainAdapter } from '../chains/types';
import { validationError } from '../errors';

/**
 * The adapter of a chain the caller wants to verify. A family the chain resource accepts but no
 * adapter implements yet (solana, bitcoin) is refused with a 400 naming the field, instead of
 * being probed as EVM (docs/chains.md).
 */
export function adapterForChain(chain: { family: string }, field: string): ChainAdapter {
  if (!hasAdapter(chain.family)) {
    throw validationError([
      { field, message: `chains of family "${chain.family}" cannot be verified yet; supported families: ${ADAPTED_FAMILIES.join(', ')}` },
    ]);
  }
  return chainAdapter(chain.family);
}
