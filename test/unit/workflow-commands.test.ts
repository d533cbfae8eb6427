import { describe, expect, it } from 'vitest';
import { escapeData, urlSecrets, workflowCommand } from '../../src/cli/workflow-commands';

/*
 * GitHub Actions workflow commands as the runner reads them (the toolkit's @actions/core command.ts
 * escaping): a value holding `%`, CR or LF must be escaped, or the runner masks or shows something
 * else than what was meant.
 */

describe('workflow commands: escaped as the runner unescapes them', () => {
  it.each([
    { data: 'plain-token', line: '::add-mask::plain-token\n' },
    // The runner would unescape %25 to % and mask "ab%cd", leaving the real "ab%25cd" visible.
    { data: 'ab%25cd', line: '::add-mask::ab%2525cd\n' },
    // A line break would end the command: "second" would be printed as a log line, unmasked.
    { data: 'first\nsecond', line: '::add-mask::first%0Asecond\n' },
    { data: 'a\r\nb', line: '::add-mask::a%0D%0Ab\n' },
  ])('add-mask $data', ({ data, line }) => {
    expect(workflowCommand('add-mask', data)).toBe(line);
  });

  it('escapes property values (`:` and `,` too) and the message', () => {
    expect(workflowCommand('error', 'p95 12 ms\n::set-env name=X::1', { title: 'rvs: verdict, fail' })).toBe('::error title=rvs%3A verdict%2C fail::p95 12 ms%0A::set-env name=X::1\n');
    expect(escapeData('100%')).toBe('100%25');
  });
});

describe('urlSecrets: what of a target URL is masked in the job log', () => {
  const KEY = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
  it.each([
    { url: `https://eth-mainnet.example.com/v2/${KEY}`, secrets: [KEY], why: 'a key in the path; v2 is too short to be one' },
    { url: `https://rpc.example.com/?apikey=${KEY}&chain=1`, secrets: [KEY], why: 'a key in the query' },
    { url: 'https://user:s3cr%2Ft@rpc.example.com/', secrets: ['s3cr%2Ft', 's3cr/t'], why: 'the password, as written and decoded' },
    { url: 'http://127.0.0.1:8545/', secrets: [], why: 'nothing secret' },
    { url: 'https://rpc.example.com/mainnet/ethereum', secrets: [], why: 'short segments are words, not keys' },
    { url: 'not a url', secrets: [], why: 'unparsable: rvs refuses it' },
  ])('$why', ({ url, secrets }) => {
    expect(urlSecrets(url)).toEqual(secrets);
  });
});
