import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import type { ResponseCache } from './response-cache.ts';

/** What every public read route needs. */
export interface ReadRouteOptions {
  readonly db: Db;
  readonly clock: Clock;
  /** Micro-cache of the hottest list answers (disabled unless MARKET_LIST_CACHE_MS is set). */
  readonly listCache: ResponseCache;
}

export const nowOf = (opts: ReadRouteOptions): Date => new Date(opts.clock.now());
