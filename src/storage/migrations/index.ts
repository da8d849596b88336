import type { Migration } from 'kysely';
import * as market from './2026_11_25_10_market.ts';
import * as marketReads from './2026_11_25_12_market_reads.ts';

/**
 * Every migration, by name; names sort in the order they run. Listed explicitly (not read from
 * the folder) so the same list works from TypeScript sources and from a build.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_25_10_market': market,
  '2026_11_25_12_market_reads': marketReads,
};
