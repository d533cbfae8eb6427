import { createPublicKey } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_REGION, regionName } from './domain/vantage';
import { DEFAULT_MAX_SHARDS, DEFAULT_SHARD_MAX_RPS, type ShardLimits } from './domain/sweep-shards';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const urlString = (schemes: readonly string[]) =>
  z.string().refine((value) => {
    try {
      return schemes.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL with scheme ${schemes.join(' or ')}`);

/** JWT public keys must be RSA (RS256) or P-256 EC (ES256): the only algorithms we pin. */
function isSupportedJwtPublicKey(pem: string): boolean {
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'rsa' || (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1');
  } catch {
    return false;
  }
}

/** An address to listen on: an IPv4 or IPv6 literal, or a DNS host name (`localhost`, a container's name). */
const listenHost = z
  .string()
  .refine(
    (value) => isIP(value) !== 0 || /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(value),
    'must be an IP address or a host name',
  );

/**
 * A tenant's default quota is this many of its identities' quotas: a team runs a few CI keys and
 * users at once, but minting a hundred keys must not buy a hundred times the quota.
 */
export const TENANT_QUOTA_FACTOR = 5;

/** Every environment variable the service reads. Nothing else reads process.env. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Loopback: a laptop's `npm start` (with its all-scope bootstrap key) is not served to the LAN.
  // Containers set 0.0.0.0 (Dockerfile, docker-compose.yml, deploy/kubernetes/).
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: urlString(['postgres:', 'postgresql:']).optional(),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:/]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('rvs-runs'),
  // The worker's vantage point: it also polls rvs-probe-<region> (DESIGN.md §14).
  RVS_REGION: regionName.default(DEFAULT_REGION),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  // Where the cluster's Web UI lives, for the dashboard's link to a run's workflow. `npm start` sets
  // it for its own processes to the dev server's UI (RVS_TEMPORAL_UI_PORT) when it started one and
  // the operator set none; unset elsewhere, there is no link (we cannot know a cluster's UI).
  RVS_TEMPORAL_UI_URL: urlString(['http:', 'https:']).optional(),
  // A Temporal cluster beyond the dev server: the names are those of Temporal's own client
  // environment configuration, so the `temporal` CLI in the same shell reaches the same cluster.
  // Unset TEMPORAL_TLS: TLS when any of the others is set.
  TEMPORAL_TLS: booleanFromEnv.optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  // Sent as `authorization: Bearer <key>` (Temporal Cloud): a header value, so no spaces or controls.
  TEMPORAL_API_KEY: z.string().regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces').optional(),
  RVS_DATA_DIR: z.string().min(1).default('./.data'),
  RVS_PUBLIC_URL: urlString(['http:', 'https:']).optional(),
  RVS_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  RVS_BOOTSTRAP_API_KEY: z
    .string()
    .regex(/^rvs_[A-Za-z0-9]{12}_[A-Za-z0-9]{32,128}$/, 'must look like rvs_<12 alphanumerics>_<32 to 128 alphanumerics>')
    .optional(),
  RVS_ALLOW_PRIVATE_TARGETS: booleanFromEnv.default(false),
  // Separate from probe targets: a webhook's delivery log would map internal ports and statuses.
  RVS_ALLOW_PRIVATE_WEBHOOKS: booleanFromEnv.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RVS_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  RVS_TRIGGER_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  RVS_AUTH_FAILURE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  // Unset: TENANT_QUOTA_FACTOR times the per-identity quota.
  RVS_TENANT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000_000).optional(),
  RVS_TENANT_TRIGGER_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000_000).optional(),
  // Fires of a tenant's suite schedules: a quota of their own, apart from the API keys' triggers.
  RVS_SCHEDULE_FIRE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000_000).default(60),
  RVS_DASHBOARD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(120),
  // Revokes every dashboard link issued before this instant (ISO 8601 with a zone, e.g. 2026-11-25T21:00:00Z).
  RVS_DASHBOARD_LINKS_NOT_BEFORE: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-25T21:00:00Z' })
    .transform((value) => new Date(value))
    .optional(),
  // Longer than any request may take: a reservation older than this is taken over by a retry.
  RVS_IDEMPOTENCY_LEASE_S: z.coerce.number().int().min(1).max(3600).default(60),
  RVS_JWT_JWKS_URL: urlString(['http:', 'https:']).optional(),
  RVS_JWT_ISSUER: z.string().min(1).optional(),
  RVS_JWT_AUDIENCE: z.string().min(1).optional(),
  RVS_JWT_TENANT_CLAIM: z.string().min(1).default('tenant_id'),
  // Env files often carry a PEM on one line with literal \n escapes.
  RVS_JWT_PUBLIC_KEY: z
    .string()
    .transform((value) => value.replace(/\\n/g, '\n'))
    .refine(isSupportedJwtPublicKey, 'must be a PEM RSA or P-256 EC public key')
    .optional(),
  RVS_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  // Below 10 s only for tests: a schedule firing every few seconds is no campaign.
  RVS_SCHEDULE_MIN_INTERVAL_S: z.coerce.number().int().min(1).max(3600).default(10),
  /** Days a finished run's raw samples are kept (a tenant's or suite's sample_retention_days overrides it). */
  RVS_SAMPLE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  // Prometheus /metrics ports of the API and of the worker (0 turns one off); not the API's port:
  // scraping needs no credential, so only Prometheus should reach them.
  RVS_API_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  RVS_WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  // The worker's activity slots follow its event loop (DESIGN §17): beyond the minimum, it takes
  // a task only while its loop delay p99 stays at or under the limit, and never more than the maximum.
  // Runs one tenant may have claimed or running at once, unless its row sets its own (tenants.max_running_runs).
  RVS_TENANT_MAX_RUNNING_RUNS: z.coerce.number().int().min(1).max(100_000).default(10),
  // Probe activities (chunks, sweep steps) one tenant may have in flight at once over every worker,
  // unless its row sets its own (tenants.max_probe_activities).
  RVS_TENANT_MAX_PROBE_ACTIVITIES: z.coerce.number().int().min(1).max(100_000).default(10),
  // A campaign's calls in flight on a worker are halved after each quarter second whose loop delay
  // p99 exceeded this (src/probe/campaign-pacer.ts): below the slot supplier's limit, so campaigns
  // give way before the worker stops taking tasks.
  RVS_CAMPAIGN_MAX_LOOP_DELAY_MS: z.coerce.number().min(1).max(10_000).default(20),
  RVS_WORKER_MAX_ACTIVITIES: z.coerce.number().int().min(1).max(1000).default(20),
  // The minimum lets bookkeeping (claim, plan, finalize: one slot each, like a probe) through
  // while probes hold the rest; the limit is the prober's overload threshold (PROBER_OVERLOAD).
  RVS_WORKER_MIN_ACTIVITIES: z.coerce.number().int().min(1).max(1000).default(6),
  RVS_WORKER_MAX_LOOP_DELAY_MS: z.coerce.number().min(1).max(10_000).default(50),
  // A sweep step above this many calls/s is split into shards, each its own activity, spread over
  // every worker polling the probe queue (DESIGN §17); at most RVS_SWEEP_MAX_SHARDS of them.
  RVS_SWEEP_SHARD_MAX_RPS: z.coerce.number().min(1).max(1_000_000).default(DEFAULT_SHARD_MAX_RPS),
  RVS_SWEEP_MAX_SHARDS: z.coerce.number().int().min(1).max(64).default(DEFAULT_MAX_SHARDS),
  // Both metrics servers listen here, not on HOST: loopback unless the operator opens it to the
  // scraper's network (docker-compose.yml does, for Prometheus in the compose network).
  RVS_METRICS_HOST: listenHost.default('127.0.0.1'),
  // Ports of what `npm start` runs itself when DATABASE_URL / TEMPORAL_ADDRESS are unset (0 turns
  // the Temporal Web UI off): off the defaults when another PostgreSQL or Temporal uses them.
  RVS_EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  RVS_TEMPORAL_DEV_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  RVS_TEMPORAL_UI_PORT: z.coerce.number().int().min(0).max(65535).default(8233),
  // OpenTelemetry traces (src/telemetry/tracing.ts), off unless an OTLP endpoint is set. The
  // exporter itself reads the other standard variables (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, …).
  OTEL_EXPORTER_OTLP_ENDPOINT: urlString(['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: urlString(['http:', 'https:']).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).optional(),
  OTEL_SDK_DISABLED: booleanFromEnv.default(false),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).default('otlp'),
  // The service exports OTLP over HTTP with protobuf bodies only (a collector's port 4318).
  OTEL_EXPORTER_OTLP_PROTOCOL: z.literal('http/protobuf', { message: 'only http/protobuf is supported (a collector\'s OTLP/HTTP port, 4318)' }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.literal('http/protobuf', { message: 'only http/protobuf is supported (a collector\'s OTLP/HTTP port, 4318)' }).optional(),
}).superRefine((e, ctx) => {
  refineTemporalTls(e, ctx);
  // One source only: accepting HS256 next to a public key would invite algorithm confusion.
  const sources = (['RVS_JWT_JWKS_URL', 'RVS_JWT_PUBLIC_KEY', 'RVS_JWT_SECRET'] as const).filter((name) => e[name] !== undefined);
  if (sources.length > 1) {
    ctx.addIssue({ code: 'custom', path: [sources[1]!], message: `set only one of ${sources.join(', ')}` });
  }
  if (sources.length > 0) {
    for (const name of ['RVS_JWT_ISSUER', 'RVS_JWT_AUDIENCE'] as const) {
      if (e[name] === undefined) ctx.addIssue({ code: 'custom', path: [name], message: `is required when ${sources[0]} is set` });
    }
  }
});

/**
 * TLS to Temporal: a client certificate needs its key and the reverse; an API key travels only
 * over TLS; and all of it needs TEMPORAL_ADDRESS (the dev server `npm start` runs is plaintext).
 * Messages name variables, never values: TEMPORAL_API_KEY is a secret.
 */
function refineTemporalTls(e: TemporalEnv, ctx: z.RefinementCtx): void {
  if ((e.TEMPORAL_TLS_CLIENT_CERT_PATH === undefined) !== (e.TEMPORAL_TLS_CLIENT_KEY_PATH === undefined)) {
    const missing = e.TEMPORAL_TLS_CLIENT_CERT_PATH === undefined ? 'TEMPORAL_TLS_CLIENT_CERT_PATH' : 'TEMPORAL_TLS_CLIENT_KEY_PATH';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'is required: a client certificate and its key go together' });
  }
  const tlsSettings = TEMPORAL_TLS_SETTINGS.filter((name) => e[name] !== undefined);
  if (e.TEMPORAL_TLS === false && tlsSettings.length > 0) {
    ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS'], message: `is false, but ${tlsSettings.join(', ')} ${tlsSettings.length > 1 ? 'are' : 'is'} set` });
  }
  if (e.TEMPORAL_TLS === false && e.TEMPORAL_API_KEY !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['TEMPORAL_API_KEY'], message: 'is sent only over TLS; it cannot be used with TEMPORAL_TLS=false' });
  }
  const given = [...(e.TEMPORAL_TLS !== undefined ? ['TEMPORAL_TLS'] : []), ...tlsSettings, ...(e.TEMPORAL_API_KEY !== undefined ? ['TEMPORAL_API_KEY'] : [])];
  if (e.TEMPORAL_ADDRESS === undefined && given.length > 0) {
    ctx.addIssue({ code: 'custom', path: ['TEMPORAL_ADDRESS'], message: `is required with ${given.join(', ')} (the dev server npm start runs speaks plaintext)` });
  }
}

type TemporalEnv = { TEMPORAL_ADDRESS?: string | undefined; TEMPORAL_TLS?: boolean | undefined; TEMPORAL_API_KEY?: string | undefined } & {
  [name in (typeof TEMPORAL_TLS_SETTINGS)[number]]?: string | undefined;
};

const TEMPORAL_TLS_SETTINGS = [
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
] as const;

/** Quotas in one-minute windows (src/http/rate-limit.ts applies them). */
export interface RateLimits {
  /** Requests per principal (API key, or JWT tenant+subject). */
  perMinute: number;
  /** Run triggers per principal. */
  triggersPerMinute: number;
  /** Failed authentications per client address. */
  authFailuresPerMinute: number;
  /** Requests per tenant, over all its keys and users. */
  tenantPerMinute: number;
  /** Run triggers per tenant, over all its keys and users. */
  tenantTriggersPerMinute: number;
  /** Runs started by the tenant's suite schedules (not counted in the trigger quotas above). */
  tenantScheduleFiresPerMinute: number;
  /** Dashboard requests per run (over all its links); a client address gets DASHBOARD_ADDRESS_FACTOR times it. */
  dashboardPerMinute: number;
}

export interface TemporalTls {
  /** PEM CA bundle the server's certificate must chain to; unset: the system's roots. */
  serverCaCertPath: string | undefined;
  /** PEM client certificate and key for mutual TLS. */
  clientCertPath: string | undefined;
  clientKeyPath: string | undefined;
  /** The name the server's certificate is checked against (and SNI), instead of TEMPORAL_ADDRESS's host. */
  serverName: string | undefined;
}

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  temporal: {
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    cliPath: string | undefined;
    /** null: plaintext (the dev server). Paths are read at connect (src/temporal/connection.ts). */
    tls: TemporalTls | null;
    /** A secret: never logged, never in an error message. */
    apiKey: string | undefined;
    /** The Temporal Web UI (RVS_TEMPORAL_UI_URL), no trailing slash; null: unknown, no link. */
    uiUrl: string | null;
  };
  /** The worker's region (RVS_REGION): it polls the region's probe queue besides temporal.taskQueue. */
  region: string;
  dataDir: string;
  publicUrl: string;
  secretKey: string | undefined;
  bootstrapApiKey: string | undefined;
  allowPrivateTargets: boolean;
  /** Webhook deliveries to loopback and private addresses (RVS_ALLOW_PRIVATE_WEBHOOKS). */
  allowPrivateWebhooks: boolean;
  /** Dashboard links issued before this are refused (RVS_DASHBOARD_LINKS_NOT_BEFORE); undefined: none. */
  dashboardLinksNotBefore: Date | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** Quotas in one-minute windows (src/http/rate-limit.ts says what each one counts). */
  rateLimits: RateLimits;
  /**
   * How long an Idempotency-Key reservation without a response holds the key (src/http/idempotency.ts);
   * also how long a run may stay queued without a workflow before it is reconciled.
   */
  idempotencyLeaseMs: number;
  /** The smallest `interval_s` a suite schedule may have (10 unless lowered for tests). */
  scheduleMinIntervalS: number;
  sampleRetentionDays: number;
  /** Ports of the API's and the worker's Prometheus /metrics (0: none). */
  apiMetricsPort: number;
  workerMetricsPort: number;
  /** Runs a tenant may have claimed or running at once when tenants.max_running_runs is null. */
  tenantMaxRunningRuns: number;
  /** Probe activities a tenant may have in flight at once when tenants.max_probe_activities is null. */
  tenantMaxProbeActivities: number;
  /** The loop delay above which campaigns on a worker halve their calls in flight (CampaignPacer). */
  campaignMaxLoopDelayMs: number;
  /** Activity slots of one worker process (src/runtime/event-loop-slots.ts). */
  workerSlots: { minActivities: number; maxActivities: number; maxLoopDelayMs: number };
  /** How a sweep step is split into shards (src/domain/sweep-shards.ts). */
  sweepShards: ShardLimits;
  /** The address both metrics servers listen on (127.0.0.1 unless configured). */
  metricsHost: string;
  /** OpenTelemetry traces over OTLP/HTTP (protobuf) to this URL; null: off, at no cost (src/telemetry/tracing.ts). */
  tracing: { tracesUrl: string; serviceName: string | undefined } | null;
  /** JWT verification; off unless exactly one of jwksUrl, publicKey or secret is set. */
  jwt: {
    jwksUrl: string | undefined;
    issuer: string | undefined;
    audience: string | undefined;
    tenantClaim: string;
    publicKey: string | undefined;
    secret: string | undefined;
  };
  /** Ports of the embedded PostgreSQL and the Temporal dev server `npm start` runs itself. */
  embedded: { postgresPort: number; temporalPort: number; temporalUiPort: number | null };
}

/**
 * Traces are exported when an OTLP endpoint is configured, as the OpenTelemetry SDKs decide:
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces;
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turns them off.
 */
function tracingSettings(e: z.infer<typeof envSchema>): Config['tracing'] {
  if (e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === 'none') return null;
  const tracesUrl = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  return tracesUrl ? { tracesUrl, serviceName: e.OTEL_SERVICE_NAME } : null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once; throws ConfigError with one line per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  // Empty strings mean "unset": shells and compose files often export VAR= .
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI_PATH,
      uiUrl: e.RVS_TEMPORAL_UI_URL?.replace(/\/+$/, '') ?? null,
      tls:
        e.TEMPORAL_TLS ?? (TEMPORAL_TLS_SETTINGS.some((name) => e[name] !== undefined) || e.TEMPORAL_API_KEY !== undefined)
          ? {
              serverCaCertPath: e.TEMPORAL_TLS_SERVER_CA_CERT_PATH && path.resolve(e.TEMPORAL_TLS_SERVER_CA_CERT_PATH),
              clientCertPath: e.TEMPORAL_TLS_CLIENT_CERT_PATH && path.resolve(e.TEMPORAL_TLS_CLIENT_CERT_PATH),
              clientKeyPath: e.TEMPORAL_TLS_CLIENT_KEY_PATH && path.resolve(e.TEMPORAL_TLS_CLIENT_KEY_PATH),
              serverName: e.TEMPORAL_TLS_SERVER_NAME,
            }
          : null,
      apiKey: e.TEMPORAL_API_KEY,
    },
    region: e.RVS_REGION,
    dataDir: path.resolve(e.RVS_DATA_DIR),
    publicUrl: (e.RVS_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    secretKey: e.RVS_SECRET_KEY,
    bootstrapApiKey: e.RVS_BOOTSTRAP_API_KEY,
    allowPrivateTargets: e.RVS_ALLOW_PRIVATE_TARGETS,
    allowPrivateWebhooks: e.RVS_ALLOW_PRIVATE_WEBHOOKS,
    dashboardLinksNotBefore: e.RVS_DASHBOARD_LINKS_NOT_BEFORE,
    logLevel: e.LOG_LEVEL,
    rateLimits: {
      perMinute: e.RVS_RATE_LIMIT_PER_MINUTE,
      triggersPerMinute: e.RVS_TRIGGER_LIMIT_PER_MINUTE,
      authFailuresPerMinute: e.RVS_AUTH_FAILURE_LIMIT_PER_MINUTE,
      tenantPerMinute: e.RVS_TENANT_RATE_LIMIT_PER_MINUTE ?? TENANT_QUOTA_FACTOR * e.RVS_RATE_LIMIT_PER_MINUTE,
      tenantTriggersPerMinute: e.RVS_TENANT_TRIGGER_LIMIT_PER_MINUTE ?? TENANT_QUOTA_FACTOR * e.RVS_TRIGGER_LIMIT_PER_MINUTE,
      tenantScheduleFiresPerMinute: e.RVS_SCHEDULE_FIRE_LIMIT_PER_MINUTE,
      dashboardPerMinute: e.RVS_DASHBOARD_RATE_LIMIT_PER_MINUTE,
    },
    idempotencyLeaseMs: e.RVS_IDEMPOTENCY_LEASE_S * 1000,
    scheduleMinIntervalS: e.RVS_SCHEDULE_MIN_INTERVAL_S,
    sampleRetentionDays: e.RVS_SAMPLE_RETENTION_DAYS,
    apiMetricsPort: e.RVS_API_METRICS_PORT,
    workerMetricsPort: e.RVS_WORKER_METRICS_PORT,
    tenantMaxRunningRuns: e.RVS_TENANT_MAX_RUNNING_RUNS,
    tenantMaxProbeActivities: e.RVS_TENANT_MAX_PROBE_ACTIVITIES,
    campaignMaxLoopDelayMs: e.RVS_CAMPAIGN_MAX_LOOP_DELAY_MS,
    workerSlots: {
      minActivities: Math.min(e.RVS_WORKER_MIN_ACTIVITIES, e.RVS_WORKER_MAX_ACTIVITIES),
      maxActivities: e.RVS_WORKER_MAX_ACTIVITIES,
      maxLoopDelayMs: e.RVS_WORKER_MAX_LOOP_DELAY_MS,
    },
    sweepShards: { shardMaxRps: e.RVS_SWEEP_SHARD_MAX_RPS, maxShards: e.RVS_SWEEP_MAX_SHARDS },
    metricsHost: e.RVS_METRICS_HOST,
    tracing: tracingSettings(e),
    jwt: {
      jwksUrl: e.RVS_JWT_JWKS_URL,
      issuer: e.RVS_JWT_ISSUER,
      audience: e.RVS_JWT_AUDIENCE,
      tenantClaim: e.RVS_JWT_TENANT_CLAIM,
      publicKey: e.RVS_JWT_PUBLIC_KEY,
      secret: e.RVS_JWT_SECRET,
    },
    embedded: {
      postgresPort: e.RVS_EMBEDDED_POSTGRES_PORT,
      temporalPort: e.RVS_TEMPORAL_DEV_PORT,
      temporalUiPort: e.RVS_TEMPORAL_UI_PORT === 0 ? null : e.RVS_TEMPORAL_UI_PORT,
    },
  };
}

/** For entry points: parse or print the problems and exit non-zero, never a stack trace. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
