import { z } from 'zod';

/*
 * Vantage points (DESIGN.md §14): a region is where a worker runs. Workers carry one
 * (RVS_REGION) and poll the region's probe queue (rvs-probe-<region>); a suite lists the regions
 * its targets are probed from. The name ends up in a Temporal task-queue name, a search attribute
 * and a column, so it is kept short and plain.
 */

export const DEFAULT_REGION = 'local';
export const REGION_NAME = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;
export const MAX_VANTAGE_POINTS = 16;
/** A region's probe task waits this long for a worker of the region unless the suite says otherwise. */
export const DEFAULT_VANTAGE_START_TIMEOUT_S = 60;

export const regionName = z
  .string()
  .regex(REGION_NAME, 'must be 1-32 lowercase letters, digits or hyphens, starting and ending with a letter or digit');

/** A suite's `vantage_points`: distinct region names, at least one. */
export const vantagePointsSchema = z
  .array(regionName)
  .min(1)
  .max(MAX_VANTAGE_POINTS)
  .refine((regions) => new Set(regions).size === regions.length, 'must not list a region twice');

/** What a region of a run came to: judged like any sample set, or no worker of the region took its tasks. */
export type VantageOutcome = 'probed' | 'vantage_unavailable';
