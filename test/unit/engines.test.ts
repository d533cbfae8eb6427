import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// `npm install` warns EBADENGINE when a locked package does not support the running Node. The
// Node versions package.json declares must be ones every locked package supports, or the README's
// promise is broken for some of them.

const ROOT = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe('declared Node versions', () => {
  it('package.json and package-lock.json declare the same engines', () => {
    expect((lock.packages['']!.engines as { node: string }).node).toBe(pkg.engines.node);
  });

  it('every locked package supports every Node version package.json accepts', () => {
    const declared = pkg.engines.node;
    const unsupported = Object.entries(lock.packages)
      // Optional platform packages are skipped where they do not fit; old lock formats list engines as an array.
      .filter(([name, entry]) => name !== '' && !entry.optional && entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
      .filter(([, entry]) => !semver.subset(declared, (entry.engines as { node: string }).node))
      .map(([name, entry]) => `${name.replace(/^.*node_modules\//, '')} needs node ${(entry.engines as { node: string }).node}`);
    expect(unsupported).toEqual([]);
  });

  it('includes the Node this runs on', () => {
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  });
});
