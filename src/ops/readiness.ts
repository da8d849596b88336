import type { Redis } from 'ioredis';
import type { Catalog, ModelType } from '../config/catalog.ts';
import { isModelAvailable } from '../inference/catalog/model-availability.ts';
import type { Logger } from '../shared/logger.ts';

export type CheckState = 'ok' | 'down';

export interface ReadinessReport {
  readonly status: 'ready' | 'unavailable';
  readonly checks: {
    readonly database: CheckState;
    /** Present when REDIS_URL is set. */
    readonly redis?: CheckState;
    /** Per model family of the catalog: whether at least one of its models has a configured upstream. */
    readonly upstreams: Partial<Record<ModelType, 'ok' | 'unconfigured'>>;
  };
}

export interface ReadinessDeps {
  /** `select 1`, or whatever proves the database answers. */
  readonly pingDatabase: () => Promise<void>;
  readonly redis: Redis | null;
  readonly catalog: Catalog;
  readonly logger: Logger;
  /** How long one check may take before it counts as down. */
  readonly timeoutMs?: number;
}

/**
 * What /readyz answers: each dependency a request needs, by name and state only. Driver messages
 * name hosts and ports, so they go to the log, never into the answer. The database and Redis
 * (when configured) decide readiness: without them no market or gateway request can complete.
 * Upstream families are reported from the configuration, not probed over the network: an
 * unconfigured family is the same on every instance started from the same settings, so taking
 * this one out of the load balancer would not help; the operator sees it here and in the log.
 */
export function createReadiness(deps: ReadinessDeps): () => Promise<ReadinessReport> {
  const timeoutMs = deps.timeoutMs ?? 2000;
  const upstreams = upstreamFamilies(deps.catalog);
  const check = async (name: string, probe: () => Promise<unknown>): Promise<CheckState> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        probe(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return 'ok';
    } catch (err) {
      deps.logger.warn({ err, dependency: name }, 'readiness check failed');
      return 'down';
    } finally {
      clearTimeout(timer);
    }
  };
  return async () => {
    const redis = deps.redis;
    const [database, redisState] = await Promise.all([
      check('database', deps.pingDatabase),
      redis ? check('redis', () => redis.ping()) : Promise.resolve(undefined),
    ]);
    const ready = database === 'ok' && redisState !== 'down';
    return {
      status: ready ? 'ready' : 'unavailable',
      checks: { database, ...(redisState ? { redis: redisState } : {}), upstreams },
    };
  };
}

function upstreamFamilies(catalog: Catalog): Partial<Record<ModelType, 'ok' | 'unconfigured'>> {
  const out: Partial<Record<ModelType, 'ok' | 'unconfigured'>> = {};
  for (const m of catalog.models.values()) {
    if (out[m.type] === 'ok') continue;
    out[m.type] = isModelAvailable(catalog, m) ? 'ok' : 'unconfigured';
  }
  return out;
}
