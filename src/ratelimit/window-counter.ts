/**
 * Fixed windows counted in this process: a key's window opens at its first request and lasts
 * `durationMs`; every request counts, refused ones too, and a request is admitted while the count
 * is within `points` (as rate-limiter-flexible's memory limiter counts, which this replaces on the
 * request path: its answer is a promise, this one is synchronous). Windows that ended are dropped
 * when next seen, and all of them by a sweep that consume() does itself once the clock passed
 * the next sweep time (every `sweepEveryMs`): no timer, so a process that builds many limiters
 * (tests) keeps none alive, and a request pays one comparison for it.
 */
export class WindowCounter {
  private readonly windows = new Map<string, { count: number; endAt: number }>();
  private nextSweepAt = -Infinity;

  constructor(
    readonly points: number,
    private readonly durationMs: number,
    private readonly sweepEveryMs = 60_000,
  ) {}

  /** How many windows are kept (open, or ended and not swept yet). */
  get size(): number {
    return this.windows.size;
  }

  /** Counts a request: whether it is admitted, what the window has left and when it ends. */
  consume(key: string, now: number): { allowed: boolean; remaining: number; resetMs: number } {
    if (now >= this.nextSweepAt) this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.endAt <= now) {
      w = { count: 0, endAt: now + this.durationMs };
      this.windows.set(key, w);
    }
    w.count += 1;
    return { allowed: w.count <= this.points, remaining: Math.max(0, this.points - w.count), resetMs: w.endAt - now };
  }

  /** The key's window without counting; null when it has none open. */
  peek(key: string, now: number): { count: number; resetMs: number } | null {
    const w = this.windows.get(key);
    return w && w.endAt > now ? { count: w.count, resetMs: w.endAt - now } : null;
  }

  /** Drops the windows that ended; consume() calls it every `sweepEveryMs`. */
  sweep(now: number): void {
    this.nextSweepAt = now + this.sweepEveryMs;
    for (const [key, w] of this.windows) if (w.endAt <= now) this.windows.delete(key);
  }
}
