import type { Clock } from '../../shared/clock.ts';
import type { SealingKeys } from '../../shared/sealing-keys.ts';
import type { Db, Listen } from '../../storage/database.ts';
import { findApiKey, revokeApiKey, touchApiKey, type ApiKeyRecord } from './api-key.repository.ts';

/**
 * API keys by public id, cached in this process for a few seconds so a burst of signed requests
 * does not read and decrypt the same row each time. A revocation made here takes effect at once;
 * one made elsewhere as soon as its notice arrives (followKeyRevocations), and within `ttlMs`
 * should the notice be lost. Unknown keys are not cached, so a key issued on another instance
 * works here immediately.
 */
export interface ApiKeyLookup {
  /** The live or revoked key, or null when it was never issued. */
  lookup(key: string): Promise<ApiKeyRecord | null>;
  /** Revokes through this cache, so this instance refuses the key at once. */
  revoke(key: string, wallet: string): Promise<boolean>;
  /** Records use, at most once a minute per key (a write per request would be waste). */
  markUsed(record: ApiKeyRecord): Promise<void>;
  forget(key: string): void;
  /** Drops every cached key (the notices of revocations may have been missed). */
  forgetAll(): void;
}

/** Payload: the public key id of a market API key revoked or deleted (migration 2026_11_28_10_market_key_notify). */
export const MARKET_KEY_CHANGE_CHANNEL = 'svc_market_key_change';

/**
 * Makes `lookup` forget a key the moment any instance or tool revokes it, so a revoked key is
 * refused everywhere once the revocation commits, not once each instance's cached lookup
 * expires. Returns the function that stops listening.
 */
export function followKeyRevocations(lookup: ApiKeyLookup, listen: Listen): Promise<() => Promise<void>> {
  // A lost listening connection may have missed notices: every cached key is read again.
  return listen([MARKET_KEY_CHANGE_CHANNEL], (_channel, key) => lookup.forget(key), () => lookup.forgetAll());
}

export interface ApiKeyLookupOptions {
  readonly db: Db;
  /** The current and previous SECRETS_KEY: a secret sealed before a rotation still opens. */
  readonly keys: SealingKeys;
  readonly clock: Clock;
  /** How stale a cached key may be; this bounds how late a revocation elsewhere is seen. */
  readonly ttlMs?: number;
  readonly maxEntries?: number;
}

const TOUCH_EVERY_MS = 60_000;

interface Entry {
  readonly record: ApiKeyRecord;
  readonly expiresAt: number;
}

export function createApiKeyLookup(opts: ApiKeyLookupOptions): ApiKeyLookup {
  const ttlMs = opts.ttlMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();
  const touched = new Map<string, number>();
  /** Counts forgets, so a lookup that read its row before one does not cache what it read. */
  let generation = 0;

  return {
    async lookup(key) {
      const now = opts.clock.now();
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now) return hit.record;
      entries.delete(key);
      const startedAt = generation;
      const record = await findApiKey(opts.db, opts.keys, key);
      if (!record) return null;
      // A revocation noticed while the row was being read may be newer than what was read.
      if (startedAt !== generation) return record;
      if (entries.size >= maxEntries) {
        // Map keeps insertion order: the first entry is the oldest.
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(key, { record, expiresAt: now + ttlMs });
      return record;
    },
    async revoke(key, wallet) {
      const done = await revokeApiKey(opts.db, key, wallet, new Date(opts.clock.now()));
      generation++;
      entries.delete(key);
      return done;
    },
    async markUsed(record) {
      const now = opts.clock.now();
      const last = touched.get(record.key);
      if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
      if (touched.size >= maxEntries) touched.clear();
      touched.set(record.key, now);
      await touchApiKey(opts.db, record.id, new Date(now));
    },
    forget(key) {
      generation++;
      entries.delete(key);
    },
    forgetAll() {
      generation++;
      entries.clear();
    },
  };
}
