import { z } from 'zod';
import type { ChainId } from './chain-id';

/*
 * The catalog's shapes. The built-in rows are each chain family's (ChainAdapter.presets, e.g.
 * src/chains/evm/presets.ts); src/chains/registry.ts lists them all as BUILTIN_CHAIN_PRESETS and
 * BUILTIN_WORKLOAD_PRESETS, and the families themselves as CHAIN_FAMILIES (a preset's `family` is
 * one of them).
 */

export interface ChainPreset {
  id: string;
  slug: string;
  name: string;
  family: string;
  chain_id: ChainId | null;
  explorer_url: string | null;
}

export interface WorkloadPreset {
  id: string;
  slug: string;
  name: string;
  family: string;
  description: string;
  /** A workload as a suite would give it (defaults not applied), validated by workloadSchema. */
  workload: Record<string, unknown>;
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A reference to a catalog entry is its id or its slug; a slug never looks like a UUID, so the two cannot be confused. */
export function isUuidShaped(ref: string): boolean {
  return UUID_SHAPE.test(ref);
}

export const presetSlugSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes')
  .refine((slug) => !isUuidShaped(slug), 'must not look like a UUID (ids and slugs are both accepted as references)');

export const presetRefSchema = z
  .string()
  .max(100)
  .refine((ref) => isUuidShaped(ref) || /^[a-z0-9][a-z0-9-]*$/.test(ref), 'must be a preset id or slug');

/**
 * A suite's workload built from a preset: the preset's fields, then the suite's overrides on top
 * (shallow: an override of `methods` replaces the whole list). The bound of a campaign is one
 * choice, so an override of requests_per_target or duration_s drops the preset's bound.
 */
export function mergeWorkloadPreset(preset: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const base = { ...preset };
  if ('requests_per_target' in overrides || 'duration_s' in overrides) {
    delete base.requests_per_target;
    delete base.duration_s;
  }
  return { ...base, ...overrides };
}
