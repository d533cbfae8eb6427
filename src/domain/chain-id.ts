import { z } from 'zod';

/*
 * A chain's own id, as its family names it: EVM chains a number (EIP-155: 1, 137, …), CometBFT
 * chains a string (`cosmoshub-4`, `osmosis-1`). Stored as text (migration 034); given and shown as
 * a JSON number when it is a plain decimal integer (every id stored before strings were accepted),
 * else as the string.
 */

export type ChainId = number | string;

/** A decimal integer without leading zeros, at most Number.MAX_SAFE_INTEGER: shown as a number. */
const NUMERIC = /^(0|[1-9][0-9]{0,15})$/;

export const chainIdSchema = z.union([
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'must be letters, digits, dots, colons, underscores and dashes, starting with a letter or digit'),
]);

/** The stored text of a chain id (null: none). */
export const storedChainId = (id: ChainId | null): string | null => (id === null ? null : String(id));

/** A stored chain id as the API shows it: a number when it is a safe decimal integer, else the string. */
export function presentedChainId(stored: string | null): ChainId | null {
  if (stored === null) return null;
  if (NUMERIC.test(stored)) {
    const value = Number(stored);
    if (Number.isSafeInteger(value)) return value;
  }
  return stored;
}
