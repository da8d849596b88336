import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { formatUsdc, poolPrices } from '../pricing/index.ts';
import { MARKET_COLUMNS, type MarketReadRow } from './market-row.ts';
import { poolsOf } from '../markets/market-row-pools.ts';
import { containsPattern, eventMatchesTerms, marketMatchesTerms, searchTerms } from './search-terms.ts';

/**
 * GET /api/search: markets whose title, description, category or event title, and events whose
 * title, description or category contain every word of `q` (case-insensitive). Results whose
 * title contains the whole query come first, then by volume (markets) or recency (events).
 */
export async function search(db: Db, q: string, limit: number) {
  const terms = searchTerms(q);
  const whole = containsPattern(q.trim());
  const [markets, events] = await Promise.all([
    sql<MarketReadRow>`select ${MARKET_COLUMNS} from markets m where ${marketMatchesTerms(terms)}
      order by (lower(m.title) like lower(${whole})) desc, m.volume desc, m.id desc limit ${limit}`.execute(db),
    sql<{ id: number; title: string; slug: string; markets_count: number }>`
      select e.id, e.title, e.slug, (select count(*)::int from markets m where m.event_id = e.id) as markets_count
      from events e where ${eventMatchesTerms(terms)}
      order by (lower(e.title) like lower(${whole})) desc, e.created_at desc, e.id desc limit ${limit}`.execute(db),
  ]);
  return {
    markets: markets.rows.map((m) => ({
      id: m.id,
      title: m.title,
      category: m.category,
      yes_price: poolPrices(poolsOf(m)).yes,
      volume: formatUsdc(m.volume),
      status: m.status,
    })),
    events: events.rows,
  };
}
