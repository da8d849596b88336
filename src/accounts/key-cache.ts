import type { Clock } from '../shared/clock.ts';
import type { Principal } from './principal.ts';

export interface KeyCacheOptions {
  /** Reads a key by its hash; null when it does not exist or is revoked. */
  readonly load: (hash: string) => Promise<Principal | null>;
  readonly clock: Clock;
  /** How long an answer (found or not) is trusted; the bound on cross-instance revocation. */
  readonly ttlMs: number;
  /** Oldest entries go first beyond this, so random keys cannot grow memory without bound. */
  readonly maxEntries?: number;
}

export interface KeyCache {
  get(hash: string): Promise<Principal | null>;
  /** A fresh entry's answer at once; undefined when only get() can tell (nothing fresh cached). */
  peek(hash: string): Principal | null | undefined;
  /** Drops a key's entry here (revocation on this instance takes effect at once). */
  forgetKey(keyId: number): void;
  /** Drops every key of an account (its email was just verified, say). */
  forgetAccount(accountId: number): void;
  /** Drops everything (change notifications may have been missed). */
  forgetAll(): void;
  readonly size: number;
}

interface Entry {
  readonly value: Principal | null;
  readonly expiresAt: number;
}

/**
 * In-process cache of key lookups with a short TTL: a request costs no database round trip
 * while its key's entry is fresh. Changes are forgotten at once when told (the service listens
 * for them); a change nobody told this cache about is honoured once the entry expires.
 * Concurrent misses on one key share a single query.
 */
export function createKeyCache(opts: KeyCacheOptions): KeyCache {
  const maxEntries = opts.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<Principal | null>>();
  // Bumped by every forget: a lookup that started before it must not store its older answer.
  let generation = 0;

  const store = (hash: string, value: Principal | null) => {
    entries.delete(hash);
    while (entries.size >= maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
    entries.set(hash, { value, expiresAt: opts.clock.now() + opts.ttlMs });
  };

  const forgetWhere = (match: (p: Principal) => boolean) => {
    generation++;
    for (const [hash, e] of entries) if (e.value && match(e.value)) entries.delete(hash);
    loading.clear();
  };

  return {
    peek(hash) {
      const hit = entries.get(hash);
      return hit && hit.expiresAt > opts.clock.now() ? hit.value : undefined;
    },
    async get(hash) {
      const hit = entries.get(hash);
      if (hit && hit.expiresAt > opts.clock.now()) return hit.value;
      const pending = loading.get(hash);
      if (pending) return pending;
      const startedAt = generation;
      const p = opts.load(hash).then(
        (value) => {
          if (loading.get(hash) === p) loading.delete(hash);
          if (startedAt === generation && opts.ttlMs > 0) store(hash, value);
          return value;
        },
        (err: unknown) => {
          if (loading.get(hash) === p) loading.delete(hash);
          throw err;
        },
      );
      loading.set(hash, p);
      return p;
    },
    forgetKey(keyId) {
      forgetWhere((p) => p.keyId === keyId);
    },
    forgetAccount(accountId) {
      forgetWhere((p) => p.accountId === accountId);
    },
    forgetAll() {
      forgetWhere(() => true);
      // Unknown keys too: a key created meanwhile must not stay "not found".
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
