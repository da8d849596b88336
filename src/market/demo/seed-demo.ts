import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { HttpError } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { auditBooks, type BooksReport } from '../audit/audit-books.ts';
import { createEvent, featureEvent } from '../events/events.admin.ts';
import { createMarket, featureMarket } from '../markets/markets.admin.ts';
import type { Outcome } from '../pricing/index.ts';
import { cancelMarket } from '../settlement/cancel-market.ts';
import { resolveMarket } from '../settlement/resolve-market.ts';
import { placeTrade } from '../trading/place-trade.ts';
import { depositToWallet } from '../wallets/deposit.ts';
import { DEMO_EVENTS, DEMO_STANDALONE, DEMO_USERNAMES, type DemoMarket } from './demo-catalog.ts';
import { seededRandom, type Random } from './random.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const USDC = 1_000_000n;

export interface SeedDemoOptions {
  /** Seed of the random choices (same seed, same demo). Default 42. */
  readonly seed?: number;
  /** "Now" of the demo in ms; the month of history ends here. Default the real time. */
  readonly now?: number;
  /** Trades to attempt over the month. Default 1500. */
  readonly trades?: number;
  readonly wallets?: number;
  readonly log?: (line: string) => void;
}

export interface SeedDemoSummary {
  readonly events: number;
  readonly markets: number;
  readonly wallets: number;
  readonly trades: number;
  /** Attempts dropped because the wallet had less than 1 USDC available. */
  readonly skipped: number;
  readonly resolved: number;
  readonly cancelled: number;
  readonly pending: number;
  readonly volume: bigint;
  readonly books: BooksReport;
}

/** seedDemo refuses a database that already holds market data. */
export class DatabaseNotEmptyError extends Error {}

interface LiveMarket {
  readonly id: number;
  readonly def: DemoMarket;
  readonly opensAt: number;
  readonly endsAt: number;
  settled: boolean;
  active: boolean;
}

type Action =
  | { readonly t: number; readonly kind: 'open'; readonly def: DemoMarket; readonly category: string; readonly eventId: number | null; readonly featured: boolean }
  | { readonly t: number; readonly kind: 'trade' }
  | { readonly t: number; readonly kind: 'topup' }
  | { readonly t: number; readonly kind: 'settle'; readonly title: string };

/**
 * Fills an empty database with a realistic month of market activity through the real code paths
 * (createMarket, depositToWallet, placeTrade, resolveMarket, cancelMarket) on a clock that walks
 * from 31 days ago to now, so prices have a history and 1h/1d/1w/1m changes. Reproducible for a
 * given seed and now. Refuses (DatabaseNotEmptyError) when events, markets or wallets exist.
 */
export async function seedDemo(db: Kysely<Database>, opts: SeedDemoOptions = {}): Promise<SeedDemoSummary> {
  await refuseNonEmpty(db);
  const rng = seededRandom(opts.seed ?? 42);
  const log = opts.log ?? (() => {});
  const now = opts.now ?? Date.now();
  const start = now - 31 * DAY;
  let time = start;
  const clock: Clock = { now: () => time };
  const at = (day: number) => now + day * DAY;

  // Events first, then every market opens at its own time.
  const actions: Action[] = [];
  let events = 0;
  let featuredEvent: number | null = null;
  for (const e of DEMO_EVENTS) {
    const row = await createEvent(db, clock, {
      title: e.title,
      description: e.description,
      category: e.category,
      end_date: e.endDay === null ? null : new Date(at(e.endDay)).toISOString(),
      image_url: `/images/events/${e.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.png`,
    });
    events++;
    if (e.featured) featuredEvent = row.id;
    e.markets.forEach((m, i) => actions.push({ t: openTime(m, i), kind: 'open', def: m, category: e.category, eventId: row.id, featured: false }));
  }
  DEMO_STANDALONE.forEach((m, i) =>
    actions.push({ t: openTime(m, i), kind: 'open', def: m, category: m.category, eventId: null, featured: m.featured === true }),
  );
  for (const m of [...DEMO_EVENTS.flatMap((e) => e.markets), ...DEMO_STANDALONE]) {
    if (m.fate.kind === 'resolve' || m.fate.kind === 'cancel') actions.push({ t: at(m.fate.day) + rng.int(1, 10) * HOUR, kind: 'settle', title: m.title });
  }

  // Wallets: operator deposits in the first two days; a few whales trade larger.
  const walletCount = opts.wallets ?? 50;
  const wallets: string[] = [];
  const walletWeights: number[] = [];
  // What each wallet can spend, kept here so a trade it cannot afford is not even attempted.
  const available = new Map<string, bigint>();
  const refreshAvailable = async () => {
    const rows = await db.selectFrom('wallets').select(['address', 'balance', 'locked']).execute();
    for (const r of rows) available.set(r.address, r.balance - r.locked);
  };
  for (let i = 0; i < walletCount; i++) {
    const address = `0x${rng.hex(40)}`;
    wallets.push(address);
    walletWeights.push(i % 10 === 0 ? 6 : 1 + rng.next() * 3);
    time = start + rng.int(0, 47) * HOUR + rng.int(0, 59) * 60_000;
    const amount = BigInt(rng.int(5, 60)) * 100n * USDC + BigInt(rng.int(0, 99)) * 10_000n;
    await depositToWallet(db, clock, { wallet: address, amount, note: 'demo: operator deposit' });
    available.set(address, amount);
    if (i < DEMO_USERNAMES.length) {
      await db.updateTable('wallets').set({ username: DEMO_USERNAMES[i]! }).where('address', '=', address).execute();
    }
  }

  // The month's trades: most spread evenly, some crowding the last two days and hour.
  const tradeCount = opts.trades ?? 1500;
  for (let i = 0; i < tradeCount; i++) {
    const r = rng.next();
    const t =
      r < 0.8 ? start + DAY + rng.next() * (30 * DAY - 5 * 60_000) : r < 0.97 ? now - 2 * DAY + rng.next() * (2 * DAY - 60_000) : now - HOUR + rng.next() * (HOUR - 60_000);
    actions.push({ t: Math.floor(t), kind: 'trade' });
  }
  for (let i = 0; i < Math.ceil(walletCount / 2); i++) actions.push({ t: start + 3 * DAY + Math.floor(rng.next() * 26 * DAY), kind: 'topup' });
  actions.sort((a, b) => a.t - b.t);

  const live: LiveMarket[] = [];
  let trades = 0;
  let skipped = 0;
  let resolved = 0;
  let cancelled = 0;
  let pending = 0;
  let volume = 0n;
  let featuredMarket: number | null = null;
  for (const action of actions) {
    time = Math.max(time, action.t);
    if (action.kind === 'open') {
      const m = action.def;
      const row = await createMarket(db, clock, {
        title: m.title,
        description: m.description,
        category: action.category,
        market_type: m.type,
        end_date: new Date(at(m.endDay)).toISOString(),
        event_id: action.eventId,
        status: m.fate.kind === 'pending' ? 'pending' : 'active',
        opening_prices: m.opening,
        outcome_labels: m.labels,
        image_url: m.image,
      });
      if (m.fate.kind === 'pending') pending++;
      if (action.featured) featuredMarket = row.id;
      live.push({ id: row.id, def: m, opensAt: time, endsAt: at(m.endDay), settled: false, active: m.fate.kind !== 'pending' });
    } else if (action.kind === 'settle') {
      const market = live.find((x) => x.def.title === action.title)!;
      const fate = market.def.fate;
      if (fate.kind === 'resolve') {
        await resolveMarket(db, clock, market.id, fate.outcome);
        resolved++;
      } else {
        await cancelMarket(db, clock, market.id);
        cancelled++;
      }
      market.settled = true;
      await refreshAvailable();
      log(`  ${fate.kind === 'resolve' ? `resolved ${fate.outcome}` : 'cancelled'}: ${market.def.title}`);
    } else if (action.kind === 'topup') {
      const w = rng.pick(wallets);
      const amount = BigInt(rng.int(1, 20)) * 50n * USDC;
      await depositToWallet(db, clock, { wallet: w, amount, note: 'demo: top-up' });
      available.set(w, available.get(w)! + amount);
    } else {
      const open = live.filter((m) => m.active && !m.settled && m.endsAt > time);
      if (open.length === 0) continue;
      const market = open[rng.weighted(open.map((m) => m.def.weight))]!;
      const wallet = wallets[rng.weighted(walletWeights)]!;
      const side = chooseSide(rng, market, time);
      const whale = walletWeights[wallets.indexOf(wallet)]! >= 6;
      let amount = usdcCents(Math.exp(rng.next() * Math.log(whale ? 800 : 150)));
      const spendable = available.get(wallet)!;
      if (spendable < USDC) {
        skipped++;
        continue;
      }
      if (amount > spendable) amount = spendable;
      try {
        const done = await placeTrade(db, clock, { wallet, marketId: market.id, side, amount });
        trades++;
        volume += amount;
        available.set(wallet, spendable - amount);
        if (trades % 500 === 0) log(`  ${trades} trades, last price ${done.new_yes_price.toFixed(3)} on ${market.def.title}`);
      } catch (e) {
        if (!(e instanceof HttpError) || e.status !== 400) throw e;
        skipped++;
      }
    }
  }

  time = now - HOUR;
  if (featuredEvent !== null) await featureEvent(db, clock, featuredEvent);
  if (featuredMarket !== null) await featureMarket(db, clock, featuredMarket);
  time = now;
  const books = await auditBooks(db);
  return { events, markets: live.length, wallets: wallets.length, trades, skipped, resolved, cancelled, pending, volume, books };

  function openTime(m: DemoMarket, i: number): number {
    return m.openDay === undefined ? start + (i + 1) * 10 * 60_000 + rng.int(0, 20) * HOUR : at(m.openDay);
  }
}

/**
 * The side a demo trader buys: traders lean toward the market's belief, which they discover
 * gradually over its life (from its opening price), with noise, so prices drift and wobble.
 */
function chooseSide(rng: Random, m: LiveMarket, time: number): Outcome {
  const life = Math.min(1, Math.max(0, (time - m.opensAt) / Math.max(1, Math.min(m.endsAt, time + 30 * DAY) - m.opensAt)));
  const wobble = (rng.next() - 0.5) * 0.3;
  if (typeof m.def.belief === 'number') {
    const opening = m.def.opening?.yes ?? 0.5;
    const p = opening + (m.def.belief - opening) * Math.sqrt(life) + wobble;
    return rng.next() < p ? 'yes' : 'no';
  }
  const [y, n, d] = m.def.belief;
  const i = rng.weighted([Math.max(0.01, y + wobble / 2), Math.max(0.01, n - wobble / 2), d]);
  return (['yes', 'no', 'draw'] as const)[i]!;
}

/** A USDC amount rounded to cents, at least 1 USDC, in units. */
function usdcCents(x: number): bigint {
  const cents = Math.max(100, Math.round(x * 100));
  return BigInt(cents) * 10_000n;
}

async function refuseNonEmpty(db: Kysely<Database>): Promise<void> {
  const r = await sql<{ events: number; markets: number; wallets: number }>`
    select (select count(*) from events)::int as events, (select count(*) from markets)::int as markets,
           (select count(*) from wallets)::int as wallets`.execute(db);
  const c = r.rows[0]!;
  if (c.events + c.markets + c.wallets > 0) {
    throw new DatabaseNotEmptyError(
      `the database already holds market data (${c.events} events, ${c.markets} markets, ${c.wallets} wallets); seed:demo only fills an empty one`,
    );
  }
}
