import { describe, expect, it } from 'vitest';
import { firstSeqOfShard, shardCount, shardOfSeq } from '../../src/domain/sweep-shards';

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
