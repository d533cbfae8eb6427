/*
 * GitHub Actions workflow commands (`::name key=value,…::data` on stdout), escaped the way the
 * runner unescapes them (the toolkit's @actions/core command.ts): in the data `%`, CR and LF; in a
 * property value also `:` and `,`. Unescaped, a value holding a line break ends the command there
 * (the rest is an ordinary log line, or another command), and `::add-mask::` of a secret holding
 * `%25`, `%0A` or `%0D` would mask the unescaped text instead of the secret.
 */

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One workflow command line, newline included. */
export function workflowCommand(name: string, data: string, properties: Readonly<Record<string, string>> = {}): string {
  const props = Object.entries(properties).map(([key, value]) => `${key}=${escapeProperty(value)}`);
  return `::${name}${props.length > 0 ? ` ${props.join(',')}` : ''}::${escapeData(data)}\n`;
}

/** Path segments and query values shorter than this (`v2`, `mainnet`) are not masked: masking them would hide common words all over the log. */
const MIN_KEY_LENGTH = 16;
/** Nor a shorter password (the Action's other secrets follow the same floor). */
const MIN_SECRET_LENGTH = 4;

/**
 * What of an endpoint URL the runner should mask (`::add-mask::`): its password, and each path
 * segment and query value of at least 16 characters — where providers put API keys (`/v2/<key>`,
 * `?apikey=<key>`) — as written and decoded. Nothing for a URL that does not parse (rvs refuses it).
 */
export function urlSecrets(raw: string): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const keys = [...url.pathname.split('/'), ...url.search.slice(1).split('&').map((pair) => pair.slice(pair.indexOf('=') + 1))];
  const parts = [
    ...[url.password, decodeSafely(url.password)].filter((p) => p.length >= MIN_SECRET_LENGTH),
    ...[...keys, ...keys.map(decodeSafely)].filter((p) => p.length >= MIN_KEY_LENGTH),
  ];
  return [...new Set(parts)];
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
