import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import type { Db } from '../storage/database.ts';
import { findPrincipalByKeyHash, writeLastUsed } from './api-key.repository.ts';
import { hashApiKey, isApiKeyShaped } from './api-key.token.ts';
import { createKeyCache } from './key-cache.ts';
import { createLastUsedTracker } from './last-used.tracker.ts';
import type { Principal } from './principal.ts';

export interface ApiKeyServiceOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Key cache TTL: the bound on how long another instance honours a revoked key. */
  readonly cacheTtlMs: number;
  /** last_used_at is written at most this often per key and instance. */
  readonly lastUsedIntervalMs?: number;
  /** How often pending last_used_at times are written. */
  readonly flushEveryMs?: number;
}

/** Key checks for the inference surface: cached lookups, revocation, last-used bookkeeping. */
export interface ApiKeyService {
  /** The caller behind a presented key, or null (malformed, unknown or revoked). */
  authenticate(key: string): Promise<Principal | null>;
  /** Call after revoking a key, so this instance refuses it at once. */
  forgetKey(keyId: number): void;
  /** Call after changing an account (verified email), so this instance sees it at once. */
  forgetAccount(accountId: number): void;
  flushLastUsed(): Promise<void>;
  close(): Promise<void>;
}

export function createApiKeyService(opts: ApiKeyServiceOptions): ApiKeyService {
  const cache = createKeyCache({
    load: (hash) => findPrincipalByKeyHash(opts.db, hash),
    clock: opts.clock,
    ttlMs: opts.cacheTtlMs,
  });
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

  return {
    async authenticate(key) {
      if (!isApiKeyShaped(key)) return null;
      const principal = await cache.get(hashApiKey(key));
      if (principal) lastUsed.note(principal.keyId);
      return principal;
    },
    forgetKey: (id) => cache.forgetKey(id),
    forgetAccount: (id) => cache.forgetAccount(id),
    flushLastUsed: flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
