import { z } from 'zod';

/**
 * A name a tenant gives a chain, endpoint, suite, catalog entry, API key or tenant: shown in
 * Markdown, the dashboard and CI logs. No control characters: a line break inside a name would
 * start a new line of a CI job's log, which a GitHub runner reads as a workflow command
 * (`::add-mask::`, `::stop-commands::`, …) when it begins with `::`.
 */
export const displayName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters (line breaks, tabs)');
