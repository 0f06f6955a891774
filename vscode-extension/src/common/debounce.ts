/** A trailing-edge debouncer with injectable timers, so restarts can be collapsed and tested without waiting. */

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Calls `action` once, `delayMs` after the last `trigger()`. A burst of triggers (a restart command
 * followed by a settings change, say) runs the action once.
 */
export class Debouncer {
  private handle: unknown = undefined;

  constructor(
    private readonly action: () => void,
    private readonly delayMs: number,
    private readonly timers: Timers = realTimers,
  ) {}

  get pending(): boolean {
    return this.handle !== undefined;
  }

  trigger(): void {
    this.cancel();
    this.handle = this.timers.set(() => {
      this.handle = undefined;
      this.action();
    }, this.delayMs);
  }

  /** Runs a pending action now (nothing if none is pending). */
  flush(): void {
    if (this.pending) {
      this.cancel();
      this.action();
    }
  }

  cancel(): void {
    if (this.handle !== undefined) {
      this.timers.clear(this.handle);
      this.handle = undefined;
    }
  }
}

/** Runs async tasks one after the other, so a restart never overlaps a stop still in progress. */
export class Serializer {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
