import { describe, expect, it } from 'vitest';
import { firstSeqOfShard, shardCount, shardOfSeq, shardsPerWorker, shardsWithinCap } from '../../src/domain/sweep-shards';

describe('shardCount', () => {
  it.each([
    { rate: 50, shardMaxRps: 1_000, maxShards: 8, k: 1 },
    { rate: 1_000, shardMaxRps: 1_000, maxShards: 8, k: 1 },
    { rate: 1_001, shardMaxRps: 1_000, maxShards: 8, k: 2 },
    { rate: 3_200, shardMaxRps: 1_000, maxShards: 8, k: 4 },
    { rate: 40_000, shardMaxRps: 1_000, maxShards: 8, k: 8 },
    { rate: 3_200, shardMaxRps: 1_000, maxShards: 1, k: 1 },
    { rate: 300, shardMaxRps: 100, maxShards: 2, k: 2 },
  ])('$rate calls/s, ≤ $shardMaxRps per shard, ≤ $maxShards shards → $k', ({ rate, shardMaxRps, maxShards, k }) => {
    expect(shardCount(rate, { shardMaxRps, maxShards })).toBe(k);
  });
});

describe('shardsWithinCap: every shard of every target of a step holds a probe-activity place at once', () => {
  it.each([
    { shards: 8, targets: 1, cap: 10, k: 8 },
    { shards: 8, targets: 2, cap: 10, k: 5 },
    { shards: 8, targets: 3, cap: 10, k: 3 },
    { shards: 4, targets: 2, cap: 10, k: 4 },
    { shards: 8, targets: 2, cap: 16, k: 8 },
    { shards: 8, targets: 4, cap: 3, k: 1 },
    { shards: 1, targets: 11, cap: 10, k: 1 },
  ])('$shards shards × $targets targets, cap $cap → $k', ({ shards, targets, cap, k }) => {
    expect(shardsWithinCap(shards, targets, cap)).toBe(k);
  });
});

describe('shardsPerWorker: the most shards of a step one worker takes while they are handed out', () => {
  it.each([
    { shards: 8, workers: 2, share: 4 },
    { shards: 8, workers: 3, share: 3 },
    { shards: 5, workers: 2, share: 3 },
    { shards: 8, workers: 1, share: 8 },
    { shards: 2, workers: 4, share: 1 },
    { shards: 8, workers: 0, share: 8 },
  ])('$shards shards over $workers workers → $share each at most', ({ shards, workers, share }) => {
    expect(shardsPerWorker(shards, workers)).toBe(share);
  });
});

describe('shards of a step', () => {
  it('cover every seq of a step exactly once, each shard on its own residue', () => {
    for (const shards of [1, 2, 3, 4]) {
      for (const [fromSeq, toSeq] of [
        [0, 10],
        [7, 30],
        [13, 14],
      ] as const) {
        const seen: number[] = [];
        for (let shard = 0; shard < shards; shard++) {
          for (let seq = firstSeqOfShard(fromSeq, shard, shards); seq < toSeq; seq += shards) {
            expect(shardOfSeq(seq, shards)).toBe(shard);
            seen.push(seq);
          }
        }
        expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: toSeq - fromSeq }, (_, i) => fromSeq + i));
      }
    }
  });
});
