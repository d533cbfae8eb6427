import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { acknowledgeRun } from '../../src/services/acknowledgements';
import { callerOf, dashboardLinkActor, principalKey, scheduleActor, type Caller, type Ctx, type Deps } from '../../src/services/context';
import { getMe } from '../../src/services/users';

const TENANT = '11111111-1111-4111-8111-111111111111';
const SUITE = '22222222-2222-4222-8222-222222222222';
const RUN = '33333333-3333-4333-8333-333333333333';

// Verbs refused before they touch a dependency: none is given, so reaching one would throw a TypeError.
const noDeps = {} as Deps;

describe('system actors', () => {
  it('a schedule acts as itself for its suite, in the suite\'s tenant, with runs:write only', () => {
    expect(scheduleActor({ id: SUITE, tenant_id: TENANT })).toEqual({
      kind: 'schedule',
      id: SUITE,
      name: 'schedule',
      email: null,
      tenantId: TENANT,
      scopes: ['runs:write'],
    });
  });

  it('a dashboard link acts as itself for its run, read-only', () => {
    expect(dashboardLinkActor(RUN, TENANT)).toEqual({
      kind: 'dashboard_link',
      id: RUN,
      name: 'dashboard link',
      email: null,
      tenantId: TENANT,
      scopes: ['runs:read'],
    });
  });

  it('per-actor keys follow the real kind: never the key of an API key or user with the same id', () => {
    const schedule = scheduleActor({ id: SUITE, tenant_id: TENANT });
    const link = dashboardLinkActor(SUITE, TENANT);
    const apiKey: Caller = { kind: 'api_key', id: SUITE, name: 'k', email: null, tenantId: TENANT, scopes: ['runs:write'] };
    expect(principalKey(schedule)).toBe(`schedule:${TENANT}:${SUITE}`);
    expect(principalKey(link)).toBe(`dashboard_link:${TENANT}:${SUITE}`);
    expect(new Set([principalKey(schedule), principalKey(link), principalKey(apiKey)]).size).toBe(3);
  });
});

describe('callerOf', () => {
  it('returns an API key or a user as they are', () => {
    const user: Caller = { kind: 'user', id: 'sub', name: 'Ada', email: 'ada@example.com', tenantId: TENANT, scopes: ['runs:read'] };
    expect(callerOf({ principal: user })).toBe(user);
  });

  it.each([
    ['schedule', scheduleActor({ id: SUITE, tenant_id: TENANT })],
    ['dashboard_link', dashboardLinkActor(RUN, TENANT)],
  ] as const)('refuses a %s: it is never passed off as a caller', (kind, actor) => {
    expect(() => callerOf({ principal: actor })).toThrow(AppError);
    expect(() => callerOf({ principal: actor })).toThrow(`a ${kind} cannot do this`);
  });

  it('GET /v1/users/me and acknowledging a run refuse a system actor before touching anything', async () => {
    const ctx: Ctx = { principal: dashboardLinkActor(RUN, TENANT), deps: noDeps };
    await expect(getMe({ ctx })).rejects.toMatchObject({ code: 'forbidden', message: 'a dashboard_link cannot do this' });
    const scheduleCtx: Ctx = { principal: scheduleActor({ id: SUITE, tenant_id: TENANT }), deps: noDeps };
    await expect(getMe({ ctx: scheduleCtx })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(acknowledgeRun({ ctx: scheduleCtx, input: { runId: RUN, body: { note: 'seen' } } })).rejects.toMatchObject({
      code: 'forbidden',
      message: 'a schedule cannot do this',
    });
  });
});
