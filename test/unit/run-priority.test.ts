import { describe, expect, it } from 'vitest';
import { INTERACTIVE_MAX_CALLS, pacingRoleOf, priorityClassOf, PRIORITY_CLASSES, runPriority } from '../../src/domain/run-priority';

const workload = (w: { sweep?: object; duration_s?: number | null; requests_per_target?: number | null }) => ({
  sweep: undefined,
  duration_s: null,
  requests_per_target: 100,
  ...w,
}) as Parameters<typeof priorityClassOf>[0]['workload'];

describe('priorityClassOf', () => {
  it.each([
    { name: 'a small API trigger (a CI gate)', triggeredBy: 'api', w: workload({}), targets: 2, cls: 'interactive' },
    { name: 'a small scheduled run', triggeredBy: 'schedule', w: workload({}), targets: 2, cls: 'scheduled' },
    { name: 'exactly the interactive limit', triggeredBy: 'api', w: workload({ requests_per_target: INTERACTIVE_MAX_CALLS / 2 }), targets: 2, cls: 'interactive' },
    { name: 'one call over it', triggeredBy: 'api', w: workload({ requests_per_target: INTERACTIVE_MAX_CALLS / 2 + 1 }), targets: 2, cls: 'campaign' },
    { name: 'a duration-bound campaign', triggeredBy: 'api', w: workload({ duration_s: 60, requests_per_target: null }), targets: 1, cls: 'campaign' },
    { name: 'a scheduled campaign', triggeredBy: 'schedule', w: workload({ duration_s: 600, requests_per_target: null }), targets: 1, cls: 'campaign' },
    { name: 'a capacity sweep', triggeredBy: 'api', w: workload({ sweep: { rates: [10] }, requests_per_target: null }), targets: 1, cls: 'sweep' },
  ] as const)('$name → $cls', ({ triggeredBy, w, targets, cls }) => {
    expect(priorityClassOf({ triggeredBy, workload: w, targets })).toBe(cls);
  });

  it('orders the classes interactive < scheduled < campaign < sweep within Temporal\'s default keys 1–5', () => {
    const keys = (['interactive', 'scheduled', 'campaign', 'sweep'] as const).map((c) => PRIORITY_CLASSES[c]);
    expect([...keys].sort((a, b) => a - b)).toEqual(keys);
    expect(Math.min(...keys)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...keys)).toBeLessThanOrEqual(5);
  });

  it('keys fairness by tenant', () => {
    expect(runPriority('0b6f3c8e-5a43-4c1e-9d7a-2f1e8b9c0d11', 'campaign')).toEqual({ priorityKey: 4, fairnessKey: '0b6f3c8e-5a43-4c1e-9d7a-2f1e8b9c0d11' });
  });
});

describe('pacingRoleOf', () => {
  it.each([
    { key: PRIORITY_CLASSES.interactive, role: 'interactive' },
    { key: PRIORITY_CLASSES.scheduled, role: 'interactive' },
    { key: 3, role: 'other' },
    { key: PRIORITY_CLASSES.campaign, role: 'campaign' },
    { key: PRIORITY_CLASSES.sweep, role: 'campaign' },
    { key: undefined, role: 'other' },
  ] as const)('priorityKey $key → $role', ({ key, role }) => {
    expect(pacingRoleOf(key)).toBe(role);
  });
});
