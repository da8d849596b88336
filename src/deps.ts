import { Redis } from 'ioredis';
import { createApiKeyService, type ApiKeyService } from './accounts/api-key.service.ts';
import { resolveAdminToken } from './admin/admin-token.ts';
import type { Config } from './config/index.ts';
import { decodePreviousSecretsKeys, resolveSecretsKey } from './config/secrets.ts';
import { createBilling, type Billing } from './inference/billing/billing.ts';
import { createUpstreams, type Upstreams } from './inference/upstream/create-upstreams.ts';
import { createRedisBreakerStore } from './inference/upstream/redis-breaker-store.ts';
import { serveDemoToo } from './inference/upstream/demo-upstreams.ts';
import { createMailer, type Mailer } from './dashboard/mailer.ts';
import { createApiKeyLookup, followKeyRevocations, type ApiKeyLookup } from './market/auth/api-key.lookup.ts';
import type { ChainAdapter } from './market/custody/chain-adapter.ts';
import { startMarketFeed, type MarketFeed } from './market/live/market-feed.ts';
import { MarketStream } from './market/live/market-stream.ts';
import { createChainAdapter } from './market/custody/create-chain-adapter.ts';
import { createLeasedRateLimiter, type LeasedRateLimiter } from './ratelimit/leased-limiter.ts';
import { createRateLimiter, type RateLimiter } from './ratelimit/limiter.ts';
import type { Clock } from './shared/clock.ts';
import { keyId } from './shared/sealing-keys.ts';
import { systemClock } from './shared/clock.ts';
import { createLogger, type Logger } from './shared/logger.ts';
import { recordSharedSecret, shareWithInstances, type LocalSecret, type SharedSecret } from './storage/instance-secrets.ts';
import { migrateToLatest, openDatabase, type DatabaseHandle, type Db } from './storage/database.ts';

/** Everything the app needs from the outside world, built once at start. */
export interface AppDeps {
  readonly config: Config;
  readonly db: Db;
  readonly dbKind: DatabaseHandle['kind'];
  readonly redis: Redis | null;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly adminToken: string;
  /** AES-256 key sealing stored secrets (market API secrets) and, through sub-keys, reasoning tokens. */
  readonly secretsKey: Buffer;
  /** Keys secretsKey replaced (SECRETS_KEY_PREVIOUS): they open what they sealed, and seal nothing. */
  readonly previousSecretsKeys: readonly Buffer[];
  /**
   * Records secretsKey as the key of every instance on this database (instance_secrets), once
   * the stored secrets are sealed with it (the re-seal of a key rotation).
   */
  recordSecretsKey(): Promise<void>;
  readonly marketKeys: ApiKeyLookup;
  readonly chain: ChainAdapter;
  /** The market's changes, from this instance and (LISTEN/NOTIFY) every other writer. */
  readonly marketFeed: MarketFeed;
  /** GET /api/stream: the feed's trades as Server-Sent Events. */
  readonly marketStream: MarketStream;
  /** Pools to every configured upstream provider. */
  readonly upstreams: Upstreams;
  readonly limiters: {
    readonly market: RateLimiter;
    /** Per account: chat, completions, responses, messages, embeddings, rerank (spent from memory). */
    readonly inference: LeasedRateLimiter;
    /** Per account: image generation (spent from memory). */
    readonly images: LeasedRateLimiter;
    /** Dashboard sign-in, sign-up and password reset attempts, per client IP and per email. */
    readonly auth: RateLimiter;
  };
  /** Dashboard email: SMTP, or the outbox in DATA_DIR. */
  readonly mailer: Mailer;
  /** Inference key checks: cached lookups, revocation, last-used bookkeeping. */
  readonly apiKeys: ApiKeyService;
  /** Inference credits: leases, holds, charges written behind. */
  readonly billing: Billing;
  close(): Promise<void>;
}

export interface DepsOverrides {
  /** An already-open database (tests give each file its own). */
  readonly database?: DatabaseHandle;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly chain?: ChainAdapter;
  readonly upstreams?: Upstreams;
  /** Whether close() also closes the database given in overrides. */
  readonly closeDatabase?: boolean;
}

export function connectRedis(url: string): Redis {
  // Auto-pipelining sends the commands of concurrent requests (rate-limit counters, replay
  // claims) in one write per event-loop turn instead of one write each: socket writes are a
  // large part of a request's CPU cost.
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false, enableAutoPipelining: true });
  // Reconnection is automatic; a down Redis falls back to in-process limits meanwhile.
  redis.on('error', () => {});
  return redis;
}

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<AppDeps> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const database =
    overrides.database ?? (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      onListenerError: (what, err) => logger.warn({ err }, what),
    }));
  await migrateToLatest(database.db);
  let admin: SharedSecret;
  let secrets: SharedSecret;
  let localSecrets: LocalSecret;
  const localAdmin = resolveAdminToken(config.adminToken, config.dataDir);
  try {
    admin = await shareWithInstances(database.db, {
      name: 'admin_token', setting: 'ADMIN_TOKEN', label: 'admin token', value: localAdmin.token,
      fromEnv: config.adminToken !== null, generated: localAdmin.generated, file: localAdmin.file,
    });
    const localKey = resolveSecretsKey(config.secretsKey, config.dataDir);
    localSecrets = {
      name: 'secrets_key', setting: 'SECRETS_KEY', label: 'sealing key', value: localKey.key.toString('base64'),
      fromEnv: config.secretsKey !== null, generated: localKey.generated, file: localKey.file,
      // Canonical text, as the value: the fingerprints compared are of the base64 text.
      previous: decodePreviousSecretsKeys(config.secretsKeyPrevious).map((k) => k.toString('base64')),
      rotation: 'or, to rotate it, give the recorded key in SECRETS_KEY_PREVIOUS',
      previousSetting: 'SECRETS_KEY_PREVIOUS',
      describe: (value) => `key ${keyId(Buffer.from(value, 'base64')).toString('base64url')}`,
    };
    secrets = await shareWithInstances(database.db, localSecrets);
  } catch (e) {
    if (overrides.database === undefined) await database.close();
    throw e;
  }
  if (localAdmin.generated && !admin.adopted) {
    // Printed once, on the start that created it; afterwards it lives only in the file.
    process.stdout.write(`\nAdmin token (saved to ${localAdmin.file}, shown only now):\n  ${admin.value}\n\n`);
  } else if (admin.adopted) {
    logger.info({ file: localAdmin.file }, 'using the admin token of the other instances on this database');
  }
  const secretsKey = Buffer.from(secrets.value, 'base64');
  const previousSecretsKeys = decodePreviousSecretsKeys(config.secretsKeyPrevious).filter((k) => !k.equals(secretsKey));
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null;
  if (redis) await waitForRedis(redis);
  const clock = overrides.clock ?? systemClock;
  // Breakers opened on one instance keep the others away too, when they share a Redis.
  const upstreams = overrides.upstreams ?? serveDemoToo(
    config.catalog,
    createUpstreams(config.catalog, {
      now: () => clock.now(),
      ...config.upstreamLimits,
      breakerStore: redis ? createRedisBreakerStore(redis, config.redisPrefix) : null,
      onBreakerStoreError: (err) => logger.warn({ err }, 'sharing upstream breakers through Redis failed'),
    }),
  );
  if (config.catalog.demo) {
    logger.warn(
      'no upstream provider is configured: every model is served by the built-in demo provider (canned answers marked ' +
        '`x-svc-demo: true`, billed as usual); configuring any upstream turns it off (docs/configuration.md)',
    );
  }
  const closeDb = overrides.database === undefined || overrides.closeDatabase === true;
  const apiKeys = await createApiKeyService({ db: database.db, clock, logger, cacheTtlMs: config.apiKeyCacheTtlMs, flushEveryMs: config.apiKeyLastUsedFlushMs, listen: database.listen });
  const marketFeed = await startMarketFeed(database.db, database.listen);
  const marketKeys = createApiKeyLookup({ db: database.db, keys: { current: secretsKey, previous: previousSecretsKeys }, clock });
  const stopFollowingMarketKeys = await followKeyRevocations(marketKeys, database.listen);
  const marketStream = new MarketStream(marketFeed, config.marketStream);
  const billing = createBilling(database.db, clock, {
    logger,
    flushMs: config.billing.flushMs,
    leaseIdleMs: config.billing.leaseIdleMs,
    staleAfterMs: config.billing.leaseStaleMs,
    renewEveryMs: Math.floor(config.billing.leaseStaleMs / 6),
    holdWaitMs: config.billing.holdWaitMs,
    // An embedded database has one user: whatever it holds belongs to a process that is gone.
    releaseAllAtStart: database.kind === 'pglite' && overrides.database === undefined,
  });
  // The gateway's per-account budgets are spent from memory, in batches reserved from Redis
  // (docs/operations.md, "Rate limits across instances"); market and sign-in limits ask Redis each time.
  const leased = (name: string, points: number) =>
    createLeasedRateLimiter({
      redis,
      name: `${config.redisPrefix}:${name}`,
      points,
      durationSeconds: 60,
      batch: config.rateLimits.batch,
      syncMs: 1000,
      // /health reports Redis down; per request, a warning would flood the log.
      onStoreError: (err) => logger.debug({ err }, 'rate limit: Redis failed, falling back to this instance alone'),
    });
  const inferenceLimiter = leased('inference', config.rateLimits.inferencePerMinute);
  const imagesLimiter = leased('images', config.rateLimits.imagesPerMinute);
  const mailer = createMailer({ smtpUrl: config.dashboard.smtpUrl, from: config.dashboard.mailFrom, dataDir: config.dataDir, logger });
  return {
    config,
    db: database.db,
    dbKind: database.kind,
    redis,
    logger,
    clock,
    adminToken: admin.value,
    secretsKey,
    previousSecretsKeys,
    recordSecretsKey: () => recordSharedSecret(database.db, { ...localSecrets, value: secrets.value }),
    marketKeys,
    chain: overrides.chain ?? (await createChainAdapter(config.chain)),
    marketFeed,
    marketStream,
    upstreams,
    limiters: {
      market: createRateLimiter({ redis, name: `${config.redisPrefix}:market`, points: config.rateLimits.marketPerMinute, durationSeconds: 60 }),
      inference: inferenceLimiter,
      images: imagesLimiter,
      auth: createRateLimiter({ redis, name: `${config.redisPrefix}:auth`, points: 10, durationSeconds: 600 }),
    },
    mailer,
    apiKeys,
    billing,
    async close() {
      await billing.close();
      // Unused reservations go back so the other instances can spend them this minute.
      await Promise.all([inferenceLimiter.close(), imagesLimiter.close()]);
      marketStream.close();
      await marketFeed.stop();
      await stopFollowingMarketKeys();
      mailer.close();
      await apiKeys.close();
      await upstreams.close();
      if (redis) redis.disconnect();
      if (closeDb) await database.close();
    },
  };
}

async function waitForRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(done, 5000);
    redis.once('ready', done);
  });
}
