import path from 'node:path';
import { z } from 'zod';

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

/** Every environment variable the service reads. Nothing else reads process.env. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: urlString(['postgres:', 'postgresql:']).optional(),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:/]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('rvs-runs'),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  RVS_DATA_DIR: z.string().min(1).default('./.data'),
  RVS_PUBLIC_URL: urlString(['http:', 'https:']).optional(),
  RVS_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  RVS_BOOTSTRAP_API_KEY: z
    .string()
    .regex(/^rvs_[A-Za-z0-9]{12}_[A-Za-z0-9]{32,}$/, 'must look like rvs_<12 alphanumerics>_<32+ alphanumerics>')
    .optional(),
  RVS_ALLOW_PRIVATE_TARGETS: booleanFromEnv.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  temporal: {
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    cliPath: string | undefined;
  };
  dataDir: string;
  publicUrl: string;
  secretKey: string | undefined;
  bootstrapApiKey: string | undefined;
  allowPrivateTargets: boolean;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
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
    },
    dataDir: path.resolve(e.RVS_DATA_DIR),
    publicUrl: (e.RVS_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    secretKey: e.RVS_SECRET_KEY,
    bootstrapApiKey: e.RVS_BOOTSTRAP_API_KEY,
    allowPrivateTargets: e.RVS_ALLOW_PRIVATE_TARGETS,
    logLevel: e.LOG_LEVEL,
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
