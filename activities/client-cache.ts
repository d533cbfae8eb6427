import type { JsonRpcClient } from '../src/probe/json-rpc-client';

const IDLE_CLOSE_MS = 60_000;

/**
 * Keeps a target's keep-alive pool open between its chunks on this worker, so every chunk after
 * the first measures over warm connections. Pools idle for a minute are closed.
 *
 * Each pool remembers the version of the endpoint it was opened for (endpointClientVersion): an
 * endpoint edited mid-run (PATCH url or headers) gets a new pool at its next chunk on this
 * worker, warmed up afresh, and the old pool is closed; a pool never outlives the values it was
 * built from.
 */
export class ClientCache {
  private readonly entries = new Map<string, { client: JsonRpcClient; version: string; lastUsed: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(Date.now() - IDLE_CLOSE_MS), 10_000);
    this.sweeper.unref();
  }

  /** Returns the cached client and whether it was just created (then it needs a warm-up). */
  get(key: string, version: string, create: () => JsonRpcClient): { client: JsonRpcClient; fresh: boolean } {
    const existing = this.entries.get(key);
    if (existing && existing.version === version) {
      existing.lastUsed = Date.now();
      return { client: existing.client, fresh: false };
    }
    // Closed in the background: the new pool does not wait for the old one's connections to end.
    if (existing) void this.drop(key);
    const client = create();
    this.entries.set(key, { client, version, lastUsed: Date.now() });
    return { client, fresh: true };
  }

  async drop(key: string): Promise<void> {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    await entry?.client.close();
  }

  private sweep(idleBefore: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.lastUsed < idleBefore) void this.drop(key);
    }
  }
}
