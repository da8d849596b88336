import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { buildCatalog, withDemoUpstream, type Catalog } from './catalog.ts';
import { loadChainConfig, type ChainConfig } from './chain.ts';
import { ConfigError } from './config-error.ts';
import { loadCustodyConfig, type CustodyConfig } from './custody.ts';
import { loadResponsesConfig, type ResponsesConfig } from './responses.ts';
import { checkPreviousSecretsKeysEnv, checkSecretsKeyEnv } from './secrets.ts';

export { ConfigError } from './config-error.ts';
export type * from './catalog.ts';
export type * from './chain.ts';
export type * from './custody.ts';
export type * from './responses.ts';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** null: embedded PostgreSQL (PGlite) in dataDir. */
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  readonly redisUrl: string | null;
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  readonly redisPrefix: string;
  readonly configFile: string;
  /** null: generated on first start and kept in dataDir. */
  readonly adminToken: string | null;
  /** Base64 AES-256 key sealing stored secrets; null: generated on first start and kept in dataDir. */
  readonly secretsKey: string | null;
  /** Base64 keys secretsKey replaced: they open what they sealed, and seal nothing (key rotation). */
  readonly secretsKeyPrevious: readonly string[];
  readonly rateLimits: {
    readonly inferencePerMinute: number;
    readonly imagesPerMinute: number;
    readonly marketPerMinute: number;
    /**
     * With Redis, the most of an account's inference or images budget an instance reserves in
     * one round trip and then admits from memory; 1 asks Redis on every request.
     */
    readonly batch: number;
  };
  /**
   * How long an API key lookup is trusted in memory: the bound on how long another instance
   * keeps accepting a revoked key (the instance that revokes forgets it at once).
   */
  readonly apiKeyCacheTtlMs: number;
  /** How often an instance writes the `last_used_at` times it noted (a hint, batched). */
  readonly apiKeyLastUsedFlushMs: number;
  /** Inference billing: credit leases and charges written behind (docs/decisions-accounts.md). */
  readonly billing: {
    /** Delay of the group commit of charges and usage records: the crash window. */
    readonly flushMs: number;
    /** A credit lease with no request for this long goes back to the account. */
    readonly leaseIdleMs: number;
    /** A lease its instance stopped renewing for this long is released by any instance's sweep. */
    readonly leaseStaleMs: number;
    /**
     * The longest a request short of credits waits for the holds of its account's requests in
     * flight to give credits back before 402 (0: 402 at once).
     */
    readonly holdWaitMs: number;
  };
  /**
   * How many proxies of the operator's own stand in front (0: none, X-Forwarded-For ignored).
   * The client address is the entry the outermost of them (the one clients connect to) appended,
   * counted from the right: a client writes what it likes into the entries before it
   * (docs/configuration.md).
   */
  readonly trustProxyHops: number;
  readonly logLevel: string;
  readonly bodyLimitBytes: number;
  readonly requestTimeoutMs: number;
  /**
   * At shutdown, how long requests in flight (long streams) may run on before their connections
   * are closed; the process exits at most 10 s after (src/http/close-connections.ts).
   */
  readonly shutdownGraceMs: number;
  /** GET /api/stream: limits of the market's Server-Sent Events stream (docs/market-live.md, "Stream"). */
  readonly marketStream: {
    readonly perIp: number;
    readonly heartbeatMs: number;
    /** Events kept for Last-Event-ID resume. */
    readonly replayEvents: number;
    /** Bytes a reader may leave unread before it is cut off. */
    readonly maxBufferedBytes: number;
  };
  /** How long Idempotency-Key answers are kept before the upkeep job prunes them. */
  readonly idempotencyTtlMs: number;
  /** Bounds on what one upstream answer may hold in memory; past them the call fails over. */
  readonly upstreamLimits: {
    /** A whole (non-streamed, or JSON instead of a stream) 2xx answer. */
    readonly maxAnswerBytes: number;
    /** One server-sent event of a stream, until its end. */
    readonly maxEventBytes: number;
  };
  readonly catalog: Catalog;
  /** Where deposits are verified and withdrawals paid; `none` leaves both to the operator. */
  readonly chain: ChainConfig;
  /** Withdrawal minimum and the periodic check of sent withdrawals. */
  readonly custody: CustodyConfig;
  /** /v1/responses storage retention and MCP tool bounds. */
  readonly responses: ResponsesConfig;
  readonly dashboard: DashboardConfig;
}

/** The account dashboard: links in emails, mail delivery, Stripe top-up (off without keys). */
export interface DashboardConfig {
  /** The address people reach the service at, for links in emails; default http://localhost:PORT. */
  readonly publicUrl: string;
  /** null: emails are written to DATA_DIR/outbox and their links logged. */
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  /** null when STRIPE_SECRET_KEY or STRIPE_WEBHOOK_SECRET is unset: top-up is hidden. */
  readonly stripe: { readonly secretKey: string; readonly webhookSecret: string; readonly apiBase: string | null } | null;
}

export const DEFAULT_CONFIG_FILE = fileURLToPath(new URL('../../config/default.yaml', import.meta.url));

type Env = NodeJS.ProcessEnv;

function str(env: Env, key: string, def: string): string {
  const v = env[key];
  return v === undefined || v === '' ? def : v;
}

function int(env: Env, key: string, def: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(key, `expected a whole number, got ${JSON.stringify(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(key, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, key: string): boolean {
  const raw = (env[key] ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false' || raw === 'no' || raw === 'off') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes' || raw === 'on') return true;
  throw new ConfigError(key, `expected true or false, got ${JSON.stringify(env[key])}`);
}

/** `false` (0), `true` (one proxy: a load balancer), or how many proxies, 1 to 10 (a CDN before it, ...). */
function proxyHops(env: Env, key: string): number {
  const raw = (env[key] ?? '').trim();
  if (/^(10|[1-9])$/.test(raw)) return Number(raw);
  try {
    return bool(env, key) ? 1 : 0;
  } catch {
    throw new ConfigError(key, `expected true, false or a number of proxies from 1 to 10, got ${JSON.stringify(env[key])}`);
  }
}

function url(env: Env, key: string, schemes: string[]): string | null {
  const raw = env[key];
  if (raw === undefined || raw === '') return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(key, 'not a valid URL');
  }
  if (!schemes.includes(u.protocol)) throw new ConfigError(key, `expected a ${schemes.join(' or ')} URL`);
  return raw;
}

export function readCatalogFile(path: string, env: Env): Catalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError('CONFIG_FILE', `cannot read ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new ConfigError('CONFIG_FILE', `not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  return buildCatalog(raw, env);
}

function demoUpstream(env: Env): boolean {
  const v = str(env, 'DEMO_UPSTREAM', 'auto');
  if (v !== 'auto' && v !== 'off') throw new ConfigError('DEMO_UPSTREAM', `expected auto or off, got ${JSON.stringify(v)}`);
  return v === 'auto';
}

/** The only reader of the environment. Throws ConfigError naming the first bad key. */
export function loadConfig(env: Env = process.env): Config {
  const configFile = str(env, 'CONFIG_FILE', DEFAULT_CONFIG_FILE);
  const adminToken = env.ADMIN_TOKEN?.trim() || null;
  if (adminToken !== null && adminToken.length < 16) throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  const logLevel = str(env, 'LOG_LEVEL', 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `unknown level ${logLevel}`);
  }
  return Object.freeze({
    port: int(env, 'PORT', 8080, 0, 65535),
    host: str(env, 'HOST', '0.0.0.0'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: str(env, 'DATA_DIR', './data'),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: str(env, 'REDIS_PREFIX', 'svc'),
    configFile,
    adminToken,
    secretsKey: checkSecretsKeyEnv(env.SECRETS_KEY),
    secretsKeyPrevious: checkPreviousSecretsKeysEnv(env.SECRETS_KEY_PREVIOUS),
    rateLimits: Object.freeze({
      inferencePerMinute: int(env, 'RATE_LIMIT_INFERENCE_PER_MINUTE', 60, 1, 1_000_000),
      imagesPerMinute: int(env, 'RATE_LIMIT_IMAGES_PER_MINUTE', 10, 1, 1_000_000),
      marketPerMinute: int(env, 'RATE_LIMIT_MARKET_PER_MINUTE', 200, 1, 1_000_000),
      batch: int(env, 'RATE_LIMIT_BATCH', 100, 1, 10_000),
    }),
    apiKeyCacheTtlMs: int(env, 'API_KEY_CACHE_TTL_MS', 5000, 0, 60_000),
    apiKeyLastUsedFlushMs: int(env, 'API_KEY_LAST_USED_FLUSH_MS', 10_000, 100, 3_600_000),
    billing: Object.freeze({
      flushMs: int(env, 'BILLING_FLUSH_MS', 50, 0, 1000),
      leaseIdleMs: int(env, 'CREDIT_LEASE_IDLE_MS', 5000, 100, 600_000),
      leaseStaleMs: int(env, 'CREDIT_LEASE_STALE_MS', 60_000, 5000, 3_600_000),
      holdWaitMs: int(env, 'CREDIT_HOLD_WAIT_MS', 30_000, 0, 600_000),
    }),
    trustProxyHops: proxyHops(env, 'TRUST_PROXY'),
    logLevel,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 600_000, 1000, 3_600_000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 20_000, 0, 600_000),
    marketStream: {
      perIp: int(env, 'MARKET_STREAM_PER_IP', 20, 1, 100_000),
      heartbeatMs: int(env, 'MARKET_STREAM_HEARTBEAT_MS', 15_000, 100, 600_000),
      replayEvents: int(env, 'MARKET_STREAM_REPLAY_EVENTS', 10_000, 0, 1_000_000),
      maxBufferedBytes: int(env, 'MARKET_STREAM_MAX_BUFFERED_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    },
    idempotencyTtlMs: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 24 * 365) * 3_600_000,
    upstreamLimits: Object.freeze({
      // The largest legitimate answers are embeddings: 2,048 vectors of 3,072 floats as
      // pretty-printed JSON are about 150 MB.
      maxAnswerBytes: int(env, 'UPSTREAM_MAX_ANSWER_BYTES', 256 * 1024 * 1024, 1024, 512 * 1024 * 1024),
      maxEventBytes: int(env, 'UPSTREAM_MAX_EVENT_BYTES', 16 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    }),
    catalog: demoUpstream(env) ? withDemoUpstream(readCatalogFile(configFile, env)) : readCatalogFile(configFile, env),
    chain: loadChainConfig(env),
    custody: loadCustodyConfig(env),
    responses: loadResponsesConfig(env),
    dashboard: loadDashboardConfig(env, int(env, 'PORT', 8080, 0, 65535)),
  });
}

function loadDashboardConfig(env: Env, port: number): DashboardConfig {
  const publicUrl = (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const secretKey = env.STRIPE_SECRET_KEY?.trim() || null;
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET?.trim() || null;
  if ((secretKey === null) !== (webhookSecret === null)) {
    throw new ConfigError(secretKey ? 'STRIPE_WEBHOOK_SECRET' : 'STRIPE_SECRET_KEY', 'set both STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or neither');
  }
  return Object.freeze({
    publicUrl,
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: str(env, 'MAIL_FROM', 'svc <no-reply@localhost>'),
    stripe: secretKey && webhookSecret ? { secretKey, webhookSecret, apiBase: url(env, 'STRIPE_API_BASE', ['http:', 'https:']) } : null,
  });
}
