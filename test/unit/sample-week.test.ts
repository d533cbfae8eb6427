import { describe, expect, it } from 'vitest';
import { samplePartitionName, sampleWeekOf } from '../../src/db/sample-partitions';

describe('sampleWeekOf', () => {
  it.each([
    ['2026-12-07T00:00:00.000Z', '2026-12-07'], // a Monday at midnight UTC: its own week
    ['2026-12-06T23:59:59.999Z', '2026-11-30'], // the Sunday before: the week before
    ['2026-12-13T23:59:59.999Z', '2026-12-07'],
    ['2027-01-01T12:00:00.000Z', '2026-12-28'], // across a year
    ['1970-01-01T00:00:00.000Z', '1969-12-29'], // day 0 (a Thursday)
    ['1969-12-28T00:00:00.000Z', '1969-12-22'], // a Sunday before day 0
    ['2024-02-29T08:00:00.000Z', '2024-02-26'],
  ])('%s is in the week of %s', (at, week) => {
    expect(sampleWeekOf(new Date(at))).toBe(week);
  });

  it('names the week table as migration 041 finds it (run_samples_wYYYYMMDD)', () => {
    expect(samplePartitionName('2026-12-07')).toBe('run_samples_w20261207');
  });
});
