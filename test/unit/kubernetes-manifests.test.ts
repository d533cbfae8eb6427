import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config';
import { SHUTDOWN_DEADLINE_MS } from '../../src/runtime/shutdown';
import { WORKER_DEFAULT_NODE_OPTIONS } from '../../src/runtime/worker-heap';
import { READINESS_TIMEOUT_MS } from '../../src/services/health';

// deploy/kubernetes/ against the code it runs: kubeconform (.ci/run) checks the manifests against
// the Kubernetes API; this checks that they fit the service (drain time, probes, configuration).

const DIR = path.resolve(__dirname, '..', '..', 'deploy', 'kubernetes');
type Doc = Record<string, any>;
const documents = (file: string): Doc[] => parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8')).map((doc) => doc.toJS() as Doc);
const find = (file: string, kind: string) => documents(file).find((doc) => doc.kind === kind)!;
const container = (deployment: Doc) => deployment.spec.template.spec.containers[0];

describe('the Kubernetes manifests', () => {
  const api = find('api.yaml', 'Deployment');
  const worker = find('worker.yaml', 'Deployment');

  it('give the API and the worker more than their own shutdown deadline before SIGKILL', () => {
    for (const deployment of [api, worker]) {
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(SHUTDOWN_DEADLINE_MS);
    }
  });

  it('probe the API on /healthz (liveness) and /readyz (readiness), with time for the readiness checks', () => {
    const main = container(api);
    expect(main.livenessProbe.httpGet.path).toBe('/healthz');
    expect(main.startupProbe.httpGet.path).toBe('/healthz');
    expect(main.readinessProbe.httpGet.path).toBe('/readyz');
    expect(main.readinessProbe.timeoutSeconds * 1000).toBeGreaterThan(READINESS_TIMEOUT_MS);
  });

  it('run node itself (PID 1 gets SIGTERM), with the worker heap cap of npm run worker', () => {
    expect(container(api).command).toEqual(['node', '--import', 'tsx', 'src/server.ts']);
    expect(container(worker).command).toEqual(['node', '--import', 'tsx', 'src/worker.ts']);
    expect(find('migrate-job.yaml', 'Job').spec.template.spec.containers[0].command).toEqual(['node', '--import', 'tsx', 'src/db/migrate-cli.ts']);
    expect(container(worker).env).toContainEqual({ name: 'NODE_OPTIONS', value: WORKER_DEFAULT_NODE_OPTIONS });
  });

  it('have a disruption budget for the API and the worker, selecting their pods', () => {
    for (const [file, deployment] of [['api.yaml', api], ['worker.yaml', worker]] as const) {
      const budget = find(file, 'PodDisruptionBudget');
      expect(budget.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    }
  });

  it('configure the service with values it accepts, listening on the pod interfaces', () => {
    const data = find('configmap.yaml', 'ConfigMap').data as Record<string, string>;
    const config = loadConfig({ ...data, DATABASE_URL: 'postgres://rvs@db/rvs', RVS_SECRET_KEY: 'k'.repeat(32) });
    expect(config.host).toBe('0.0.0.0');
    expect(config.metricsHost).toBe('0.0.0.0');
    expect(config.temporal.address).toBe(data.TEMPORAL_ADDRESS);
    // Every container limits its memory and asks for what it needs.
    for (const deployment of [api, worker]) {
      expect(container(deployment).resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container(deployment).resources.limits.memory).toEqual(expect.any(String));
    }
  });
});
