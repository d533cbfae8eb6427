export const REDACTED = '****';

// Providers put API keys in path segments (Infura /v3/<hex>, Alchemy /v2/<key>, QuickNode /<hex>/).
// A long token-like segment with a digit or an upper-case letter is treated as a key; a false
// positive only hides a harmless segment, a false negative would leak a credential.
function looksLikeKey(segment: string): boolean {
  if (!/^[A-Za-z0-9_\-.~%]+$/.test(segment)) return false;
  return (segment.length >= 16 && /[0-9A-Z]/.test(segment)) || (segment.length >= 24 && /^[a-z0-9]+$/.test(segment));
}

/** A segment such as `eth;apikey=XYZ` or `apikey=XYZ` keeps its names and loses its values. */
function redactSegment(segment: string): string {
  if (looksLikeKey(segment)) return REDACTED;
  return segment.includes('=') ? segment.replace(/=[^;,&]*/g, `=${REDACTED}`) : segment;
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
    .map(redactSegment)
    .join('/');
  // A bare `?TOKEN` arrives as a key with no value: a key-like name is redacted too.
  const query = [...url.searchParams.keys()]
    .map((key) => `${looksLikeKey(key) ? REDACTED : encodeURIComponent(key)}=${REDACTED}`)
    .join('&');
  return `${url.protocol}//${auth}${url.host}${path}${query ? `?${query}` : ''}`;
}
