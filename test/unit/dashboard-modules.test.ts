import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';

const DIR = path.resolve('src/dashboard');

/** The files a page names as {{asset:file}}, in its order (the order the browser runs its scripts). */
function named(page: string): string[] {
  return [...readFileSync(path.join(DIR, page), 'utf8').matchAll(/\{\{asset:([^}]*)\}\}/g)].map((m) => m[1]!);
}

const runScripts = named('dashboard.html').filter((file) => file.endsWith('.js'));
const checkFiles = readdirSync(DIR).filter((file) => /^check-[a-z0-9-]+\.js$/.test(file));

interface CheckModule {
  name: string;
  measure?: unknown;
  render?: unknown;
}

/** Runs the run page's scripts in order, as the browser does, with only what they touch while loading. */
function loadRunPage(scripts: string[]): { list: () => CheckModule[] } {
  const window: Record<string, unknown> = {};
  const context = {
    window,
    location: { search: '?token=t', pathname: '/dashboard/runs/r' },
    URLSearchParams,
    atob,
    // The page waits for DOMContentLoaded before it fetches anything: nothing else runs here.
    document: { readyState: 'loading', addEventListener: () => undefined },
  };
  for (const file of scripts) runInNewContext(readFileSync(path.join(DIR, file), 'utf8'), context, { filename: file });
  return window.RvsChecks as { list: () => CheckModule[] };
}

describe('the run page’s modules (src/dashboard)', () => {
  it('names every file it loads, each once, and every check module between the registry and the page', () => {
    for (const file of named('dashboard.html')) expect(existsSync(path.join(DIR, file)), file).toBe(true);
    expect(new Set(runScripts).size).toBe(runScripts.length);
    expect(checkFiles.length).toBeGreaterThan(0);
    const registry = runScripts.indexOf('checks-registry.js');
    const page = runScripts.indexOf('dashboard.js');
    expect(page).toBe(runScripts.length - 1);
    for (const file of checkFiles) {
      const at = runScripts.indexOf(file);
      expect(at, `${file} is not loaded by dashboard.html`).toBeGreaterThan(registry);
      expect(at).toBeLessThan(page);
    }
  });

  it('registers one presentation module per check file, each named, each with a measure or a section', () => {
    const modules = loadRunPage(runScripts).list();
    expect(modules).toHaveLength(checkFiles.length);
    expect(new Set(modules.map((m) => m.name)).size).toBe(modules.length);
    for (const module of modules) {
      expect(module.name).toMatch(/^[a-z0-9_]+$/);
      expect(typeof module.measure === 'function' || typeof module.render === 'function', module.name).toBe(true);
    }
  });

  it('refuses a second module of the same check', () => {
    const registry = loadRunPage(runScripts.slice(0, runScripts.indexOf('checks-registry.js') + 1)) as unknown as {
      register: (m: CheckModule) => void;
    };
    registry.register({ name: 'availability', render: () => undefined });
    expect(() => registry.register({ name: 'availability', render: () => undefined })).toThrow('registered twice');
  });
});
