import { readFile, writeFile } from 'node:fs/promises';
import { Document } from 'yaml';
import { RVS_FILE_VERSION, type RvsFile } from '../domain/rvs-file';
import type { ApplyCommand, ExportCommand } from './args';
import type { RvsClient } from './client';
import {
  fileSuiteOf,
  formatPlan,
  planApply,
  SUITE_CONFIG_FIELDS,
  suiteConfigOf,
  suiteView,
  type Action,
  type Plan,
  type ServerChain,
  type ServerEndpoint,
  type ServerSuite,
  type TenantConfig,
} from './plan';
import { ALLOWED_ENV_PREFIX } from './env-allow-list';
import { loadRvsFile, RvsFileError, type FileVariable, type LoadedFile, type ResolvedSecrets } from './rvs-file';

export interface ConfigIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  env: Record<string, string | undefined>;
  readStdin?: () => Promise<string>;
}

/** Writing the output file failed; reported like any other error (exit 3). */
export class ConfigOutputError extends Error {
  override readonly name = 'ConfigOutputError';
}

export async function fetchTenantConfig(client: RvsClient): Promise<TenantConfig> {
  const [chains, endpoints, suites] = await Promise.all([
    client.listAll<ServerChain>('/chains'),
    client.listAll<ServerEndpoint>('/endpoints'),
    client.listAll<ServerSuite>('/suites'),
  ]);
  return { chains, endpoints, suites };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Validates the file completely (syntax, schema, environment variables, every reference against
 * the tenant) before the first write, so a bad file changes nothing. Then chains, endpoints and
 * suites in that order, since each may name the one before.
 */
export async function runApply(command: ApplyCommand, client: RvsClient, io: ConfigIo): Promise<number> {
  const fileName = command.file === '-' ? '<stdin>' : command.file;
  let text: string;
  try {
    text = command.file === '-' ? await (io.readStdin ?? readStdin)() : await readFile(command.file, 'utf8');
  } catch (error) {
    throw new ConfigOutputError(`cannot read ${fileName}: ${(error as Error).message}`);
  }
  const named = new Set(command.envNames);
  let loaded: LoadedFile;
  try {
    loaded = loadRvsFile(text, fileName, io.env, named);
  } catch (error) {
    // A dry run shows what the file reads even when it may not: that is what a reviewer looks for.
    if (command.dryRun && error instanceof RvsFileError && error.variables.length > 0) io.stdout.write(formatVariables(error.variables));
    throw error;
  }
  const current = await fetchTenantConfig(client);
  const plan = planApply(loaded, current, fileName);
  if (command.dryRun) io.stdout.write(formatVariables(loaded.variables));
  io.stdout.write(formatPlan(plan));
  if (command.dryRun) {
    io.stdout.write('Dry run: nothing was changed.\n');
    return 0;
  }
  await executePlan(plan, loaded.file, loaded.secrets, current, client, io, command.verbose);
  return 0;
}

/** Every variable the file reads, by name only (never a value), with whether it may be read and why. */
export function formatVariables(variables: readonly FileVariable[]): string {
  if (variables.length === 0) return 'Environment variables read: none.\n';
  const width = Math.max(...variables.map((v) => v.name.length));
  const why = (v: FileVariable) => {
    if (v.access === 'refused') return 'refused (never read from a file)';
    if (v.access === 'not_allowed') return `not allowed (not ${ALLOWED_ENV_PREFIX}*, not given with --env)`;
    return `allowed (${v.name.startsWith(ALLOWED_ENV_PREFIX) ? `${ALLOWED_ENV_PREFIX}*` : '--env'})${v.set ? '' : ', not set'}`;
  };
  return `Environment variables read (names only):\n${variables.map((v) => `  ${v.name.padEnd(width)}  ${why(v)}\n`).join('')}`;
}

async function executePlan(
  plan: Plan,
  file: RvsFile,
  secrets: ResolvedSecrets[],
  current: TenantConfig,
  client: RvsClient,
  io: ConfigIo,
  verbose: boolean,
): Promise<void> {
  const done: Record<'created' | 'updated' | 'unchanged', number> = { created: 0, updated: 0, unchanged: 0 };
  const report = (kind: string, key: string, outcome: keyof typeof done, note = '') => {
    done[outcome] += 1;
    io.stdout.write(`${kind} ${key}: ${outcome}${note}\n`);
  };
  const past: Record<Action, keyof typeof done> = { create: 'created', update: 'updated', unchanged: 'unchanged' };

  const chainIds = new Map(current.chains.map((c) => [c.slug, c.id]));
  for (const item of plan.chains) {
    const chain = file.chains[item.index]!;
    const fields = { name: chain.name, family: chain.family, chain_id: chain.chain_id, explorer_url: chain.explorer_url };
    if (item.existing === null) {
      const created = await client.request<ServerChain>('POST', '/chains', { body: { slug: chain.slug, ...fields } });
      chainIds.set(chain.slug, created.id);
    } else if (item.action === 'update') {
      const changed = Object.fromEntries(Object.entries(fields).filter(([key]) => item.changes.some((c) => c.path === key)));
      await client.request('PATCH', `/chains/${item.existing.id}`, { body: changed });
    }
    report('chain', item.key, past[item.action]);
  }

  const chainSlugById = new Map(current.chains.map((c) => [c.id, c.slug]));
  const endpointIds = new Map(current.endpoints.map((e) => [`${chainSlugById.get(e.chain_id)}\u0000${e.name}`, e.id]));
  for (const item of plan.endpoints) {
    const endpoint = file.endpoints[item.index]!;
    const { url, wsUrl, headers } = secrets[item.index]!;
    if (item.existing === null) {
      const created = await client.request<ServerEndpoint>('POST', '/endpoints', {
        body: { chain_id: chainIds.get(endpoint.chain), name: endpoint.name, url, ...(wsUrl === null ? {} : { ws_url: wsUrl }), headers, timeout_ms: endpoint.timeout_ms },
      });
      endpointIds.set(`${endpoint.chain}\u0000${endpoint.name}`, created.id);
      report('endpoint', item.key, 'created');
      continue;
    }
    // Sent every time: only the service can compare the values it keeps encrypted, and it
    // stores nothing (updated_at stays) when they equal what it has. A file without ws_url
    // removes the endpoint's (null); a service from before ws_url is sent none at all.
    const wsField = wsUrl === null && item.existing.ws_url === undefined ? {} : { ws_url: wsUrl };
    const patched = await client.request<ServerEndpoint>('PATCH', `/endpoints/${item.existing.id}`, {
      body: { url, ...wsField, headers, timeout_ms: endpoint.timeout_ms },
    });
    if (patched.updated_at === item.existing.updated_at) report('endpoint', item.key, 'unchanged');
    else report('endpoint', item.key, 'updated', item.action === 'unchanged' ? ' (url or header values changed)' : '');
  }

  for (const item of plan.suites) {
    const suite = file.suites[item.index]!;
    const id = (name: string) => endpointIds.get(`${suite.chain}\u0000${name}`)!;
    const config = suiteConfigOf(suite, id);
    const schedule = suite.schedule === undefined ? {} : { schedule: suite.schedule };
    let stored: ServerSuite | null = item.existing;
    if (item.existing === null) {
      stored = await client.request<ServerSuite>('POST', '/suites', {
        body: { chain_id: chainIds.get(suite.chain), name: suite.name, description: suite.description, config, ...schedule },
      });
    } else if (item.action === 'update') {
      const touched = (field: string) => item.changes.some((c) => c.path === field || c.path.startsWith(`${field}.`) || c.path.startsWith(`${field}[`));
      const configChanged = SUITE_CONFIG_FIELDS.some(touched);
      stored = await client.request<ServerSuite>('PATCH', `/suites/${item.existing.id}`, {
        body: {
          ...(touched('description') ? { description: suite.description } : {}),
          ...(configChanged ? { config } : {}),
          ...(touched('schedule') ? schedule : {}),
        },
      });
    }
    // The id: what rvs run, the Action and the API take (the name works too while it is unique).
    report('suite', item.key, past[item.action], stored ? ` (id ${stored.id})` : '');
    reportWarnings(io, item.key, item.existing?.warnings ?? null, stored?.warnings ?? [], verbose);
  }
  io.stdout.write(`Applied: ${done.created} created, ${done.updated} updated, ${done.unchanged} unchanged.\n`);
}

const warningKey = (warnings: { check: string; message: string }[]) =>
  JSON.stringify(warnings.map((w) => `${w.check}\u0000${w.message}`).sort());

/**
 * The service's word on what a suite's workload is too small to decide (the file is applied all
 * the same): printed when the suite is new or its warnings changed, or with --verbose; an
 * unchanged suite's unchanged warnings are counted, not repeated on every apply.
 */
function reportWarnings(
  io: ConfigIo,
  suite: string,
  before: { check: string; message: string }[] | null,
  after: { check: string; message: string }[],
  verbose: boolean,
): void {
  if (verbose || before === null || warningKey(before) !== warningKey(after)) {
    for (const warning of after) io.stderr.write(`rvs: warning: suite ${suite}: ${warning.message}\n`);
    if (before !== null && before.length > 0 && after.length === 0) io.stderr.write(`rvs: suite ${suite}: no warnings any more\n`);
    return;
  }
  if (after.length > 0) {
    io.stderr.write(`rvs: suite ${suite}: ${after.length} warning${after.length === 1 ? '' : 's'} as before (rvs apply --verbose prints them)\n`);
  }
}

/** NAME for an endpoint name: upper case, runs of anything else as one underscore. */
function envName(text: string): string {
  const name = text.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  if (name === '') return 'ENDPOINT';
  return /^[0-9]/.test(name) ? `E_${name}` : name;
}

/**
 * The tenant's configuration as a file. Secrets cannot be exported (the API never shows them):
 * each endpoint's URL becomes `${RVS_SECRET_<NAME>_URL}`, its ws_url `${RVS_SECRET_<NAME>_WS_URL}`
 * and each header value `${RVS_SECRET_<NAME>_<HEADER>}` (names `rvs apply` reads without --env),
 * and the variables to set are listed on stderr.
 */
export function exportFile(current: TenantConfig, schemaUrl: string): { text: string; variables: string[] } {
  const slugById = new Map(current.chains.map((c) => [c.id, c.slug]));
  const problems: string[] = [];
  const endpoints = [...current.endpoints]
    .filter((e) => slugById.has(e.chain_id))
    .sort((a, b) => slugById.get(a.chain_id)!.localeCompare(slugById.get(b.chain_id)!) || a.name.localeCompare(b.name));
  const seen = new Set<string>();
  for (const e of endpoints) {
    const key = `${slugById.get(e.chain_id)}\u0000${e.name}`;
    if (seen.has(key)) problems.push(`two endpoints are named "${e.name}" on chain ${slugById.get(e.chain_id)}: a file names endpoints by chain and name; rename one`);
    seen.add(key);
  }
  const suiteNames = new Set<string>();
  for (const s of current.suites) {
    if (suiteNames.has(s.name)) problems.push(`two suites are named "${s.name}": a file names suites by name; rename one`);
    suiteNames.add(s.name);
  }
  if (problems.length > 0) throw new ConfigOutputError(`cannot export: ${[...new Set(problems)].join('; ')}`);

  // Variable names from endpoint names; the chain slug is added where two chains share a name.
  const nameCount = new Map<string, number>();
  for (const e of endpoints) nameCount.set(envName(e.name), (nameCount.get(envName(e.name)) ?? 0) + 1);
  const used = new Set<string>();
  // RVS_SECRET_ so that rvs apply reads them back without --env (env-allow-list.ts).
  const variable = (base: string) => {
    let name = `${ALLOWED_ENV_PREFIX}${base}`;
    for (let n = 2; used.has(name); n += 1) name = `${ALLOWED_ENV_PREFIX}${base}_${n}`;
    used.add(name);
    return name;
  };
  const endpointName = new Map(current.endpoints.map((e) => [e.id, e.name]));
  const variables: string[] = [];
  const fileEndpoints = endpoints.map((e) => {
    const base = nameCount.get(envName(e.name))! > 1 ? `${envName(slugById.get(e.chain_id)!)}_${envName(e.name)}` : envName(e.name);
    const urlVar = variable(`${base}_URL`);
    variables.push(urlVar);
    const wsUrlVar = e.ws_url === undefined || e.ws_url === null ? null : variable(`${base}_WS_URL`);
    if (wsUrlVar !== null) variables.push(wsUrlVar);
    const headers = Object.fromEntries(
      [...e.header_names].sort().map((header) => {
        const headerVar = variable(`${base}_${envName(header)}`);
        variables.push(headerVar);
        return [header, `\${${headerVar}}`];
      }),
    );
    return {
      name: e.name,
      chain: slugById.get(e.chain_id)!,
      url: `\${${urlVar}}`,
      ...(wsUrlVar === null ? {} : { ws_url: `\${${wsUrlVar}}` }),
      headers,
      timeout_ms: e.timeout_ms,
    };
  });

  const suites = [...current.suites].filter((s) => slugById.has(s.chain_id)).sort((a, b) => a.name.localeCompare(b.name));
  const file = {
    $schema: schemaUrl,
    version: RVS_FILE_VERSION,
    chains: [...current.chains]
      .sort((a, b) => a.slug.localeCompare(b.slug))
      .map((c) => ({ slug: c.slug, name: c.name, family: c.family, chain_id: c.chain_id, explorer_url: c.explorer_url })),
    endpoints: fileEndpoints,
    suites: suites.map((s) => ({ name: s.name, chain: slugById.get(s.chain_id)!, ...suiteView(fileSuiteOf(s, (id) => endpointName.get(id) ?? id), true) })),
  };
  // No ids in the file: it is the same file from every tenant it was applied to (runExport lists them).
  const doc = new Document(file);
  doc.commentBefore = ` Written by rvs export. Apply with: rvs apply -f <this file>\n Set these environment variables first: ${variables.length > 0 ? variables.join(', ') : '(none)'}`;
  return { text: doc.toString({ lineWidth: 0 }), variables };
}

export async function runExport(command: ExportCommand, client: RvsClient, io: ConfigIo): Promise<number> {
  const current = await fetchTenantConfig(client);
  const { text, variables } = exportFile(current, `${client.baseUrl}/schemas/rvs-file.json`);
  if (command.output === null) {
    io.stdout.write(text);
  } else {
    try {
      await writeFile(command.output, text);
    } catch (error) {
      throw new ConfigOutputError(`cannot write ${command.output}: ${(error as Error).message}`);
    }
    io.stdout.write(`wrote ${command.output}\n`);
    // What rvs run and the Action take; stdout is the file itself without --output.
    for (const suite of [...current.suites].sort((a, b) => a.name.localeCompare(b.name))) io.stdout.write(`suite ${suite.name}: id ${suite.id}\n`);
  }
  if (variables.length > 0) io.stderr.write(`rvs: the file takes endpoint URLs and header values from: ${variables.join(', ')}\n`);
  return 0;
}
