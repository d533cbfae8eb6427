import {
  budgetedCall,
  DEFAULT_PROFILE_BUDGET,
  DEFAULT_PROFILE_RATE_PER_S,
  endpointProfileSchema,
  type EndpointProfile,
  type ProfileTransport,
} from '../domain/endpoint-profile';
import type { ChainAdapter } from './types';

/*
 * The profile engine (issue 35): it holds the budget and the pace, hands the family's discovery
 * (ChainAdapter.profile) the budgeted calls, and checks what comes back against the profile's
 * schema. The transport (HTTP, bounded in time and size) is the caller's.
 */

export interface ProfileOptions {
  transport: ProfileTransport;
  /** A reference endpoint to check values against; it gets a budget of its own, of the same size. */
  reference?: ProfileTransport | null;
  accounts?: readonly string[];
  budget?: number;
  ratePerS?: number;
}

/** The endpoint's profile, or null when the family discovers nothing. Never throws for what the endpoint answers. */
export async function discoverProfile(adapter: ChainAdapter, options: ProfileOptions): Promise<EndpointProfile | null> {
  if (adapter.profile === undefined) return null;
  const budget = options.budget ?? DEFAULT_PROFILE_BUDGET;
  const ratePerS = options.ratePerS ?? DEFAULT_PROFILE_RATE_PER_S;
  const endpoint = budgetedCall(options.transport, { budget, ratePerS });
  const reference = options.reference ? budgetedCall(options.reference, { budget, ratePerS }) : null;
  const profile = await adapter.profile.discover({
    call: endpoint.call,
    reference: reference?.call ?? null,
    accounts: options.accounts ?? [],
    budget,
    used: () => ({ endpoint: endpoint.used(), reference: reference?.used() ?? 0 }),
  });
  return endpointProfileSchema.parse(profile);
}
