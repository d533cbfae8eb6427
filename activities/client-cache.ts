import type { JsonRpcClient } from '../src/probe/json-rpc-client';

const IDLE_CLOSE_MS = 60_000;

/**
 * Keeps a target's keep-alive pool open between its chunks on this worker, so every chunk after
 * the first measures over warm connections. Pools idle for a minute are closed.
 */
export class ClientCache {
  private readonly entries = new Map<string, { client: JsonRpcClient; lastUsed: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(Date.now() - IDLE_CLOSE_MS), 10_000);
    this.sweeper.unref();
  }

  /** Returns the cached client and whether it was just created (then it needs a warm-up). */
  get(key: string, create: () => JsonRpcClient): { client: JsonRpcClient; fresh: boolean } {
    const existing = this.entries.get(key);
    if (existing) {
      existing.lastUsed = Date.now();
      return { client: existing.client, fresh: false };
    }
    const client = create();
    this.entries.set(key, { client, lastUsed: Date.now() });
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
