import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { classifyAddress } from '../../src/net/address-guard';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The compose file as compose itself resolves it (anchors, `${VAR:-default}`), from
 * `docker-compose config` — the same command .ci/run checks the file with (and installs for).
 */
function resolvedCompose(env: Record<string, string> = {}): { services: Record<string, { ports?: unknown[]; network_mode?: string }> } {
  const out = execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], {
    cwd: ROOT,
    // Only what the file needs: a variable of the developer's shell must not change the answer.
    env: { PATH: process.env.PATH ?? '', RVS_SECRET_KEY: 'test-only-not-a-secret-0123456789abcdef', ...env },
    encoding: 'utf8',
  });
  return parse(out) as { services: Record<string, { ports?: unknown[]; network_mode?: string }> };
}

/** The host address a `ports:` entry publishes on: null means every interface. */
function hostAddress(entry: unknown): string | null {
  if (typeof entry === 'object' && entry !== null) {
    const hostIp = (entry as { host_ip?: string }).host_ip;
    return hostIp === undefined || hostIp === '' ? null : hostIp;
  }
  // Short syntax: [HOST_IP:][HOST_PORT:]CONTAINER_PORT[/PROTOCOL], HOST_IP possibly [v6].
  const short = /^(?:(\[[^\]]+\]|\d+\.\d+\.\d+\.\d+):)?(?:[\d-]*:)?[\d-]+(?:\/\w+)?$/.exec(String(entry));
  if (!short) throw new Error(`unrecognised ports entry ${String(entry)}`);
  return short[1] ?? null;
}

/** Services and entries that publish a port on a non-loopback address (or on all of them). */
function exposedPorts(compose: ReturnType<typeof resolvedCompose>): string[] {
  const exposed: string[] = [];
  for (const [name, service] of Object.entries(compose.services)) {
    // Host networking publishes every port the container listens on, on every interface.
    if (service.network_mode === 'host') exposed.push(`${name}: network_mode host`);
    for (const entry of service.ports ?? []) {
      const host = hostAddress(entry);
      if (host === null || classifyAddress(host) !== 'loopback') exposed.push(`${name}: ${JSON.stringify(entry)}`);
    }
  }
  return exposed;
}

describe('docker-compose.yml published ports', () => {
  it('publishes every port on loopback only: nothing reaches the Temporal UI, Temporal or the API from another host by default', () => {
    const compose = resolvedCompose();
    expect(exposedPorts(compose)).toEqual([]);
    // The services that publish anything at all, so that a rename cannot make this pass vacuously.
    const publishing = Object.entries(compose.services)
      .filter(([, service]) => (service.ports ?? []).length > 0)
      .map(([name]) => name)
      .sort();
    expect(publishing).toEqual(['api', 'temporal', 'temporal-ui']);
  });

  it('opens the API to other hosts only when the operator says so (RVS_API_BIND), and the check sees it', () => {
    expect(exposedPorts(resolvedCompose({ RVS_API_BIND: '0.0.0.0', RVS_API_PORT: '8080' }))).toEqual(['api: "0.0.0.0:8080:3000/tcp"']);
  });

  it('reads both the short and the long syntax of a ports entry', () => {
    expect(hostAddress('8233:8080')).toBeNull();
    expect(hostAddress('3000')).toBeNull();
    expect(hostAddress('127.0.0.1:8233:8080/tcp')).toBe('127.0.0.1');
    expect(hostAddress('[::1]:8233:8080')).toBe('[::1]');
    expect(hostAddress({ published: 8233, target: 8080 })).toBeNull();
    expect(hostAddress({ published: 8233, target: 8080, host_ip: '127.0.0.1' })).toBe('127.0.0.1');
  });
});
