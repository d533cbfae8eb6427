import { describe, expect, it } from 'vitest';
import { chainIdSchema, presentedChainId, storedChainId } from '../../../src/domain/chain-id';

describe('chain ids as their family names them (stored as text, migration 034)', () => {
  it.each([
    { given: 1, stored: '1', shown: 1 },
    { given: 137, stored: '137', shown: 137 },
    { given: 0, stored: '0', shown: 0 },
    { given: Number.MAX_SAFE_INTEGER, stored: String(Number.MAX_SAFE_INTEGER), shown: Number.MAX_SAFE_INTEGER },
    { given: 'cosmoshub-4', stored: 'cosmoshub-4', shown: 'cosmoshub-4' },
    { given: 'osmosis-1', stored: 'osmosis-1', shown: 'osmosis-1' },
    // A decimal string reads back as the number it names (ids stored before strings were accepted are all such).
    { given: '137', stored: '137', shown: 137 },
    { given: '0137', stored: '0137', shown: '0137' },
    { given: '9007199254740993', stored: '9007199254740993', shown: '9007199254740993' },
    { given: null, stored: null, shown: null },
  ])('$given → stored $stored, shown $shown', ({ given, stored, shown }) => {
    if (given !== null) expect(chainIdSchema.safeParse(given).success).toBe(true);
    expect(storedChainId(given)).toBe(stored);
    expect(presentedChainId(stored)).toBe(shown);
  });

  it.each([[-1], [1.5], [''], ['-leading-dash'], ['has space'], ['x'.repeat(65)], ['line\nbreak'], [true]])('refuses %j', (given) => {
    expect(chainIdSchema.safeParse(given).success).toBe(false);
  });
});
