export const SCOPES = [
  'chains:read',
  'chains:write',
  'endpoints:read',
  'endpoints:write',
  'suites:read',
  'suites:write',
  'runs:read',
  'runs:write',
  'catalog:read',
  'catalog:write',
  'keys:admin',
  'webhooks:read',
  'webhooks:write',
  'tenants:admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * Platform-level scopes act across tenants (creating, listing and disabling tenants). Only keys and
 * users of the platform tenant (the default tenant, slug `default`) hold them: authentication drops
 * them from any other tenant's credential, whatever its row or token says.
 */
export const PLATFORM_SCOPES: readonly Scope[] = ['tenants:admin'];

/** Every scope a tenant's own credential can hold: what a tenant's first admin key gets. */
export const TENANT_SCOPES: readonly Scope[] = SCOPES.filter((scope) => !PLATFORM_SCOPES.includes(scope));

export const isPlatformScope = (scope: Scope): boolean => PLATFORM_SCOPES.includes(scope);
