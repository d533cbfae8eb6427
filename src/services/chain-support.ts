import { ADAPTED_FAMILIES, chainAdapter, hasAdapter } from '../chains/registry';
import type { ChainAdapter } from '../chains/types';
import { validationError } from '../errors';

/**
 * The adapter of a chain the caller wants to verify. A family without an adapter (every family the
 * chain resource accepts has one; a hand-edited row may name another) is refused with a 400 naming
 * the field, instead of being probed as EVM (docs/chains.md).
 */
export function adapterForChain(chain: { family: string }, field: string): ChainAdapter {
  if (!hasAdapter(chain.family)) {
    throw validationError([
      { field, message: `chains of family "${chain.family}" cannot be verified yet; supported families: ${ADAPTED_FAMILIES.join(', ')}` },
    ]);
  }
  return chainAdapter(chain.family);
}
