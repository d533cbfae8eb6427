import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/client';

const withCode = (code: string) => Object.assign(new Error(code), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED'), true],
    ['connection reset', withCode('ECONNRESET'), true],
    ['postgres.js connect timeout', withCode('CONNECT_TIMEOUT'), true],
    ['postgres.js connection closed', withCode('CONNECTION_CLOSED'), true],
    ['postgres.js pool ended', withCode('CONNECTION_ENDED'), true],
    ['server shutting down (57P01)', withCode('57P01'), true],
    ['server starting up (57P03)', withCode('57P03'), true],
    ['too many connections (53300)', withCode('53300'), true],
    ['connection exception class 08', withCode('08006'), true],
    ['every address refused', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]), true],
    ['unique violation', withCode('23505'), false],
    ['syntax error', withCode('42601'), false],
    ['no code', new Error('boom'), false],
    ['not an error', 'ECONNREFUSED', false],
    ['null', null, false],
    ['aggregate of query errors', new AggregateError([withCode('23505')]), false],
  ])('%s', (_name, error, expected) => {
    expect(isDatabaseUnavailable(error)).toBe(expected);
  });
});
