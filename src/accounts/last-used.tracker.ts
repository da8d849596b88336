import type { Clock } from '../shared/clock.ts';

export interface LastUsedTrackerOptions {
  readonly clock: Clock;
  /** A key's time is recorded at most once per this interval (per instance). */
  readonly minIntervalMs: number;
  /** Writes a batch of key id -> time used, in one statement. */
  readonly write: (batch: ReadonlyMap<number, Date>) => Promise<void>;
}

export interface LastUsedTracker {
  note(keyId: number): void;
  /** Writes what is pending; the caller's timer and close() call it. */
  flush(): Promise<void>;
  readonly pending: number;
}

/**
 * `last_used_at` without a write per request: each key is noted at most once per interval and
 * the notes are written in batches. It is a hint for people, so a failed batch is dropped.
 */
export function createLastUsedTracker(opts: LastUsedTrackerOptions): LastUsedTracker {
  let pending = new Map<number, Date>();
  const noted = new Map<number, number>();
  // The write in flight: a flush (an explicit one, close()) that finds nothing pending is done
  // only once the timer's write before it is, or its caller would read or close under it.
  let writing: Promise<void> | null = null;

  return {
    note(keyId) {
      const now = opts.clock.now();
      const last = noted.get(keyId);
      if (last !== undefined && now - last < opts.minIntervalMs) return;
      noted.set(keyId, now);
      pending.set(keyId, new Date(now));
    },
    async flush() {
      const now = opts.clock.now();
      for (const [id, at] of noted) if (now - at >= opts.minIntervalMs) noted.delete(id);
      if (pending.size === 0) {
        if (writing) await writing.catch(() => {});
        return;
      }
      const batch = pending;
      pending = new Map();
      const previous = writing;
      const w = (async () => {
        if (previous) await previous.catch(() => {});
        await opts.write(batch);
      })();
      writing = w;
      try {
        await w;
      } finally {
        if (writing === w) writing = null;
      }
    },
    get pending() {
      return pending.size;
    },
  };
}
