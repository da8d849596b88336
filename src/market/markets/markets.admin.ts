import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { badRequest, notFound } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import type { MarketType } from '../pricing/index.ts';
import { inTransaction } from '../market-transaction.ts';
import { openingSeeds, parseUsdcAmount } from '../pricing/index.ts';
import { slugify } from '../slugs/slugify.ts';
import { insertWithFreeSlug } from '../slugs/unique-slug.ts';
import {
  parseCategory,
  parseFutureEnd,
  parseDateTime,
  parseDescription,
  parseImageUrl,
  parseOutcomeLabels,
  parseTitle,
} from './market-fields.ts';
import type { MarketRow } from '../market.tables.ts';
import { isSettled, lockMarket, settledMessage } from './markets.repository.ts';
import { ADVISORY_LOCK, lockForTransaction } from '../../storage/advisory-locks.ts';

/** A new market's pools, shares and escrow: nothing staked yet. */
const EMPTY_BOOKS = {
  pool_yes: 0n,
  pool_no: 0n,
  pool_draw: 0n,
  shares_yes: 0n,
  shares_no: 0n,
  shares_draw: 0n,
  escrow: 0n,
  volume: 0n,
  trade_count: 0,
  last_trade_at: null,
  resolved_outcome: null,
  resolved_at: null,
  cancelled_at: null,
  settled_fee: null,
  settled_dust: null,
  settled_paid: null,
  featured_at: null,
} as const;

export interface CreateMarketInput {
  readonly title: string;
  readonly description?: string;
  /** Optional when the market belongs to an event: it then takes the event's category. */
  readonly category?: string;
  readonly market_type: MarketType;
  /** ISO 8601 date-time after now: trading stops then. */
  readonly end_date: string;
  readonly event_id?: number | null;
  /** Default `active`; a `pending` market trades only after activation. */
  readonly status?: 'pending' | 'active';
  /** `{yes, no[, draw]}` in (0, 1) summing to 1; default equal. */
  readonly opening_prices?: unknown;
  /** Virtual seed liquidity V in USDC (number or decimal text); default 100. */
  readonly seed_liquidity?: unknown;
  readonly outcome_labels?: Record<string, string>;
  readonly image_url?: string;
}

/**
 * Creates a market with its virtual seeds (docs/pool-arithmetic.md, "Outcomes and pools") and a unique
 * slug from its title. 400 naming the field on bad input; 400 `invalid event_id` for an event
 * that does not exist.
 */
export async function createMarket(db: Kysely<Database>, clock: Clock, input: CreateMarketInput): Promise<MarketRow> {
  const now = new Date(clock.now());
  const title = parseTitle(input.title);
  const endDate = parseFutureEnd(input.end_date, now);
  let category = input.category === undefined ? undefined : parseCategory(input.category);
  const eventId = input.event_id ?? null;
  if (eventId !== null) {
    const event = await db.selectFrom('events').select(['id', 'category', 'status']).where('id', '=', eventId).executeTakeFirst();
    if (!event) throw badRequest(`invalid event_id: no event ${eventId}`);
    if (event.status !== 'active') throw badRequest(`invalid event_id: event ${eventId} is resolved`);
    category ??= event.category;
  }
  if (category === undefined) throw badRequest('missing required field: category');
  const seeds = openingSeeds(input.market_type, {
    prices: input.opening_prices,
    liquidity: input.seed_liquidity === undefined ? undefined : parseUsdcAmount(input.seed_liquidity, 'seed_liquidity'),
  });
  const values = {
    event_id: eventId,
    title,
    description: parseDescription(input.description),
    category,
    market_type: input.market_type,
    status: input.status ?? 'active',
    image_url: parseImageUrl(input.image_url),
    end_date: endDate,
    outcome_labels: JSON.stringify(parseOutcomeLabels(input.market_type, input.outcome_labels)),
    seed_yes: seeds.yes,
    seed_no: seeds.no,
    seed_draw: seeds.draw ?? 0n,
    ...EMPTY_BOOKS,
    created_at: now,
    updated_at: now,
  };
  const base = slugify(title, 'market');
  if (eventId === null) {
    return insertWithFreeSlug(db, 'markets', base, (slug) => db.insertInto('markets').values({ ...values, slug }).returningAll().executeTakeFirstOrThrow());
  }
  // The event is read again under a share lock after the insert, in the insert's transaction: the
  // settlement of its last market locks the event row to mark it resolved, so either that
  // settlement counts this market or this create sees the event resolved and writes nothing
  // (docs/api-decisions.md, "Market API: eighth audit").
  return insertWithFreeSlug(db, 'markets', base, (slug) =>
    inTransaction(db, async (trx) => {
      const row = await trx.insertInto('markets').values({ ...values, slug }).returningAll().executeTakeFirstOrThrow();
      const event = await trx.selectFrom('events').select('status').where('id', '=', eventId).forShare().executeTakeFirst();
      if (event?.status !== 'active') throw badRequest(`invalid event_id: event ${eventId} is resolved`);
      return row;
    }),
  );
}

export interface EditMarketInput {
  readonly title?: string;
  readonly description?: string;
  readonly category?: string;
  readonly end_date?: string;
  readonly image_url?: string;
  readonly outcome_labels?: Record<string, string>;
}

/**
 * Edits the descriptive fields of a market that is not settled (the slug stays, so links keep
 * working). Moving end_date into the past closes trading early.
 */
export async function editMarket(db: Kysely<Database>, clock: Clock, id: number, input: EditMarketInput): Promise<MarketRow> {
  const changes = {
    ...(input.title !== undefined ? { title: parseTitle(input.title) } : {}),
    ...(input.description !== undefined ? { description: parseDescription(input.description) } : {}),
    ...(input.category !== undefined ? { category: parseCategory(input.category) } : {}),
    ...(input.end_date !== undefined ? { end_date: parseDateTime(input.end_date) } : {}),
    ...(input.image_url !== undefined ? { image_url: parseImageUrl(input.image_url) } : {}),
  };
  if (Object.keys(changes).length === 0 && input.outcome_labels === undefined) {
    throw badRequest('nothing to change: give title, description, category, end_date, image_url or outcome_labels');
  }
  return inTransaction(db, async (trx) => {
    const market = await lockMarket(trx, id);
    if (!market) throw notFound('Market not found');
    if (isSettled(market.status)) throw badRequest(settledMessage(market.status));
    const labels = input.outcome_labels === undefined ? {} : { outcome_labels: JSON.stringify(parseOutcomeLabels(market.market_type, input.outcome_labels)) };
    return trx
      .updateTable('markets')
      .set({ ...changes, ...labels, updated_at: new Date(clock.now()) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/**
 * Opens a pending market to trading. 400 `Market already active` or already settled, and 400 when
 * its end_date has passed: it would be listed as active and refuse every trade (`Market has
 * ended`), so the operator moves end_date first (docs/api-decisions.md, "Market API: ninth audit").
 */
export async function activateMarket(db: Kysely<Database>, clock: Clock, id: number): Promise<MarketRow> {
  return inTransaction(db, async (trx) => {
    const market = await lockMarket(trx, id);
    if (!market) throw notFound('Market not found');
    if (isSettled(market.status)) throw badRequest(settledMessage(market.status));
    if (market.status === 'active') throw badRequest('Market already active');
    if (clock.now() >= market.end_date.getTime()) {
      throw badRequest(`Market has ended (end_date ${market.end_date.toISOString()}): move end_date into the future before activating it`);
    }
    return trx
      .updateTable('markets')
      .set({ status: 'active', updated_at: new Date(clock.now()) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** Makes this the one featured market (GET /api/markets/featured); a settled one is refused. */
export async function featureMarket(db: Kysely<Database>, clock: Clock, id: number): Promise<MarketRow> {
  return inTransaction(db, async (trx) => {
    const now = new Date(clock.now());
    const market = await lockMarket(trx, id);
    if (!market) throw notFound('Market not found');
    if (isSettled(market.status)) throw badRequest(settledMessage(market.status));
    await lockForTransaction(trx, ADVISORY_LOCK.featuredMarket);
    await trx.updateTable('markets').set({ featured_at: null }).where('featured_at', 'is not', null).where('id', '<>', id).execute();
    return trx.updateTable('markets').set({ featured_at: now, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  });
}

/**
 * Ends this market's featuring (DELETE /admin/markets/:id/feature): GET /api/markets/featured
 * then answers null until another is featured, as when a featured market settles. A market that
 * is not featured, settled or not, is answered as it is (a retry of the call changes nothing).
 */
export async function unfeatureMarket(db: Kysely<Database>, clock: Clock, id: number): Promise<MarketRow> {
  const now = new Date(clock.now());
  const row = await db
    .updateTable('markets')
    .set({ featured_at: null, updated_at: now })
    .where('id', '=', id)
    .where('featured_at', 'is not', null)
    .returningAll()
    .executeTakeFirst();
  if (row) return row;
  const market = await db.selectFrom('markets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!market) throw notFound('Market not found');
  return market;
}
