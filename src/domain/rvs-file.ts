import { z } from 'zod';
import { chainIdSchema } from './chain-id';
import { DEFAULT_VANTAGE_START_TIMEOUT_S } from './vantage';
import { freshnessSchema, integritySchema, READ_LEVEL_NAMES, retrySchema, suiteConfigSchema, thresholdsSchema, workloadSchema, WORKLOAD_LIMITS } from './suite-config';
import { displayName } from './display-name';

/**
 * The suites-as-code file (`rvs.yaml`) that `rvs apply` reads and `rvs export` writes: chains,
 * endpoints and suites of one tenant, each keyed by a name the file uses for references (a chain
 * by its slug, an endpoint by its chain and name, a suite by its name). The service never reads the
 * file; it publishes this schema (GET /v1/schemas/rvs-file.json) so editors can validate it, and
 * the CLI checks a file against the same schema before it changes anything.
 */

export const RVS_FILE_VERSION = 1;

/** `${NAME}`: the only way a secret enters the file; its value comes from the environment. */
export const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Endpoint URLs and header values carry keys, so the file names environment variables instead:
 * a value without any `${NAME}` would be a secret (or a URL that may become one) written into a
 * repository.
 */
const fromEnvironment = (what: string) =>
  z
    .string()
    .min(1)
    .max(4096)
    .regex(new RegExp(ENV_REFERENCE.source), `${what} must come from the environment: write \${NAME} (e.g. \${RVS_SECRET_RPC_URL}), never the value itself`)
    .describe(`${what}, with every secret part as \${NAME}, taken from the environment variable NAME when applied; rvs apply reads only RVS_SECRET_* names and those given with --env NAME`);

const slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes');
const name = displayName;

export const rvsFileChainSchema = z
  .strictObject({
    slug: slug.describe('the chain\'s key: endpoints and suites name their chain by it'),
    name,
    // The families are the server's (its chain registry): one the server does not speak is refused when the file is applied.
    family: z
      .string()
      .regex(/^[a-z][a-z0-9]*$/, 'must be a chain family name (lower-case letters and digits)')
      .max(32)
      .default('evm')
      .describe('the chain family: one the server registers (GET /v1/openapi.json lists them under the chain resource), else refused on apply'),
    chain_id: chainIdSchema.nullable().default(null),
    explorer_url: z.url({ protocol: /^https?$/ }).max(2048).nullable().default(null),
  })
  .describe('A chain, created or updated by its slug.');

export const rvsFileEndpointSchema = z
  .strictObject({
    name: name.describe('the endpoint\'s key on its chain: suites name their endpoints by it'),
    chain: slug.describe('slug of the endpoint\'s chain (in this file or already in the tenant)'),
    url: fromEnvironment('url'),
    // A provider's WebSocket URL carries the same key as its HTTP one: from the environment too.
    ws_url: fromEnvironment('ws_url')
      .nullable()
      .default(null)
      .describe('the WebSocket URL (ws or wss; head watches by subscription, workload.transport ws), with every secret part as ${NAME}; null or left out: none'),
    headers: z.record(z.string().min(1).max(200), fromEnvironment('a header value')).default({}),
    timeout_ms: z.number().int().min(100).max(60_000).default(10_000),
  })
  .describe('An endpoint, created or updated by its chain and name.');

const scheduleSchema = z
  .union([
    z.strictObject({ cron: z.string().min(1).max(200), timezone: z.string().min(1).max(100).default('UTC'), paused: z.boolean().default(false) }),
    z.strictObject({ interval_s: z.number().int().min(1), paused: z.boolean().default(false) }),
  ])
  .nullable()
  .describe('{cron, timezone} or {interval_s}, plus paused; null removes the schedule; left out, the suite\'s schedule is not managed by the file');

export const rvsFileSuiteSchema = z
  .strictObject({
    name: name.describe('the suite\'s key in the tenant'),
    chain: slug.describe('slug of the suite\'s chain'),
    description: z.string().max(2000).default(''),
    targets: z
      .array(name)
      .min(1)
      .max(WORKLOAD_LIMITS.maxTargets)
      .describe('names of the candidate endpoints (on the suite\'s chain)'),
    reference: name.nullable().default(null).describe('name of the reference endpoint, or null'),
    baseline: suiteConfigSchema.shape.baseline,
    workload: workloadSchema.prefault({}),
    thresholds: thresholdsSchema.prefault({}),
    retry: retrySchema.prefault({}),
    freshness: freshnessSchema.optional().describe('a head watch beside the workload (docs/freshness.md); left out: none'),
    integrity: integritySchema.optional().describe('answers proven against the chain\'s commitments (docs/integrity.md); left out: no integrity check'),
    commitment: z.enum(READ_LEVEL_NAMES).optional().describe('the commitment level reads are made at, on families that have one (Solana); left out: the family\'s default'),
    vantage_points: suiteConfigSchema.shape.vantage_points.describe(
      'regions whose workers probe every target, each on its queue rvs-probe-<region> (DESIGN.md §14); left out: probed from the main queue only (region local)',
    ),
    vantage_start_timeout_s: suiteConfigSchema.shape.vantage_start_timeout_s.describe(
      `seconds a region's probe task waits for a worker of the region before the region is vantage_unavailable; left out: ${DEFAULT_VANTAGE_START_TIMEOUT_S}`,
    ),
    schedule: scheduleSchema.optional(),
  })
  .describe('A suite, created or updated by its name; what it leaves out goes back to its default.');

export const rvsFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('the URL of this schema, for editors'),
    version: z.literal(RVS_FILE_VERSION),
    chains: z.array(rvsFileChainSchema).max(100).default([]),
    endpoints: z.array(rvsFileEndpointSchema).max(500).default([]),
    suites: z.array(rvsFileSuiteSchema).max(500).default([]),
  })
  .superRefine((file, ctx) => {
    const duplicates = <T>(items: T[], key: (item: T) => string, path: string, what: string) => {
      const seen = new Set<string>();
      items.forEach((item, index) => {
        const k = key(item);
        if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [path, index], message: `${what} appears more than once in the file` });
        seen.add(k);
      });
    };
    duplicates(file.chains, (c) => c.slug, 'chains', 'this chain slug');
    duplicates(file.endpoints, (e) => `${e.chain}\u0000${e.name}`, 'endpoints', 'this endpoint name on this chain');
    duplicates(file.suites, (s) => s.name, 'suites', 'this suite name');
    file.suites.forEach((suite, index) => {
      if (new Set(suite.targets).size !== suite.targets.length) {
        ctx.addIssue({ code: 'custom', path: ['suites', index, 'targets'], message: 'an endpoint may appear only once' });
      }
      if (suite.reference !== null && suite.targets.includes(suite.reference)) {
        ctx.addIssue({ code: 'custom', path: ['suites', index, 'reference'], message: 'the reference must not also be a target' });
      }
      if (suite.freshness !== undefined && suite.reference === null) {
        ctx.addIssue({ code: 'custom', path: ['suites', index, 'freshness'], message: 'a head watch measures against the reference: set reference' });
      }
      // The service refuses it too, but only when the suite's turn comes, after the endpoints were written.
      if (suite.vantage_points !== undefined && suite.workload.sweep !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['suites', index, 'vantage_points'], message: 'a capacity sweep (workload.sweep) runs from one place: leave vantage_points unset' });
      }
    });
  })
  .describe('Chains, endpoints and suites of a Run Verification Service tenant, kept as code (rvs apply -f, rvs export).');

export type RvsFile = z.output<typeof rvsFileSchema>;
export type RvsFileChain = RvsFile['chains'][number];
export type RvsFileEndpoint = RvsFile['endpoints'][number];
export type RvsFileSuite = RvsFile['suites'][number];

/** The JSON Schema (draft 2020-12) of what a file may hold, as editors read it. */
export function rvsFileJsonSchema(id?: string): Record<string, unknown> {
  const schema = z.toJSONSchema(rvsFileSchema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' });
  return { ...schema, ...(id ? { $id: id } : {}), title: 'rvs.yaml' };
}
