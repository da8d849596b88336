import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { badRequest } from '../../shared/errors.ts';
import { PREPARED } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';
import { authError } from '../auth/auth.errors.ts';
import type { IdempotentRequest, StoredAnswer } from '../auth/idempotency.ts';
import { escrowAccount, walletAccount } from '../ledger/ledger.accounts.ts';
import { LedgerError } from '../ledger/check-movement.ts';
import { poolColumn, sharesColumn } from '../markets/market-row-pools.ts';
import type { MarketRow } from '../market.tables.ts';
import { marketTime } from '../markets/market-time.ts';
import { TRADING_COLUMNS, type TradingMarket } from '../markets/markets.repository.ts';
import { formatUsdc, type Outcome } from '../pricing/index.ts';
import { isWalletAddress, normalizeWalletAddress } from '../wallets/wallet-address.ts';
import { checkTrade } from './check-trade.ts';

export interface PlaceTradeInput {
  /** The trading wallet (any case; stored lower case). */
  readonly wallet: string;
  readonly marketId: number;
  /** `yes`, `no`, or `draw` on threeway markets (anything else is 400 `Invalid side`). */
  readonly side: string;
  /** The stake in units (micro-USDC). */
  readonly amount: bigint;
}

/** The `data` of POST /api/pool/trade: amounts and shares in USDC, prices after the trade. */
export interface TradeResult {
  readonly trade_id: number;
  readonly market_id: number;
  readonly side: Outcome;
  readonly amount: number;
  readonly shares: number;
  readonly price: number;
  readonly new_yes_price: number;
  readonly new_no_price: number;
  /** Threeway markets only. */
  readonly new_draw_price?: number;
  /** The wallet's available balance after the trade. */
  readonly remaining_balance: number;
  readonly pool: {
    readonly yes_pool: number;
    readonly no_pool: number;
    /** Threeway markets only. */
    readonly draw_pool?: number;
    readonly total_volume: number;
  };
}

/** One trade of a batch: what to place, and the Idempotency-Key it came with (or null). */
export interface TradeRequest extends PlaceTradeInput {
  readonly idempotency: IdempotentRequest | null;
}

/** A trade written by a batch, as the live market state and the stream need it. */
export interface CommittedTrade {
  readonly id: number;
  readonly marketId: number;
  readonly wallet: string;
  readonly outcome: Outcome;
  readonly amount: bigint;
  readonly shares: bigint;
  readonly price: number;
  readonly pricesAfter: { readonly yes: number; readonly no: number; readonly draw?: number };
  readonly at: Date;
}

/** How placeTradesIn takes its locks. */
export interface PlaceTradesOptions {
  /**
   * Leave out the trades of markets another transaction holds locked (answered MarketBusy)
   * instead of waiting for them: a batch of many markets is not held up by one market's long
   * transaction (a settlement). Default: wait.
   */
  readonly skipLockedMarkets?: boolean;
}

/** What became of one request of a batch, in request order. */
export type TradeSettled =
  | { readonly ok: true; readonly answer: StoredAnswer & { readonly replayed: boolean }; readonly trade: CommittedTrade | null }
  | { readonly ok: false; readonly error: unknown };

/** The wallet columns a trade reads, by address. */
interface LockedWallet {
  balance: bigint;
  locked: bigint;
}

/** A trade that passed every check against the batch's running state, not written yet. */
interface Planned {
  readonly index: number;
  readonly trade: Omit<CommittedTrade, 'id'>;
  readonly movementId: string;
  readonly result: Omit<TradeResult, 'trade_id'>;
}

/**
 * Places a batch of trades, on any markets, in the caller's transaction (group commit: the caller
 * commits once for all of them). In order:
 * 1. claims the Idempotency-Keys in one statement; a key answered before replays its answer and
 *    trades nothing, a key used with another body is 409;
 * 2. locks the batch's markets in id order, then its wallets in address order (the lock order of
 *    every money transaction: markets before wallets, each in one global order, so batches and
 *    settlements cannot deadlock), and reserves trade ids, in one statement; with
 *    `skipLockedMarkets`, a market another transaction holds is skipped and its trades are
 *    answered MarketBusy, trading nothing;
 * 3. checks and quotes each trade in request order against the running pools and balances, exactly
 *    as if the trades ran one after another; a refused trade (404, 400) changes nothing, so it
 *    cannot fail its neighbours;
 * 4. writes every accepted trade (trades, positions, two-entry ledger movements, wallet balances,
 *    the market's pools and escrow) and the answers of their keys in one statement, inside a
 *    SAVEPOINT; should that statement fail, it is rolled back to the savepoint and the trades are
 *    written one by one, each in a savepoint of its own, so an unexpected failure of one trade
 *    fails only that trade.
 * Refused trades' key claims are removed in the same statement, so a refused attempt is not
 * remembered (as when a lone trade's transaction rolls back).
 */
export async function placeTradesIn(
  trx: Transaction<Database>,
  clock: Clock,
  requests: readonly TradeRequest[],
  opts: PlaceTradesOptions = {},
): Promise<TradeSettled[]> {
  const now = new Date(clock.now());
  const settled: (TradeSettled | undefined)[] = requests.map(() => undefined);
  const claimed = await claimKeys(trx, requests, now, settled);

  const toTrade = requests.map((r, i) => ({ r, i, wallet: isWalletAddress(r.wallet) ? r.wallet.toLowerCase() : null })).filter((x) => settled[x.i] === undefined);
  if (toTrade.length === 0) return settled as TradeSettled[];
  for (const x of toTrade) {
    if (x.wallet === null) settled[x.i] = { ok: false, error: checkError(() => normalizeWalletAddress(x.r.wallet)) };
  }
  const valid = toTrade.filter((x) => settled[x.i] === undefined);
  const marketIds = [...new Set(valid.map((x) => x.r.marketId))].sort((a, b) => a - b);
  const wallets = [...new Set(valid.map((x) => x.wallet!))].sort();
  const skipLocked = opts.skipLockedMarkets === true;
  const locked = valid.length > 0 ? await lockBatch(trx, marketIds, wallets, valid.length, skipLocked) : { markets: new Map(), wallets: new Map(), ids: [] };
  // A market left out of the map is not there (its trades are 404, from checkTrade) or, when
  // skipping, locked by another transaction: a second look (rare) tells which.
  const missing = marketIds.filter((id) => !locked.markets.has(id));
  const busy = skipLocked && missing.length > 0 ? await existingMarkets(trx, missing) : new Set<number>();

  const at = marketTime(now.getTime(), locked.markets.values());
  const running = { markets: locked.markets, wallets: locked.wallets };
  const plans: Planned[] = [];
  for (const x of valid) {
    if (busy.has(x.r.marketId)) {
      settled[x.i] = { ok: false, error: new MarketBusy() };
      continue;
    }
    try {
      plans.push(plan(running, x.i, x.wallet!, x.r, at));
    } catch (e) {
      settled[x.i] = { ok: false, error: e };
    }
  }

  // Only the refused ones: a planned trade is not settled yet, and its key gets its answer.
  const refusedKeys = toTrade.filter((x) => settled[x.i]?.ok === false && claimed.has(x.i)).map((x) => requests[x.i]!.idempotency!);
  const written = await writeWithSavepoints(trx, plans, locked.ids, requests, at, refusedKeys);
  for (const w of written) {
    settled[w.plan.index] = w.error === undefined ? { ok: true, answer: { ...w.answer!, replayed: false }, trade: w.trade! } : { ok: false, error: w.error };
  }
  return settled.map((s) => s ?? { ok: false, error: new Error('placeTradesIn: a request was left unsettled') });
}

function checkError(fn: () => unknown): unknown {
  try {
    fn();
    return new Error('placeTradesIn: a check passed that must fail');
  } catch (e) {
    return e;
  }
}

/**
 * Claims the keys of the keyed requests (one insert; a second statement reads the keys that were
 * already there). Sets `settled` for replays and 409s; returns the indexes of new claims.
 */
async function claimKeys(trx: Transaction<Database>, requests: readonly TradeRequest[], now: Date, settled: (TradeSettled | undefined)[]): Promise<Set<number>> {
  const keyed = requests.map((r, i) => ({ k: r.idempotency, i })).filter((x): x is { k: IdempotentRequest; i: number } => x.k !== null);
  const claimed = new Set<number>();
  if (keyed.length === 0) return claimed;
  const inserted = await sql<{ principal: string; route: string; key: string }>`${PREPARED}
    insert into idempotency_keys (principal, route, key, request_sha256, created_at)
    select x.principal, x.route, x.key, x.sha, ${now}::timestamptz from unnest(${keyed.map((x) => x.k.principal)}::text[],
      ${keyed.map((x) => x.k.route)}::text[], ${keyed.map((x) => x.k.key)}::text[], ${keyed.map((x) => x.k.requestSha256)}::text[])
      as x(principal, route, key, sha)
    on conflict (principal, route, key) do nothing
    returning principal, route, key`.execute(trx);
  const fresh = new Set(inserted.rows.map((r) => keyId(r)));
  const seen = new Set<string>();
  const existing: { k: IdempotentRequest; i: number }[] = [];
  for (const x of keyed) {
    const id = keyId(x.k);
    // The batcher never puts one key twice in a batch; should it happen, the second waits its turn.
    if (seen.has(id)) settled[x.i] = { ok: false, error: authError('idempotencyInProgress') };
    else if (fresh.has(id)) claimed.add(x.i);
    else existing.push(x);
    seen.add(id);
  }
  if (existing.length === 0) return claimed;
  const rows = await sql<{ principal: string; route: string; key: string; request_sha256: string; response_status: number | null; response_json: string | null }>`${PREPARED}
    select principal, route, key, request_sha256, response_status, response_json from idempotency_keys
    where (principal, route, key) in (select * from unnest(${existing.map((x) => x.k.principal)}::text[],
      ${existing.map((x) => x.k.route)}::text[], ${existing.map((x) => x.k.key)}::text[]))`.execute(trx);
  const byId = new Map(rows.rows.map((r) => [keyId(r), r]));
  for (const x of existing) {
    const row = byId.get(keyId(x.k));
    // A row pruned between the two statements, or claimed and not yet answered: still in progress.
    if (!row || row.response_status === null || row.response_json === null) {
      settled[x.i] = row && row.request_sha256 !== x.k.requestSha256 ? { ok: false, error: authError('idempotencyBodyMismatch') } : { ok: false, error: authError('idempotencyInProgress') };
    } else if (row.request_sha256 !== x.k.requestSha256) {
      settled[x.i] = { ok: false, error: authError('idempotencyBodyMismatch') };
    } else {
      settled[x.i] = { ok: true, answer: { status: row.response_status, body: JSON.parse(row.response_json) as unknown, replayed: true }, trade: null };
    }
  }
  return claimed;
}

export const keyId = (k: { principal: string; route: string; key: string }): string => `${k.principal}\u0000${k.route}\u0000${k.key}`;

/**
 * Locks the given markets in id order (skipping those another transaction holds, when asked),
 * then the given wallets in address order, and reserves `count` trade ids: one statement, a row
 * per market locked (none when none is). The wallets and
 * ids come on the row of the smallest market id only: its CASE first evaluates
 * `(select min(id) from m)`, which reads, and so locks, every market before the wallets'
 * subquery runs.
 */
async function lockBatch(
  trx: Transaction<Database>,
  marketIds: readonly number[],
  wallets: readonly string[],
  count: number,
  skipLocked: boolean,
): Promise<{ markets: Map<number, Mutable<BatchMarket>>; wallets: Map<string, LockedWallet>; ids: number[] }> {
  const names = [...TRADING_COLUMNS, 'volume', 'created_at', 'last_trade_at'];
  const columns = sql.raw(names.map((c) => `m.${c}`).join(', '));
  const r = await sql<BatchMarket & { wallets: [string, string, string][] | null; ids: number[] | null }>`${PREPARED}
    with m as materialized (select ${sql.raw(names.join(', '))} from markets where id = any(${marketIds}::int[]) order by id ${sql.raw(skipLocked ? 'for update skip locked' : 'for update')})
    select ${columns},
      case when m.id = (select min(id) from m) then (select array_agg(array[w.address, w.balance::text, w.locked::text]) from (
        select address, balance, locked from wallets where address = any(${wallets}::text[]) order by address for update
      ) w) end as wallets,
      case when m.id = (select min(id) from m) then (select array_agg(nextval('trades_id_seq')::int) from generate_series(1, ${count}::int)) end as ids
    from m`.execute(trx);
  const markets = new Map<number, Mutable<BatchMarket>>();
  const map = new Map<string, LockedWallet>();
  let ids: number[] = [];
  for (const row of r.rows) {
    const { wallets: walletRows, ids: reserved, ...market } = row;
    markets.set(market.id, market);
    for (const [address, balance, lockedUnits] of walletRows ?? []) map.set(address, { balance: BigInt(balance), locked: BigInt(lockedUnits) });
    if (reserved) ids = [...reserved].sort((a, b) => a - b);
  }
  return { markets, wallets: map, ids };
}

/** Which of these markets exist (a plain read: it does not wait for their locks). */
async function existingMarkets(trx: Transaction<Database>, ids: readonly number[]): Promise<Set<number>> {
  const r = await sql<{ id: number }>`${PREPARED}select id from markets where id = any(${ids}::int[])`.execute(trx);
  return new Set(r.rows.map((row) => row.id));
}

/** The market columns a batch reads: the trading columns, the volume the answers show and the dates a trade follows. */
type BatchMarket = TradingMarket & Pick<MarketRow, 'created_at' | 'last_trade_at'> & { readonly volume: bigint };
type Mutable<T> = { -readonly [K in keyof T]: T[K] };


/** Checks and quotes one trade against the running state and applies it there. */
function plan(
  running: { markets: Map<number, Mutable<BatchMarket>>; wallets: Map<string, LockedWallet> },
  index: number,
  wallet: string,
  input: PlaceTradeInput,
  now: Date,
): Planned {
  const { market, quote } = checkTrade(running.markets.get(input.marketId), input.side, input.amount, now);
  const w = running.wallets.get(wallet);
  const available = w ? w.balance - w.locked : 0n;
  if (!w || available < quote.stake) throw badRequest('Insufficient balance');
  const side = quote.outcome;
  w.balance -= quote.stake;
  market[poolColumn(side)] += quote.stake;
  market[sharesColumn(side)] += quote.shares;
  market.volume += quote.stake;
  const threeway = market.market_type === 'threeway';
  const p = quote.pricesAfter;
  return {
    index,
    movementId: randomUUID(),
    trade: {
      marketId: market.id,
      wallet,
      outcome: side,
      amount: quote.stake,
      shares: quote.shares,
      price: quote.averagePrice,
      pricesAfter: threeway ? { yes: p.yes, no: p.no, draw: p.draw! } : { yes: p.yes, no: p.no },
      at: now,
    },
    result: {
      market_id: market.id,
      side,
      amount: formatUsdc(quote.stake),
      shares: formatUsdc(quote.shares),
      price: quote.averagePrice,
      new_yes_price: p.yes,
      new_no_price: p.no,
      ...(threeway ? { new_draw_price: p.draw! } : {}),
      remaining_balance: formatUsdc(w.balance - w.locked),
      pool: {
        yes_pool: formatUsdc(market.pool_yes),
        no_pool: formatUsdc(market.pool_no),
        ...(threeway ? { draw_pool: formatUsdc(market.pool_draw) } : {}),
        total_volume: formatUsdc(market.volume),
      },
    },
  };
}

/**
 * A trade not written because an earlier trade of its batch failed unexpectedly (its planned
 * prices assumed that trade): the batcher places it again on its own.
 */
export class RetryAlone extends Error {
  constructor() {
    super('an earlier trade of the batch failed');
    this.name = 'RetryAlone';
  }
}

/**
 * A trade left out of a batch that skips locked markets: another transaction holds its market.
 * The batcher places it again in a transaction that waits for that lock.
 */
export class MarketBusy extends Error {
  constructor() {
    super('the market is locked by another transaction');
    this.name = 'MarketBusy';
  }
}

interface Written {
  readonly plan: Planned;
  readonly trade?: CommittedTrade;
  readonly answer?: StoredAnswer;
  readonly error?: unknown;
}

/**
 * Writes the planned trades in one statement inside a savepoint; if it fails, rolls back to the
 * savepoint and writes them one by one, each in its own savepoint (a failed one is answered with
 * its error and the rest go on). The keys of refused trades, and then of trades not written, are
 * removed, so that their retries run as new (a planned trade with a key claimed it in this
 * transaction: any other keyed request was settled by claimKeys).
 */
async function writeWithSavepoints(
  trx: Transaction<Database>,
  plans: readonly Planned[],
  ids: readonly number[],
  requests: readonly TradeRequest[],
  now: Date,
  refusedKeys: readonly IdempotentRequest[],
): Promise<Written[]> {
  if (plans.length === 0) {
    if (refusedKeys.length > 0) await writeTrades(trx, [], requests, now, refusedKeys);
    return [];
  }
  const withIds = plans.map((p, k) => ({ plan: p, id: ids[k]! }));
  await sql`savepoint trade_batch`.execute(trx);
  try {
    const out = await writeTrades(trx, withIds, requests, now, refusedKeys);
    await sql`release savepoint trade_batch`.execute(trx);
    return out;
  } catch (batchError) {
    await sql`rollback to savepoint trade_batch`.execute(trx);
    if (plans.length === 1) return forgetUnwritten(trx, [{ plan: plans[0]!, error: batchError }], requests, now, refusedKeys);
  }
  // The batch statement failed: each trade alone, in its own savepoint. The prices and balances
  // were planned as if every trade succeeds, so once one fails the trades after it are not
  // written here: they are answered RetryAlone, and the batcher runs each in a transaction of its own.
  const out: Written[] = [];
  let failed = false;
  for (const one of withIds) {
    if (failed) {
      out.push({ plan: one.plan, error: new RetryAlone() });
      continue;
    }
    await sql`savepoint trade_one`.execute(trx);
    try {
      out.push(...(await writeTrades(trx, [one], requests, now, [])));
      await sql`release savepoint trade_one`.execute(trx);
    } catch (e) {
      await sql`rollback to savepoint trade_one`.execute(trx);
      out.push({ plan: one.plan, error: e });
      failed = true;
    }
  }
  return forgetUnwritten(trx, out, requests, now, refusedKeys);
}

/** Removes the keys of the refused trades and of the trades of `out` not written; returns `out`. */
async function forgetUnwritten(
  trx: Transaction<Database>,
  out: Written[],
  requests: readonly TradeRequest[],
  now: Date,
  refusedKeys: readonly IdempotentRequest[],
): Promise<Written[]> {
  const unwritten = out.flatMap((w) => (w.error === undefined ? [] : (requests[w.plan.index]!.idempotency ?? [])));
  const forget = [...refusedKeys, ...unwritten];
  if (forget.length > 0) await writeTrades(trx, [], requests, now, forget);
  return out;
}

/**
 * One statement: the trades (with their reserved ids), the positions (one upsert per market,
 * wallet and outcome), each trade's two ledger entries (its own movement), the wallets' balances,
 * each market's pools, shares, escrow, volume and trade count, the answers of the trades' keys,
 * and the removal of refused trades' keys. Checks that every wallet and market row was there.
 */
async function writeTrades(
  trx: Transaction<Database>,
  items: readonly { plan: Planned; id: number }[],
  requests: readonly TradeRequest[],
  now: Date,
  refusedKeys: readonly IdempotentRequest[],
): Promise<Written[]> {
  const trades = items.map((x) => ({ ...x.plan.trade, id: x.id }));
  const n = trades.length;
  // Per market: the stake and the shares added to each outcome (pool, shares), and the total.
  const perMarket = new Map<number, { pool: Record<Outcome, bigint>; shares: Record<Outcome, bigint>; total: bigint; n: number }>();
  const perWallet = new Map<string, bigint>();
  const perPosition = new Map<string, { marketId: number; wallet: string; outcome: Outcome; shares: bigint; cost: bigint }>();
  for (const t of trades) {
    let m = perMarket.get(t.marketId);
    if (!m) perMarket.set(t.marketId, (m = { pool: { yes: 0n, no: 0n, draw: 0n }, shares: { yes: 0n, no: 0n, draw: 0n }, total: 0n, n: 0 }));
    m.pool[t.outcome] += t.amount;
    m.shares[t.outcome] += t.shares;
    m.total += t.amount;
    m.n += 1;
    perWallet.set(t.wallet, (perWallet.get(t.wallet) ?? 0n) + t.amount);
    const k = `${t.marketId}:${t.wallet}:${t.outcome}`;
    const p = perPosition.get(k) ?? { marketId: t.marketId, wallet: t.wallet, outcome: t.outcome, shares: 0n, cost: 0n };
    p.shares += t.shares;
    p.cost += t.amount;
    perPosition.set(k, p);
  }
  // The answers are final once the trade ids are known, so the keys' answers go in the same statement.
  const written: Written[] = items.map((x, k) => {
    const data: TradeResult = { trade_id: x.id, ...x.plan.result };
    return { plan: x.plan, trade: trades[k]!, answer: { status: 200, body: { success: true, data } } };
  });
  const keyed = written.flatMap((w) => {
    const k = requests[w.plan.index]!.idempotency;
    return k ? [{ k, json: JSON.stringify(w.answer!.body) }] : [];
  });
  const str = (xs: readonly bigint[]) => xs.map(String);
  const positions = [...perPosition.values()];
  const walletList = [...perWallet];
  const marketList = [...perMarket];
  const byMarket = (f: (m: (typeof marketList)[number][1]) => bigint) => str(marketList.map(([, m]) => f(m)));
  const result = await sql<{ trades: number; positions: number; entries: number; wallets: number; markets: number; answered: number }>`${PREPARED}
    with t as (
      insert into trades (id, market_id, wallet, outcome, amount, shares, price, price_yes_after, price_no_after, price_draw_after, created_at)
      select x.id, x.market_id, x.wallet, x.outcome, x.amount, x.shares, x.price, x.y, x.n, x.d, ${now}::timestamptz
      from unnest(${trades.map((t) => t.id)}::int[], ${trades.map((t) => t.marketId)}::int[], ${trades.map((t) => t.wallet)}::text[],
        ${trades.map((t) => t.outcome)}::text[], ${str(trades.map((t) => t.amount))}::bigint[], ${str(trades.map((t) => t.shares))}::bigint[],
        ${trades.map((t) => t.price)}::float8[], ${trades.map((t) => t.pricesAfter.yes)}::float8[], ${trades.map((t) => t.pricesAfter.no)}::float8[],
        ${trades.map((t) => t.pricesAfter.draw ?? null)}::float8[]) as x(id, market_id, wallet, outcome, amount, shares, price, y, n, d)
      returning 1),
    p as (
      insert into positions (market_id, wallet, outcome, shares, cost_basis, created_at, updated_at)
      select x.market_id, x.wallet, x.outcome, x.shares, x.cost, ${now}::timestamptz, ${now}::timestamptz
      from unnest(${positions.map((p) => p.marketId)}::int[], ${positions.map((p) => p.wallet)}::text[], ${positions.map((p) => p.outcome)}::text[],
        ${str(positions.map((p) => p.shares))}::bigint[], ${str(positions.map((p) => p.cost))}::bigint[]) as x(market_id, wallet, outcome, shares, cost)
      on conflict (market_id, wallet, outcome) do update set shares = positions.shares + excluded.shares,
        cost_basis = positions.cost_basis + excluded.cost_basis, updated_at = excluded.updated_at
      returning 1),
    l as (
      insert into ledger_entries (movement_id, account, amount, type, wallet, market_id, trade_id, created_at)
      select x.movement_id, x.account, x.amount, 'trade', x.wallet, x.market_id, x.trade_id, ${now}::timestamptz
      from unnest(${items.flatMap((x) => [x.plan.movementId, x.plan.movementId])}::uuid[],
        ${trades.flatMap((t) => [walletAccount(t.wallet), escrowAccount(t.marketId)])}::text[],
        ${trades.flatMap((t) => [String(-t.amount), String(t.amount)])}::bigint[],
        ${trades.flatMap((t) => [t.wallet, t.wallet])}::text[], ${trades.flatMap((t) => [t.marketId, t.marketId])}::int[],
        ${trades.flatMap((t) => [t.id, t.id])}::int[])
        as x(movement_id, account, amount, wallet, market_id, trade_id)
      returning 1),
    w as (
      update wallets set balance = wallets.balance - x.amount, updated_at = ${now}::timestamptz
      from unnest(${walletList.map(([a]) => a)}::text[], ${str(walletList.map(([, v]) => v))}::bigint[]) as x(address, amount)
      where wallets.address = x.address
      returning 1),
    m as (
      update markets set escrow = escrow + x.total, pool_yes = pool_yes + x.py, shares_yes = shares_yes + x.sy,
        pool_no = pool_no + x.pn, shares_no = shares_no + x.sn, pool_draw = pool_draw + x.pd, shares_draw = shares_draw + x.sd,
        volume = volume + x.total, trade_count = trade_count + x.n, last_trade_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
      from unnest(${marketList.map(([id]) => id)}::int[], ${byMarket((m) => m.total)}::bigint[],
        ${byMarket((m) => m.pool.yes)}::bigint[], ${byMarket((m) => m.shares.yes)}::bigint[], ${byMarket((m) => m.pool.no)}::bigint[],
        ${byMarket((m) => m.shares.no)}::bigint[], ${byMarket((m) => m.pool.draw)}::bigint[], ${byMarket((m) => m.shares.draw)}::bigint[],
        ${marketList.map(([, m]) => m.n)}::int[]) as x(id, total, py, sy, pn, sn, pd, sd, n)
      where markets.id = x.id
      returning 1),
    k as (
      update idempotency_keys set response_status = 200, response_json = x.json, completed_at = ${now}::timestamptz
      from unnest(${keyed.map((x) => x.k.principal)}::text[], ${keyed.map((x) => x.k.route)}::text[], ${keyed.map((x) => x.k.key)}::text[],
        ${keyed.map((x) => x.json)}::text[]) as x(principal, route, key, json)
      where idempotency_keys.principal = x.principal and idempotency_keys.route = x.route and idempotency_keys.key = x.key
      returning 1),
    d as (
      delete from idempotency_keys where (principal, route, key) in (select * from unnest(${refusedKeys.map((k) => k.principal)}::text[],
        ${refusedKeys.map((k) => k.route)}::text[], ${refusedKeys.map((k) => k.key)}::text[]))
      returning 1)
    select (select count(*) from t)::int as trades, (select count(*) from p)::int as positions, (select count(*) from l)::int as entries,
      (select count(*) from w)::int as wallets, (select count(*) from m)::int as markets, (select count(*) from k)::int as answered`.execute(trx);
  const row = result.rows[0];
  if (n === 0) return [];
  if (!row || row.trades !== n || row.entries !== 2 * n || row.positions !== positions.length) throw new LedgerError('the trades were not all written');
  if (row.wallets !== walletList.length) throw new LedgerError('no wallet row for a trade');
  if (row.markets !== marketList.length) throw new LedgerError('no market row for a trade');
  if (row.answered !== keyed.length) throw new LedgerError('an Idempotency-Key claim was lost');
  return written;
}
