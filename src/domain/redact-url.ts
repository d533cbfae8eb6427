export const REDACTED = '****';

/**
 * The one URL redaction (endpoint and webhook URLs, the CLI's service URL in its messages).
 *
 * The form of an endpoint URL that may be shown: scheme, host and port stay; userinfo, every
 * non-empty path segment and the whole query become '****'; the fragment is dropped. Returns
 * '****' for unparsable input.
 *
 * Nothing in a path or query is kept, because no rule can tell a key from a harmless word:
 * providers put keys in segments of any length and alphabet (`/v2/<key>`, `/<hex>/`, `/key:<key>`)
 * and in query names as well as values (a bare `?<token>`). A redacted `/v1` costs a reader
 * little; a kept credential cannot be taken back.
 *
 * `keepPath` is for a URL of our own service (the CLI's `--url`), whose path is a route prefix
 * such as `/v1`, never a credential: only userinfo and the query are hidden.
 */
export function redactUrl(raw: string, options: { keepPath?: boolean } = {}): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return REDACTED;
  }
  const auth = url.username || url.password ? `${REDACTED}@` : '';
  // Empty segments (the root '/', a trailing or doubled slash) carry nothing and keep the shape.
  const path = options.keepPath
    ? url.pathname
    : url.pathname
        .split('/')
        .map((segment) => (segment === '' ? '' : REDACTED))
        .join('/');
  const query = url.search === '' ? '' : `?${REDACTED}`;
  return `${url.protocol}//${auth}${url.host}${path}${query}`;
}
