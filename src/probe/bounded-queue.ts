/**
 * A first-in first-out queue between a producer that must never wait (a socket's message handler)
 * and one asynchronous consumer, holding at most `capacity` items: when the consumer falls behind,
 * new items are dropped and counted instead of growing memory. The consumer reads it as an async
 * iterable; `end()` finishes the iteration once the queue is drained, `fail(error)` makes the next
 * read throw.
 */
export class BoundedQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<T>) => void) | null = null;
  private failWaiter: ((error: unknown) => void) | null = null;
  private ended = false;
  private error: { value: unknown } | null = null;
  /** Items refused because the queue was full. */
  dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  get length(): number {
    return this.items.length - this.head;
  }

  /**
   * Adds an item; false (and counted in `dropped`) when the queue is full or ended. `reserve`
   * items (e.g. connection state changes, few by construction) may use up to twice the capacity,
   * so a flood of ordinary items cannot push them out.
   */
  push(item: T, reserve = false): boolean {
    if (this.ended) return false;
    if (this.waiter !== null) {
      const waiter = this.waiter;
      this.waiter = null;
      this.failWaiter = null;
      waiter({ value: item, done: false });
      return true;
    }
    if (this.length >= (reserve ? 2 * this.capacity : this.capacity)) {
      this.dropped++;
      return false;
    }
    this.items.push(item);
    return true;
  }

  /** No more items: the iteration ends after the queued ones. */
  end(): void {
    this.ended = true;
    if (this.waiter !== null && this.length === 0) {
      const waiter = this.waiter;
      this.waiter = null;
      this.failWaiter = null;
      waiter({ value: undefined, done: true });
    }
  }

  /** Ends the queue with an error, thrown by the next read after the queued items. */
  fail(error: unknown): void {
    this.error = { value: error };
    this.ended = true;
    if (this.failWaiter !== null && this.length === 0) {
      const failWaiter = this.failWaiter;
      this.waiter = null;
      this.failWaiter = null;
      failWaiter(error);
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.length > 0) {
      const value = this.items[this.head]!;
      this.items[this.head++] = undefined as T;
      // The taken front is dropped now and then, so a long-lived queue does not keep its history.
      if (this.head >= 1024 || this.head === this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.error !== null) return Promise.reject(this.error.value);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failWaiter = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}
