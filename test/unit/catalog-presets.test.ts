import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_CHAIN_PRESETS, BUILTIN_WORKLOAD_PRESETS, CHAINS } from '../../src/chains/registry';
import {
  mergeWorkloadPreset,
  presetRefSchema,
  presetSlugSchema,
} from '../../src/domain/catalog-presets';
import { suiteConfigSchema, workloadSchema } from '../../src/domain/suite-config';
import { templateParams, usesPinnedBlock } from '../../src/domain/workload';

const MIGRATION = readFileSync(path.join(__dirname, '../../src/db/migrations/003_catalog.sql'), 'utf8');
// Migration 003 seeded EVM's presets before the migrate step wrote them from the registry:
// databases created then hold its rows, which must be EVM's (other families' presets need no SQL).
const EVM = CHAINS.evm.presets;

// Written out independently of the constants: the facts the presets must match.
const KNOWN_EVM_CHAINS = [
  ['Ethereum Mainnet', 1, 'https://etherscan.io'],
  ['Sepolia', 11155111, 'https://sepolia.etherscan.io'],
  ['Polygon PoS', 137, 'https://polygonscan.com'],
  ['Arbitrum One', 42161, 'https://arbiscan.io'],
  ['OP Mainnet', 10, 'https://optimistic.etherscan.io'],
  ['Base', 8453, 'https://basescan.org'],
  ['BNB Smart Chain', 56, 'https://bscscan.com'],
] as const;

describe('built-in chain presets', () => {
  it('are the well-known EVM chains with their chain ids and explorers', () => {
    expect(EVM.chains.map((p) => [p.name, p.chain_id, p.explorer_url])).toEqual(KNOWN_EVM_CHAINS);
    for (const preset of EVM.chains) expect(preset.family).toBe('evm');
  });

  it('have unique ids and slugs, and slugs a tenant could also use as references', () => {
    const all = [...BUILTIN_CHAIN_PRESETS, ...BUILTIN_WORKLOAD_PRESETS];
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    expect(new Set(BUILTIN_CHAIN_PRESETS.map((p) => p.slug)).size).toBe(BUILTIN_CHAIN_PRESETS.length);
    for (const preset of all) {
      expect(presetSlugSchema.safeParse(preset.slug).success, preset.slug).toBe(true);
      expect(presetRefSchema.safeParse(preset.id).success, preset.id).toBe(true);
    }
  });

  it('are seeded by migration 003 with exactly these values', () => {
    const seeded = [
      ...MIGRATION.matchAll(/\('([0-9a-f-]{36})', null, '([a-z0-9-]+)',\s+'([^']+)',\s+'(\w+)', (\d+),\s+'([^']+)'\)/g),
    ].map(([, id, slug, name, family, chainId, explorerUrl]) => ({
      id,
      slug,
      name,
      family,
      chain_id: Number(chainId),
      explorer_url: explorerUrl,
    }));
    expect(seeded).toEqual(EVM.chains);
  });
});

describe('built-in workload presets', () => {
  it.each(BUILTIN_WORKLOAD_PRESETS.map((p) => [p.slug, p] as const))('%s is a valid workload on its own and in a suite', (_slug, preset) => {
    const parsed = workloadSchema.safeParse(preset.workload);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const config = suiteConfigSchema.safeParse({
      targets: [{ endpoint_id: '7d3f2f8e-1c1a-4d55-9a7e-3c2b1a0f9e8d' }],
      workload: { ...preset.workload, requests_per_target: 500 },
    });
    expect(config.success, JSON.stringify(config.error?.issues)).toBe(true);
  });

  it('evm-standard covers the common read calls, all pinned to one block', () => {
    const preset = BUILTIN_WORKLOAD_PRESETS.find((p) => p.slug === 'evm-standard')!;
    const workload = workloadSchema.parse(preset.workload);
    expect(workload.methods.map((m) => m.method).sort()).toEqual(
      [
        'eth_blockNumber',
        'eth_call',
        'eth_chainId',
        'eth_getBalance',
        'eth_getBlockByNumber',
        'eth_getLogs',
        'eth_getTransactionReceipt',
      ].sort(),
    );
    expect(usesPinnedBlock(workload)).toBe(true);
    const templated = JSON.stringify(workload.methods.map((m) => templateParams(m.params, 0x1234, CHAINS.evm.renderPinned)));
    expect(templated).not.toContain('{{');
    expect(templated).not.toContain('latest');
    const logs = workload.methods.find((m) => m.method === 'eth_getLogs')!;
    expect(templateParams(logs.params, 0x1234, CHAINS.evm.renderPinned)).toMatchObject([{ fromBlock: '0x1234', toBlock: '0x1234' }]);
    // Read-only: nothing in the mix sends or signs.
    expect(workload.methods.every((m) => !/send|sign/i.test(m.method))).toBe(true);
  });

  it('are seeded by migration 003 with the same workload and description', () => {
    for (const preset of EVM.workloads) {
      expect(MIGRATION).toContain(`'${preset.id}', null, '${preset.slug}'`);
      const seededWorkload = MIGRATION.match(/'(\{"methods": \[[\s\S]*?\]\})'/)![1]!;
      expect(JSON.parse(seededWorkload)).toEqual(preset.workload);
      // Adjacent SQL string literals concatenate: rebuild the description from them.
      const block = MIGRATION.slice(MIGRATION.indexOf(`'${preset.id}'`));
      const descriptionLiterals = block.slice(block.indexOf("'evm',") + 6, block.indexOf("'{\"methods\"")).trim().replace(/,$/, '');
      const description = [...descriptionLiterals.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'")).join('');
      expect(description).toBe(preset.description);
    }
  });
});

describe('mergeWorkloadPreset', () => {
  const preset = { methods: [{ method: 'eth_chainId' }], requests_per_target: 100, concurrency: 2 };

  it('puts the overrides on top of the preset, shallowly', () => {
    expect(mergeWorkloadPreset(preset, { concurrency: 8 })).toEqual({ ...preset, concurrency: 8 });
    expect(mergeWorkloadPreset(preset, { methods: [{ method: 'eth_blockNumber' }] }).methods).toEqual([{ method: 'eth_blockNumber' }]);
    expect(mergeWorkloadPreset(preset, {})).toEqual(preset);
  });

  it('treats the campaign bound as one choice: an override of either bound drops the preset\u2019s', () => {
    expect(mergeWorkloadPreset(preset, { duration_s: 60 })).toEqual({ methods: preset.methods, concurrency: 2, duration_s: 60 });
    expect(mergeWorkloadPreset({ ...preset, requests_per_target: undefined, duration_s: 30 }, { requests_per_target: 5 })).toEqual({
      methods: preset.methods,
      concurrency: 2,
      requests_per_target: 5,
    });
  });

  it('does not change the preset it was given', () => {
    const copy = structuredClone(preset);
    mergeWorkloadPreset(preset, { duration_s: 60 });
    expect(preset).toEqual(copy);
  });
});

describe('preset references', () => {
  it.each([
    ['evm-standard', true],
    ['0c0a1a00-0000-4000-8000-000000000101', true],
    ['Not A Slug', false],
    ['', false],
  ])('presetRefSchema(%j) → %s', (ref, ok) => {
    expect(presetRefSchema.safeParse(ref).success).toBe(ok);
  });

  it('refuses a slug that looks like a UUID, so ids and slugs never collide', () => {
    expect(presetSlugSchema.safeParse('0c0a1a00-0000-4000-8000-000000000101').success).toBe(false);
    expect(presetSlugSchema.safeParse('my-mix').success).toBe(true);
  });
});
