import { z } from 'zod';
import { CHAIN_FAMILIES } from '../../../chains/registry';
import { component, int, pageOf, timestamp, url, uuid, uuidParam } from '../shared/schemas';

export const chainParams = uuidParam('chainId');

/** A chain as services/chains.ts presentChain returns it. */
export const Chain = component(
  'Chain',
  z.object({
    id: uuid,
    name: z.string(),
    slug: z.string(),
    family: z.enum(CHAIN_FAMILIES),
    chain_id: int.nullable().describe('the chain\'s numeric id (EIP-155 for EVM chains); null when it has none'),
    explorer_url: url.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const ChainPage = pageOf('ChainPage', Chain);
