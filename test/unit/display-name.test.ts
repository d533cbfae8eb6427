import { describe, expect, it } from 'vitest';
import { displayName } from '../../src/domain/display-name';

describe('display names', () => {
  it.each([
    ['pr-gate', true],
    ['  Ethereum mainnet  ', true],
    ['ünïcode · names', true],
    ['', false],
    ['pr-gate\n::add-mask::x', false],
    ['tab\there', false],
    ['cr\rhere', false],
    ['x'.repeat(200), true],
    ['x'.repeat(201), false],
  ])('name %j valid: %s', (name, ok) => {
    expect(displayName.safeParse(name).success).toBe(ok);
  });
});
