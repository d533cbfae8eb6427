import { describe, expect, it } from 'vitest';
import { Http1ResponseParser, HttpParseError, MAX_HEAD_BYTES, type HttpResponse } from '../../src/probe/http1-response-parser';

const CAP = 1024;

/** Feeds `raw` in the given pieces; returns the response (from push, or from end() when `close`). */
function parse(pieces: Buffer[], close = false): HttpResponse | null {
  const parser = new Http1ResponseParser(CAP);
  let response: HttpResponse | null = null;
  for (const piece of pieces) {
    const result = parser.push(piece);
    if (result !== null) {
      expect(response, 'a response completes once').toBeNull();
      response = result;
    }
  }
  return close && response === null ? parser.end() : response;
}

/** Every way the bytes can arrive that matters: whole, byte by byte, and split at each position. */
function splits(raw: string): Buffer[][] {
  const bytes = Buffer.from(raw, 'latin1');
  const ways: Buffer[][] = [[bytes], Array.from(bytes, (b) => Buffer.from([b]))];
  for (let at = 1; at < bytes.length; at++) ways.push([bytes.subarray(0, at), bytes.subarray(at)]);
  return ways;
}

describe('Http1ResponseParser', () => {
  it.each([
    ['Content-Length', 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"result":1}\n', { status: 200, body: '{"result":1}\n', keepAlive: true }],
    ['no reason phrase', 'HTTP/1.1 200\r\ncontent-length: 2\r\n\r\n{}', { status: 200, body: '{}', keepAlive: true }],
    ['chunked', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n3;ext=1\r\n12}\r\n0\r\n\r\n', { status: 200, body: '{"a":12}', keepAlive: true }],
    ['chunked with trailers', 'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n', { status: 200, body: 'ok', keepAlive: true }],
    ['chunked beats Content-Length, then closes', 'HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', { status: 200, body: 'ok', keepAlive: false }],
    ['Connection: close', 'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 4\r\n\r\nbusy', { status: 503, body: 'busy', keepAlive: false }],
    ['HTTP/1.0 closes by default', 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}', { status: 200, body: '{}', keepAlive: false }],
    ['HTTP/1.0 with keep-alive', 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\n{}', { status: 200, body: '{}', keepAlive: true }],
    ['100 Continue before the response', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}', { status: 200, body: '{}', keepAlive: true }],
    ['103 Early Hints with headers', 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx', { status: 201, body: 'x', keepAlive: true }],
    ['304 has no body', 'HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n', { status: 304, body: '', keepAlive: true }],
    ['204 has no body', 'HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n', { status: 204, body: '', keepAlive: true }],
    ['a redirect', 'HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:1/\r\nContent-Length: 0\r\n\r\n', { status: 307, body: '', keepAlive: true }],
    ['Keep-Alive timeout', 'HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: 0\r\n\r\n', { status: 200, body: '', keepAlive: true, keepAliveTimeoutMs: 5000 }],
    ['repeated equal Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok', { status: 200, body: 'ok', keepAlive: true }],
  ])('parses %s however the bytes are split', (_case, raw, expected) => {
    for (const pieces of splits(raw)) {
      const response = parse(pieces);
      expect(response).not.toBeNull();
      expect({ ...response!, body: response!.body.toString('latin1') }).toMatchObject({ keepAliveTimeoutMs: null, ...expected });
    }
  });

  it('delimits a body without length by the close, and only then', () => {
    const raw = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"jsonrpc":"2.0"}';
    for (const pieces of splits(raw)) {
      expect(parse(pieces)).toBeNull();
      expect(parse(pieces, true)).toMatchObject({ status: 200, keepAlive: false });
      expect(parse(pieces, true)!.body.toString()).toBe('{"jsonrpc":"2.0"}');
    }
  });

  it.each([
    ['in the head', 'HTTP/1.1 200 OK\r\nContent-Len'],
    ['in a Content-Length body', 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345'],
    ['in a chunk', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12'],
    ['before the last chunk', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n'],
    ['with nothing received', ''],
  ])('reports a response cut off %s as truncated', (_case, raw) => {
    expect(parse([Buffer.from(raw, 'latin1')], true)).toBeNull();
  });

  it('marks a connection not reusable when bytes follow a complete response', () => {
    const response = parse([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n')]);
    expect(response).toMatchObject({ status: 200, keepAlive: false });
    expect(response!.body.toString()).toBe('ok');
  });

  it.each([
    ['a status line that is not HTTP/1.x', 'ICY 200 OK\r\n\r\n', 'RVS_INVALID_HTTP'],
    ['HTTP/2 framing', 'HTTP/2 200\r\n\r\n', 'RVS_INVALID_HTTP'],
    ['a non-numeric status', 'HTTP/1.1 2x0 OK\r\n\r\n', 'RVS_INVALID_HTTP'],
    ['a protocol switch', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n', 'RVS_INVALID_HTTP'],
    ['a header line without colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', 'RVS_INVALID_HTTP'],
    ['whitespace before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok', 'RVS_INVALID_HTTP'],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 'RVS_INVALID_HTTP'],
    ['conflicting Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok', 'RVS_INVALID_HTTP'],
    ['a malformed chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'RVS_INVALID_HTTP'],
    ['chunk data longer than its size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokay\r\n0\r\n\r\n', 'RVS_INVALID_HTTP'],
    ['a Content-Length over the cap', `HTTP/1.1 200 OK\r\nContent-Length: ${CAP + 1}\r\n\r\n`, 'RVS_RESPONSE_TOO_LARGE'],
    ['chunks adding up to more than the cap', `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n200\r\n${'a'.repeat(512)}\r\n201\r\n`, 'RVS_RESPONSE_TOO_LARGE'],
    ['a body delimited by the close over the cap', `HTTP/1.1 200 OK\r\n\r\n${'a'.repeat(CAP + 1)}`, 'RVS_RESPONSE_TOO_LARGE'],
    ['a head over 64 KiB', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}`, 'RVS_INVALID_HTTP'],
    ['endless 1xx interim responses', 'HTTP/1.1 100 Continue\r\n\r\n'.repeat(MAX_HEAD_BYTES / 20), 'RVS_INVALID_HTTP'],
    ['endless trailers', `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${'X-T: 1\r\n'.repeat(MAX_HEAD_BYTES / 6)}`, 'RVS_INVALID_HTTP'],
  ])('fails on %s', (_case, raw, code) => {
    const bytes = Buffer.from(raw, 'latin1');
    const pieces17 = Array.from({ length: Math.ceil(bytes.length / 17) }, (_, i) => bytes.subarray(i * 17, i * 17 + 17));
    for (const pieces of [[bytes], pieces17]) {
      let error: unknown;
      try {
        parse(pieces, true);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(HttpParseError);
      expect((error as HttpParseError).code).toBe(code);
    }
  });

  it('accepts a body of exactly the cap', () => {
    const response = parse([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${CAP}\r\n\r\n${'a'.repeat(CAP)}`)]);
    expect(response!.body).toHaveLength(CAP);
  });
});
