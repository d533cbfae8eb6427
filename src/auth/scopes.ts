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
] as const;

export type Scope = (typeof SCOPES)[number];
