import { describe, expect, it } from 'vitest';
import { suiteConfigSchema } from '../../src/domain/suite-config';

const TARGET = { endpoint_id: '11111111-1111-4111-8111-111111111111' };

describe('suite config: workload.batch_size', () => {
  it('defaults to 1 (single calls) and keeps 2–100', () => {
    expect(suiteConfigSchema.parse({ targets: [TARGET] }).workload.batch_size).toBe(1);
    expect(suiteConfigSchema.parse({ targets: [TARGET], workload: { batch_size: 100 } }).workload.batch_size).toBe(100);
  });

  it.each([0, 101, 2.5, '10'])('refuses batch_size %s', (batch_size) => {
    const result = suiteConfigSchema.safeParse({ targets: [TARGET], workload: { batch_size } });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['workload.batch_size']);
  });

  it('refuses batches over ws', () => {
    const result = suiteConfigSchema.safeParse({ targets: [TARGET], workload: { batch_size: 2, transport: 'ws' } });
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['workload.batch_size', expect.stringContaining('HTTP only')]]);
    expect(suiteConfigSchema.safeParse({ targets: [TARGET], workload: { batch_size: 1, transport: 'ws' } }).success).toBe(true);
  });
});
