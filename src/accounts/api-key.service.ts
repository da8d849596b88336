import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import type { Db, Listen } from '../storage/database.ts';
import { findPrincipalByKeyHash, writeLastUsed } from './api-key.repository.ts';
import { hashApiKey, isApiKeyShaped } from './api-key.token.ts';
import { createKeyCache } from './key-cache.ts';
import { createLastUsedTracker } from './last-used.tracker.ts';
import type { Principal } from './principal.ts';

export interface ApiKeyServiceOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Key cache TTL: how long a lookup is trusted. Revocations and verified emails reach every
   * instance's cache at once through `listen`; the TTL bounds only a notification that was lost.
   */
  readonly cacheTtlMs: number;
  /** Subscribes to the database's key change notifications (migration 2026_11_26_97_api_key_notify). */
  readonly listen: Listen;
  /** last_used_at is written at most this often per key and instance. */
  readonly lastUsedIntervalMs?: number;
  /** How often pending last_used_at times are written. */
  readonly flushEveryMs?: number;
}

/** Key checks for the inference surface: cached lookups, revocation, last-used bookkeeping. */
export interface ApiKeyService {
  /** The caller behind a presented key, or null (malformed, unknown or revoked). */
  authenticate(key: string): Promise<Principal | null>;
  /**
   * authenticate()'s answer when this instance knows it without asking the database (a fresh
   * cache entry, or a key not shaped like one); undefined otherwise: then call authenticate().
   */
  known(key: string): Principal | null | undefined;
  /** Call after revoking a key, so this instance refuses it at once. */
  forgetKey(keyId: number): void;
  /** Call after changing an account (verified email), so this instance sees it at once. */
  forgetAccount(accountId: number): void;
  /** Resolves once every key change committed before the call has reached this instance's cache. */
  barrier(): Promise<void>;
  flushLastUsed(): Promise<void>;
  close(): Promise<void>;
}

/** Keys whose hash an instance remembers (about 150 bytes each). */
const KNOWN_HASHES = 10_000;

/** `k<id>`: a key revoked or deleted; `a<id>`: an account's email_verified changed; `b<token>`: a barrier. */
export const KEY_CHANGE_CHANNEL = 'svc_api_key_change';

export async function createApiKeyService(opts: ApiKeyServiceOptions): Promise<ApiKeyService> {
  const cache = createKeyCache({
    load: (hash) => findPrincipalByKeyHash(opts.db, hash),
    clock: opts.clock,
    ttlMs: opts.cacheTtlMs,
  });
  const barriers = new Map<string, () => void>();
  const onChange = (_channel: string, payload: string) => {
    const id = Number(payload.slice(1));
    if (payload.startsWith('k')) cache.forgetKey(id);
    else if (payload.startsWith('a')) cache.forgetAccount(id);
    else if (payload.startsWith('b')) barriers.get(payload.slice(1))?.();
  };
  // Notifications sent while the listening connection was down are lost: start over.
  const stopListening = await opts.listen([KEY_CHANGE_CHANNEL], onChange, () => cache.forgetAll());
  const lastUsed = createLastUsedTracker({
    clock: opts.clock,
    minIntervalMs: opts.lastUsedIntervalMs ?? 60_000,
    write: (batch) => writeLastUsed(opts.db, batch),
  });
  const flush = async () => {
    try {
      await lastUsed.flush();
    } catch (err) {
      opts.logger.warn({ err }, 'could not record api key last_used_at');
    }
  };
  const timer = setInterval(() => void flush(), opts.flushEveryMs ?? 10_000);
  timer.unref();

  // The hash of each key that matched an account, by the key as presented: sha256 was the largest
  // single step of a cached key check (8 µs of a loaded request's main thread, docs/bench-gateway.md,
  // "Session 18"). The hash never changes, so revocations need nothing here; only keys that
  // matched enter, so made-up keys cannot grow it, and it starts over when full.
  const hashes = new Map<string, string>();
  /** The key's hash, or null when the key is not shaped like one (no cache slot, no query). */
  const hashOf = (key: string) => hashes.get(key) ?? (isApiKeyShaped(key) ? hashApiKey(key) : null);
  const found = (key: string, hash: string, principal: Principal | null) => {
    if (!principal) return principal;
    lastUsed.note(principal.keyId);
    if (!hashes.has(key)) {
      if (hashes.size >= KNOWN_HASHES) hashes.clear();
      hashes.set(key, hash);
    }
    return principal;
  };

  return {
    known(key) {
      const hash = hashOf(key);
      if (hash === null) return null;
      const principal = cache.peek(hash);
      return principal === undefined ? undefined : found(key, hash, principal);
    },
    async authenticate(key) {
      const hash = hashOf(key);
      if (hash === null) return null;
      return found(key, hash, await cache.get(hash));
    },
    forgetKey: (id) => cache.forgetKey(id),
    forgetAccount: (id) => cache.forgetAccount(id),
    async barrier() {
      const token = randomUUID();
      const arrived = new Promise<void>((resolve) => barriers.set(token, resolve));
      try {
        await sql`select pg_notify(${KEY_CHANGE_CHANNEL}, ${`b${token}`})`.execute(opts.db);
        await arrived;
      } finally {
        barriers.delete(token);
      }
    },
    flushLastUsed: flush,
    async close() {
      clearInterval(timer);
      await stopListening();
      await flush();
    },
  };
}
