import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { classifyFailure, endpointFailure } from '../../activities/retry-recording';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('classifyFailure', () => {
  it.each([
    { name: 'connection refused by our database', error: withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), expected: 'infrastructure' },
    { name: 'postgres.js: connection closed', error: withCode('CONNECTION_CLOSED'), expected: 'infrastructure' },
    { name: 'server shutting down (57P01)', error: withCode('57P01', 'terminating connection due to administrator command'), expected: 'infrastructure' },
    { name: 'server starting up (57P03)', error: withCode('57P03'), expected: 'infrastructure' },
    { name: 'connection exception class 08', error: withCode('08006'), expected: 'infrastructure' },
    { name: 'too many connections (53300)', error: withCode('53300'), expected: 'infrastructure' },
    { name: 'every address refused (AggregateError)', error: new AggregateError([withCode('ECONNREFUSED')]), expected: 'infrastructure' },
    { name: 'wrapped database error', error: Object.assign(new Error('write failed'), { cause: withCode('ECONNRESET') }), expected: 'infrastructure' },
    { name: 'rethrown InfrastructureFailure', error: ApplicationFailure.retryable('down', 'InfrastructureFailure'), expected: 'infrastructure' },
    { name: 'marked endpoint failure (its ECONNREFUSED is not ours)', error: endpointFailure('connect ECONNREFUSED 127.0.0.1:8545'), expected: 'endpoint' },
    { name: 'SQL error of a bug (42P01)', error: withCode('42P01', 'relation does not exist'), expected: 'endpoint' },
    { name: 'a bug', error: new TypeError('x is undefined'), expected: 'endpoint' },
    { name: 'not an error at all', error: 'boom', expected: 'endpoint' },
    { name: 'non-retryable', error: ApplicationFailure.nonRetryable('refused', 'OutboundAddressRefused'), expected: 'final' },
  ])('$name → $expected', ({ error, expected }) => {
    expect(classifyFailure(error)).toBe(expected);
  });
});
