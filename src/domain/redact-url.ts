export const REDACTED = '****';

// Providers put API keys in path segments (Infura /v3/<hex>, Alchemy /v2/<key>, QuickNode /<hex>/).
// A long token-like segment with a digit or an upper-case letter is treated as a key; a false
// positive only hides a harmless segment, a false negative would leak a credential.
function looksLikeKey(segment: string): boolean {
  return segment.length >= 16 && /^[A-Za-z0-9_\-.~%]+$/.test(segment) && /[0-9A-Z]/.test(segment);
}

/** Redacts userinfo, query values and key-like path segments. Returns '****' for unparsable input. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return REDACTED;
  }
  const auth = url.username || url.password ? `${REDACTED}@` : '';
  const path = url.pathname
    .split('/')
    .map((segment) => (looksLikeKey(segment) ? REDACTED : segment))
    .join('/');
  const query = [...url.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${REDACTED}`).join('&');
  return `${url.protocol}//${auth}${url.host}${path}${query ? `?${query}` : ''}`;
}
