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
    chain_id: z
      .union([int, z.string()])
      .nullable()
      .describe('the chain\'s own id as its family names it: a number for EVM chains (EIP-155), a string for CometBFT chains (`cosmoshub-4`); null when it has none'),
    explorer_url: url.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const ChainPage = pageOf('ChainPage', Chain);
