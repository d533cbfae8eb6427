import type { Queryable } from './client';

/** Counts one hit in the bucket's current one-minute window and returns the count so far. */
export async function hitRateLimit(
  sql: Queryable,
  bucket: string,
): Promise<{ count: number; windowStart: Date }> {
  const [row] = await sql<{ count: number; window_start: Date }[]>`
    insert into rate_limit_windows (bucket, window_start, count)
    values (${bucket}, date_trunc('minute', now()), 1)
    on conflict (bucket, window_start) do update set count = rate_limit_windows.count + 1
    returning count, window_start`;
  return { count: row!.count, windowStart: row!.window_start };
}

export async function purgeOldRateLimitWindows(sql: Queryable): Promise<void> {
  await sql`delete from rate_limit_windows where window_start < now() - interval '5 minutes'`;
}
