import type { Clock } from '../../shared/clock.ts';

/**
 * Serialized answers of identical requests, kept for `ttlMs` (a micro-cache: when many clients
 * ask the same list in the same second, the database answers once). An answer may lag a write
 * by up to ttlMs, so it is off unless configured (MARKET_LIST_CACHE_MS). Bounded: the oldest
 * entries go first once `maxEntries` are held.
 */
export class ResponseCache {
  readonly #entries = new Map<string, { at: number; body: string }>();

  constructor(
    readonly ttlMs: number,
    private readonly clock: Clock,
    private readonly maxEntries = 1000,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get(key: string): string | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    const age = this.clock.now() - e.at;
    if (age >= 0 && age < this.ttlMs) return e.body;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, body: string): void {
    if (!this.enabled) return;
    this.#entries.delete(key);
    this.#entries.set(key, { at: this.clock.now(), body });
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}
