/**
 * Webhook delivery attempts one tenant may have in flight on one worker. An attempt holds one of
 * the worker's 20 activity slots (shared with every tenant's probes) for up to its 15 s deadline,
 * and a tenant's deliveries retry for 24 hours: without a bound, one tenant's black-holed
 * receivers and frequent runs would hold every slot. 4 of 20 leaves the rest to probes and to
 * other tenants.
 */
export const DEFAULT_WEBHOOK_ATTEMPTS_PER_TENANT = 4;

/** Counts a worker's in-flight delivery attempts per tenant (one instance per worker). */
export class TenantAttempts {
  private readonly inFlight = new Map<string, number>();

  constructor(readonly limit: number = DEFAULT_WEBHOOK_ATTEMPTS_PER_TENANT) {}

  /** A release function, or null when the tenant already has `limit` attempts in flight here. */
  tryAcquire(tenantId: string): (() => void) | null {
    const count = this.inFlight.get(tenantId) ?? 0;
    if (count >= this.limit) return null;
    this.inFlight.set(tenantId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(tenantId) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(tenantId);
      else this.inFlight.set(tenantId, left);
    };
  }
}
