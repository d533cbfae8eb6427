import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';

const SECRET_KEY = 'k'.repeat(32);
const BOOTSTRAP_KEY = `rvs_AbCdEf123456_${'a1B2'.repeat(10)}`;

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

describe('loadConfig: defaults', () => {
  it('fills in every default from an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      // Loopback: `npm start` on a laptop does not serve its all-scope bootstrap key's API to the LAN.
      host: '127.0.0.1',
      databaseUrl: undefined,
      temporal: { address: undefined, namespace: 'default', taskQueue: 'rvs-runs', cliPath: undefined, tls: null, apiKey: undefined, uiUrl: null },
      region: 'local',
      dataDir: path.resolve('./.data'),
      publicUrl: 'http://localhost:3000',
      secretKey: undefined,
      bootstrapApiKey: undefined,
      allowPrivateTargets: false,
      allowPrivateWebhooks: false,
      logLevel: 'info',
      rateLimits: {
        perMinute: 600,
        triggersPerMinute: 60,
        authFailuresPerMinute: 60,
        tenantPerMinute: 3000,
        tenantTriggersPerMinute: 300,
        tenantScheduleFiresPerMinute: 60,
        dashboardPerMinute: 120,
      },
      idempotencyLeaseMs: 60_000,
      scheduleMinIntervalS: 10,
      sampleRetentionDays: 90,
      apiMetricsPort: 9465,
      workerMetricsPort: 9464,
      tenantMaxRunningRuns: 10,
      tenantMaxProbeActivities: 10,
      campaignMaxLoopDelayMs: 20,
      workerSlots: { minActivities: 6, maxActivities: 20, maxLoopDelayMs: 50 },
      sweepShards: { shardMaxRps: 1_000, maxShards: 8 },
      metricsHost: '127.0.0.1',
      tracing: null,
      jwt: { jwksUrl: undefined, issuer: undefined, audience: undefined, tenantClaim: 'tenant_id', publicKey: undefined, secret: undefined },
      embedded: { postgresPort: 54329, temporalPort: 7233, temporalUiPort: 8233 },
    });
  });

  it('turns the dev server\'s Web UI off with RVS_TEMPORAL_UI_PORT=0', () => {
    expect(loadConfig({ RVS_TEMPORAL_UI_PORT: '0', RVS_TEMPORAL_DEV_PORT: '17233', RVS_EMBEDDED_POSTGRES_PORT: '15432' }).embedded).toEqual({
      postgresPort: 15432,
      temporalPort: 17233,
      temporalUiPort: null,
    });
  });

  it('treats empty strings as unset', () => {
    const env = {
      PORT: '',
      HOST: '',
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      TEMPORAL_NAMESPACE: '',
      TEMPORAL_TASK_QUEUE: '',
      TEMPORAL_CLI_PATH: '',
      RVS_DATA_DIR: '',
      RVS_PUBLIC_URL: '',
      RVS_SECRET_KEY: '',
      RVS_BOOTSTRAP_API_KEY: '',
      RVS_ALLOW_PRIVATE_TARGETS: '',
      LOG_LEVEL: '',
    };
    expect(loadConfig(env)).toEqual(loadConfig({}));
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ PATH: '/usr/bin', HOME: '/root', NODE_ENV: 'test' })).toEqual(loadConfig({}));
  });

  it.each([
    { env: { PORT: '8080' }, publicUrl: 'http://localhost:8080' },
    { env: { PORT: '8080', RVS_PUBLIC_URL: 'https://rvs.example.com' }, publicUrl: 'https://rvs.example.com' },
    { env: { RVS_PUBLIC_URL: 'https://rvs.example.com/' }, publicUrl: 'https://rvs.example.com' },
    { env: { RVS_PUBLIC_URL: 'https://example.com/rvs//' }, publicUrl: 'https://example.com/rvs' },
  ])('public URL from $env is $publicUrl', ({ env, publicUrl }) => {
    expect(loadConfig(env).publicUrl).toBe(publicUrl);
  });
});

describe('loadConfig: valid values', () => {
  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8443',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://rvs:pw@db:5432/rvs',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'rvs',
      TEMPORAL_TASK_QUEUE: 'rvs-runs-2',
      TEMPORAL_CLI_PATH: '/opt/temporal',
        RVS_TEMPORAL_UI_URL: 'https://temporal.example.com/ui/',
      RVS_DATA_DIR: '/var/lib/rvs',
      RVS_PUBLIC_URL: 'https://rvs.example.com',
      RVS_SECRET_KEY: SECRET_KEY,
      RVS_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
      RVS_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'debug',
    });
    expect(config).toEqual({
      port: 8443,
      host: '127.0.0.1',
      databaseUrl: 'postgres://rvs:pw@db:5432/rvs',
      temporal: { address: 'temporal:7233', namespace: 'rvs', taskQueue: 'rvs-runs-2', cliPath: '/opt/temporal', tls: null, apiKey: undefined, uiUrl: 'https://temporal.example.com/ui' },
      region: 'local',
      dataDir: '/var/lib/rvs',
      publicUrl: 'https://rvs.example.com',
      secretKey: SECRET_KEY,
      bootstrapApiKey: BOOTSTRAP_KEY,
      allowPrivateTargets: true,
      allowPrivateWebhooks: false,
      logLevel: 'debug',
      rateLimits: {
        perMinute: 600,
        triggersPerMinute: 60,
        authFailuresPerMinute: 60,
        tenantPerMinute: 3000,
        tenantTriggersPerMinute: 300,
        tenantScheduleFiresPerMinute: 60,
        dashboardPerMinute: 120,
      },
      idempotencyLeaseMs: 60_000,
      scheduleMinIntervalS: 10,
      sampleRetentionDays: 90,
      apiMetricsPort: 9465,
      workerMetricsPort: 9464,
      tenantMaxRunningRuns: 10,
      tenantMaxProbeActivities: 10,
      campaignMaxLoopDelayMs: 20,
      workerSlots: { minActivities: 6, maxActivities: 20, maxLoopDelayMs: 50 },
      sweepShards: { shardMaxRps: 1_000, maxShards: 8 },
      metricsHost: '127.0.0.1',
      tracing: null,
      jwt: { jwksUrl: undefined, issuer: undefined, audience: undefined, tenantClaim: 'tenant_id', publicKey: undefined, secret: undefined },
      embedded: { postgresPort: 54329, temporalPort: 7233, temporalUiPort: 8233 },
    });
  });

  it.each([
    { value: 'true', expected: true },
    { value: '1', expected: true },
    { value: 'yes', expected: true },
    { value: 'false', expected: false },
    { value: '0', expected: false },
    { value: 'no', expected: false },
  ])('RVS_ALLOW_PRIVATE_TARGETS=$value → $expected', ({ value, expected }) => {
    expect(loadConfig({ RVS_ALLOW_PRIVATE_TARGETS: value }).allowPrivateTargets).toBe(expected);
  });

  it('reads RVS_DASHBOARD_LINKS_NOT_BEFORE as an instant, and refuses one without a zone', () => {
    expect(loadConfig({}).dashboardLinksNotBefore).toBeUndefined();
    expect(loadConfig({ RVS_DASHBOARD_LINKS_NOT_BEFORE: '2026-11-25T21:00:00+01:00' }).dashboardLinksNotBefore).toEqual(new Date('2026-11-25T20:00:00Z'));
    expect(() => loadConfig({ RVS_DASHBOARD_LINKS_NOT_BEFORE: '2026-11-25 21:00' })).toThrow(/RVS_DASHBOARD_LINKS_NOT_BEFORE/);
  });

  it('keeps webhooks and probe targets apart: RVS_ALLOW_PRIVATE_TARGETS does not open webhooks to private addresses', () => {
    expect(loadConfig({ RVS_ALLOW_PRIVATE_TARGETS: 'true' })).toMatchObject({ allowPrivateTargets: true, allowPrivateWebhooks: false });
    expect(loadConfig({ RVS_ALLOW_PRIVATE_WEBHOOKS: 'true' })).toMatchObject({ allowPrivateTargets: false, allowPrivateWebhooks: true });
    expect(() => loadConfig({ RVS_ALLOW_PRIVATE_WEBHOOKS: 'maybe' })).toThrow(/RVS_ALLOW_PRIVATE_WEBHOOKS/);
  });

  it.each(['postgres://localhost/rvs', 'postgresql://u:p@db.internal:5432/rvs?sslmode=require'])(
    'accepts DATABASE_URL %s',
    (url) => {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    },
  );

  it.each(['0', '1', '65535'])('accepts PORT %s', (port) => {
    expect(loadConfig({ PORT: port }).port).toBe(Number(port));
  });
});

describe('loadConfig: rate limits', () => {
  it.each([
    { name: 'tenant quotas default to 5 × the identity quotas', env: { RVS_RATE_LIMIT_PER_MINUTE: '100', RVS_TRIGGER_LIMIT_PER_MINUTE: '7' }, tenant: [500, 35] },
    { name: 'tenant quotas can be set', env: { RVS_TENANT_RATE_LIMIT_PER_MINUTE: '50', RVS_TENANT_TRIGGER_LIMIT_PER_MINUTE: '5' }, tenant: [50, 5] },
  ])('$name', ({ env, tenant }) => {
    const { rateLimits } = loadConfig(env);
    expect([rateLimits.tenantPerMinute, rateLimits.tenantTriggersPerMinute]).toEqual(tenant);
  });

  it('reads the dashboard quota', () => {
    expect(loadConfig({ RVS_DASHBOARD_RATE_LIMIT_PER_MINUTE: '30' }).rateLimits.dashboardPerMinute).toBe(30);
    expect(loadConfig({ RVS_SCHEDULE_FIRE_LIMIT_PER_MINUTE: '7' }).rateLimits.tenantScheduleFiresPerMinute).toBe(7);
    expect(() => loadConfig({ RVS_SCHEDULE_FIRE_LIMIT_PER_MINUTE: '0' })).toThrow(/RVS_SCHEDULE_FIRE_LIMIT_PER_MINUTE/);
  });

  it('reads the Idempotency-Key lease (60 s by default)', () => {
    expect(loadConfig({}).idempotencyLeaseMs).toBe(60_000);
    expect(loadConfig({ RVS_IDEMPOTENCY_LEASE_S: '5' }).idempotencyLeaseMs).toBe(5_000);
  });

  it('reads the smallest schedule interval and the worker metrics port (0 turns it off)', () => {
    expect(loadConfig({ RVS_SCHEDULE_MIN_INTERVAL_S: '2' }).scheduleMinIntervalS).toBe(2);
    expect(loadConfig({ RVS_WORKER_METRICS_PORT: '0' }).workerMetricsPort).toBe(0);
    expect(loadConfig({ RVS_WORKER_MIN_ACTIVITIES: '4', RVS_WORKER_MAX_ACTIVITIES: '8', RVS_WORKER_MAX_LOOP_DELAY_MS: '30' }).workerSlots).toEqual({
      minActivities: 4,
      maxActivities: 8,
      maxLoopDelayMs: 30,
    });
    // A minimum above the maximum is the maximum.
    expect(loadConfig({ RVS_WORKER_MIN_ACTIVITIES: '30', RVS_WORKER_MAX_ACTIVITIES: '8' }).workerSlots.minActivities).toBe(8);
    expect(loadConfig({ RVS_TENANT_MAX_RUNNING_RUNS: '3' }).tenantMaxRunningRuns).toBe(3);
    expect(loadConfig({}).tenantMaxProbeActivities).toBe(10);
    expect(loadConfig({ RVS_TENANT_MAX_PROBE_ACTIVITIES: '4' }).tenantMaxProbeActivities).toBe(4);
    expect(loadConfig({}).campaignMaxLoopDelayMs).toBe(20);
    expect(loadConfig({ RVS_CAMPAIGN_MAX_LOOP_DELAY_MS: '35' }).campaignMaxLoopDelayMs).toBe(35);
    expect(loadConfig({ RVS_SWEEP_SHARD_MAX_RPS: '500', RVS_SWEEP_MAX_SHARDS: '2' }).sweepShards).toEqual({ shardMaxRps: 500, maxShards: 2 });
    expect(loadConfig({ RVS_WORKER_METRICS_PORT: '9100' }).workerMetricsPort).toBe(9100);
    expect(loadConfig({ RVS_API_METRICS_PORT: '0' }).apiMetricsPort).toBe(0);
  });

  it('puts the metrics servers on loopback unless RVS_METRICS_HOST says otherwise, whatever HOST is', () => {
    expect(loadConfig({}).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).metricsHost).toBe('127.0.0.1');
    for (const host of ['0.0.0.0', '::', '::1', '10.0.3.7', 'localhost', 'metrics.internal']) {
      expect(loadConfig({ RVS_METRICS_HOST: host }).metricsHost).toBe(host);
    }
  });
});

describe('loadConfig: invalid values', () => {
  it.each([
    { name: 'RVS_TENANT_RATE_LIMIT_PER_MINUTE', value: '0' },
    { name: 'RVS_TENANT_TRIGGER_LIMIT_PER_MINUTE', value: '1.5' },
    { name: 'RVS_DASHBOARD_RATE_LIMIT_PER_MINUTE', value: 'many' },
    { name: 'RVS_IDEMPOTENCY_LEASE_S', value: '0' },
    { name: 'RVS_IDEMPOTENCY_LEASE_S', value: '1.5' },
    { name: 'RVS_SCHEDULE_MIN_INTERVAL_S', value: '0' },
    { name: 'RVS_WORKER_METRICS_PORT', value: '65536' },
    { name: 'RVS_API_METRICS_PORT', value: 'metrics' },
    { name: 'RVS_METRICS_HOST', value: 'not a host' },
    { name: 'RVS_METRICS_HOST', value: '0.0.0.0:9464' },
    { name: 'RVS_METRICS_HOST', value: 'http://prometheus' },
    { name: 'RVS_METRICS_HOST', value: '-metrics' },
    { name: 'PORT', value: 'abc' },
    { name: 'PORT', value: '3000.5' },
    { name: 'PORT', value: '65536' },
    { name: 'PORT', value: '-1' },
    { name: 'PORT', value: 'Infinity' },
    { name: 'DATABASE_URL', value: 'mysql://db/rvs' },
    { name: 'DATABASE_URL', value: 'http://db/rvs' },
    { name: 'DATABASE_URL', value: 'not a url' },
    { name: 'TEMPORAL_ADDRESS', value: 'http://temporal:7233' },
    { name: 'TEMPORAL_ADDRESS', value: 'temporal' },
    { name: 'RVS_PUBLIC_URL', value: 'ftp://rvs.example.com' },
    { name: 'RVS_PUBLIC_URL', value: 'rvs.example.com' },
    { name: 'RVS_SECRET_KEY', value: 'k'.repeat(31) },
    { name: 'RVS_BOOTSTRAP_API_KEY', value: 'rvs_short_key' },
    { name: 'RVS_BOOTSTRAP_API_KEY', value: `rvk_AbCdEf123456_${'a'.repeat(40)}` },
    { name: 'RVS_BOOTSTRAP_API_KEY', value: `rvs_AbCdEf123456_${'a'.repeat(129)}` },
    { name: 'RVS_ALLOW_PRIVATE_TARGETS', value: 'maybe' },
    { name: 'RVS_ALLOW_PRIVATE_TARGETS', value: 'TRUE' },
    { name: 'LOG_LEVEL', value: 'verbose' },
  ])('$name=$value → one problem naming $name', ({ name, value }) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('lists one line per bad variable, all at once, and never echoes a secret value', () => {
    const shortSecret = 'hunter2-is-short';
    const env = {
      PORT: 'abc',
      DATABASE_URL: 'mysql://db/rvs',
      RVS_ALLOW_PRIVATE_TARGETS: 'maybe',
      RVS_SECRET_KEY: shortSecret,
      HOST: 'fine.example.com',
    };
    const problems = problemsOf(env);
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(
      ['DATABASE_URL', 'PORT', 'RVS_ALLOW_PRIVATE_TARGETS', 'RVS_SECRET_KEY'].sort(),
    );
    let message = '';
    try {
      loadConfig(env);
    } catch (error) {
      message = (error as Error).message;
    }
    for (const problem of problems) expect(message).toContain(problem);
    expect(message).not.toContain(shortSecret);
  });
});

describe('loadConfig: Temporal TLS and API key', () => {
  const address = { TEMPORAL_ADDRESS: 'temporal.example.com:7233' };

  it('is plaintext unless something asks for TLS', () => {
    expect(loadConfig(address).temporal.tls).toBeNull();
    expect(loadConfig({ ...address, TEMPORAL_TLS: 'false' }).temporal.tls).toBeNull();
  });

  it('TEMPORAL_TLS=true alone is TLS with the system CAs', () => {
    expect(loadConfig({ ...address, TEMPORAL_TLS: 'true' }).temporal.tls).toEqual({
      serverCaCertPath: undefined,
      clientCertPath: undefined,
      clientKeyPath: undefined,
      serverName: undefined,
    });
  });

  it('any TLS file or an API key turns TLS on; relative paths are resolved', () => {
    const config = loadConfig({
      ...address,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: 'certs/ca.pem',
      TEMPORAL_TLS_CLIENT_CERT_PATH: '/etc/rvs/client.pem',
      TEMPORAL_TLS_CLIENT_KEY_PATH: '/etc/rvs/client.key',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(config.temporal.tls).toEqual({
      serverCaCertPath: path.resolve('certs/ca.pem'),
      clientCertPath: '/etc/rvs/client.pem',
      clientKeyPath: '/etc/rvs/client.key',
      serverName: 'temporal.internal',
    });
    const cloud = loadConfig({ ...address, TEMPORAL_API_KEY: 'cloud-key.abc123' });
    expect(cloud.temporal.tls).not.toBeNull();
    expect(cloud.temporal.apiKey).toBe('cloud-key.abc123');
  });

  it.each([
    { env: { TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' }, problem: /^TEMPORAL_TLS_CLIENT_KEY_PATH: is required/ },
    { env: { TEMPORAL_TLS_CLIENT_KEY_PATH: '/c.key' }, problem: /^TEMPORAL_TLS_CLIENT_CERT_PATH: is required/ },
    { env: { TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_NAME: 'x' }, problem: /^TEMPORAL_TLS: is false, but TEMPORAL_TLS_SERVER_NAME is set/ },
    { env: { TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }, problem: /^TEMPORAL_API_KEY: is sent only over TLS/ },
    { env: { TEMPORAL_API_KEY: 'two words' }, problem: /^TEMPORAL_API_KEY: must be printable ASCII without spaces/ },
    { env: { TEMPORAL_TLS: 'on' }, problem: /^TEMPORAL_TLS: / },
  ])('$env → $problem', ({ env, problem }) => {
    const problems = problemsOf({ ...address, ...env });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('TLS settings without TEMPORAL_ADDRESS are refused: the dev server npm start runs is plaintext', () => {
    expect(problemsOf({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/ca.pem' })).toEqual([
      'TEMPORAL_ADDRESS: is required with TEMPORAL_TLS_SERVER_CA_CERT_PATH (the dev server npm start runs speaks plaintext)',
    ]);
  });

  it('never echoes the API key in a problem', () => {
    const key = 'secret key with spaces';
    const problems = problemsOf({ ...address, TEMPORAL_API_KEY: key });
    expect(problems.join('\n')).not.toContain('secret');
  });
});

describe('loadConfig: OpenTelemetry traces', () => {
  it.each([
    ['off without an endpoint', {}, null],
    ['the base endpoint + /v1/traces', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, { tracesUrl: 'http://collector:4318/v1/traces', serviceName: undefined }],
    [
      'the traces endpoint as it is, before the base one',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces', OTEL_SERVICE_NAME: 'rvs-eu' },
      { tracesUrl: 'https://b/otlp/traces', serviceName: 'rvs-eu' },
    ],
    ['off when the SDK is disabled', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'true' }, null],
    ['off when the traces exporter is none', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'none' }, null],
  ])('%s', (_name, env, tracing) => {
    expect(loadConfig(env).tracing).toEqual(tracing);
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL: only http/protobuf is supported'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT: must be a URL with scheme http: or https:'],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
