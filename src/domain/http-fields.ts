/*
 * One rule for HTTP header fields, shared by the endpoints API (which stores a tenant's headers)
 * and the probe client (which sends them), so a header the API accepts is never refused at run
 * time and failing every run.
 */

/** RFC 9110 §5.1 field-name: a token. */
export const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * RFC 9110 §5.5 field-value: visible ASCII and obs-text (0x80–0xFF), with single spaces or tabs
 * between them and none at either end. No control characters (NUL, CR, LF, VT, FF, DEL), which
 * would split or smuggle a request.
 */
const HEADER_VALUE = /^(?:[\x21-\x7E\x80-\xFF](?:[\t\x20-\x7E\x80-\xFF]*[\x21-\x7E\x80-\xFF])?)?$/;

export function isValidHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

export function isValidHeaderValue(value: string): boolean {
  return HEADER_VALUE.test(value);
}

/**
 * Set by the probe client itself, or refused by undici whatever their value (its
 * lib/core/request.js processHeader: transfer-encoding, keep-alive and upgrade are invalid, expect
 * is not supported, host and content-length are its own): an endpoint cannot set them.
 * test/unit/http-fields.test.ts builds an undici request from every header this rule accepts.
 */
export const CLIENT_SET_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
]);

export function isClientSetHeader(name: string): boolean {
  return CLIENT_SET_HEADERS.has(name.toLowerCase());
}
