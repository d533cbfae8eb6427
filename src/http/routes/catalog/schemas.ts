import { z } from 'zod';
import { CHAIN_FAMILIES } from '../../../chains/registry';
import { component, int, pageOf, timestamp, url, uuid } from '../shared/schemas';
import { workloadFields, workloadMethod } from '../suites/schemas';

export const ChainPreset = component(
  'ChainPreset',
  z.object({
    id: uuid,
    slug: z.string(),
    name: z.string(),
    family: z.enum(CHAIN_FAMILIES),
    chain_id: z.union([int, z.string()]).nullable().describe('as a chain\'s `chain_id`'),
    explorer_url: url.nullable(),
    built_in: z.boolean().describe('built-in entries are read-only'),
    created_at: timestamp,
  }),
);

export const WorkloadPreset = component(
  'WorkloadPreset',
  z.object({
    id: uuid,
    slug: z.string(),
    name: z.string(),
    family: z.enum(CHAIN_FAMILIES),
    description: z.string(),
    workload: z
      .strictObject({
        ...workloadFields,
        methods: z.array(workloadMethod.partial({ params: true, weight: true })),
      })
      .partial()
      .describe('a workload as a suite would give it (defaults not applied)'),
    built_in: z.boolean(),
    created_at: timestamp,
  }),
);

export const ChainPresetPage = pageOf('ChainPresetPage', ChainPreset);
export const WorkloadPresetPage = pageOf('WorkloadPresetPage', WorkloadPreset);
