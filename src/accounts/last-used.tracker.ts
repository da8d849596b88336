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
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      await opts.write(batch);
    },
    get pending() {
      return pending.size;
    },
  };
}
