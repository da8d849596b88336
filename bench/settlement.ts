/**
 * Settling a market with many positions: `npx tsx bench/settlement.ts`.
 *
 * On PGlite in memory, or on a fresh database of DATABASE_URL's server. For each size in
 * BENCH_POSITIONS (default `10,1000,5000`): funds that many wallets, has each stake on the
 * market (half yes, half no, a third of them on both sides), then resolves it to yes; 20 ms
 * after the resolve starts, the wallet with the lowest address (the first one settlement locks)
 * stakes on another market. Prints the resolve's wall time and its time per position, how long
 * that trade waited, and, as the same run's baseline, one trade's mean time during the set-up;
 * then checks the books. BENCH_ROUNDS (default 1) repeats each size.
 */
import { loadavg } from 'node:os';
import { auditBooks } from '../src/market/audit/audit-books.ts';
import { createMarket } from '../src/market/markets/markets.admin.ts';
import { resolveMarket } from '../src/market/settlement/resolve-market.ts';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { depositToWallet } from '../src/market/wallets/deposit.ts';
import { addr, manualClock, marketDatabase, USDC } from '../test/helpers/market.ts';

const SIZES = (process.env.BENCH_POSITIONS ?? '10,1000,5000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

const h = await marketDatabase();
const clock = manualClock(Date.now());
const end = () => new Date(clock.now() + 30 * 86_400_000).toISOString();
console.log(`settlement bench: ${h.url ? 'PostgreSQL server' : 'PGlite'}, node ${process.version}, load ${load()}`);

let next = 1;
for (const size of SIZES) {
  for (let round = 1; round <= ROUNDS; round++) {
    const market = await createMarket(h.db, clock, { title: `Settle ${size} ${round}`, category: 'bench', market_type: 'yesno', end_date: end() });
    const other = await createMarket(h.db, clock, { title: `Other ${size} ${round}`, category: 'bench', market_type: 'yesno', end_date: end() });
    const wallets = Array.from({ length: size }, () => addr(next++));
    for (const w of wallets) await depositToWallet(h.db, clock, { wallet: w, amount: 100n * USDC, note: 'bench' });
    let trades = 0;
    const t0 = performance.now();
    for (let i = 0; i < size; i++) {
      await placeTrade(h.db, clock, { wallet: wallets[i]!, marketId: market.id, side: i % 2 ? 'no' : 'yes', amount: 2n * USDC });
      trades++;
      if (i % 3 === 0) {
        await placeTrade(h.db, clock, { wallet: wallets[i]!, marketId: market.id, side: i % 2 ? 'yes' : 'no', amount: 1n * USDC });
        trades++;
      }
    }
    const perTrade = (performance.now() - t0) / trades;

    const first = wallets[0]!;
    const started = performance.now();
    const resolving = resolveMarket(h.db, clock, market.id, 'yes');
    // Sent once the resolve has locked the market and credited `first`: it waits for the resolve's commit.
    await new Promise((r) => setTimeout(r, 20));
    const tradeSent = performance.now();
    const trade = placeTrade(h.db, clock, { wallet: first, marketId: other.id, side: 'yes', amount: 1n * USDC }).then(() => performance.now());
    const summary = await resolving;
    const resolved = performance.now();
    const tradeDone = await trade;
    const ms = resolved - started;
    console.log(
      `  ${String(size).padStart(5)} positions (${summary.positions} rows, ${summary.positions_paid} paid), round ${round}: resolve ${ms.toFixed(1)} ms, ` +
        `${((ms * 1000) / summary.positions).toFixed(1)} µs per position; ` +
        `a trade of the first wallet on another market took ${(tradeDone - tradeSent).toFixed(1)} ms; ` +
        `one trade during set-up ${perTrade.toFixed(2)} ms (resolve = ${(ms / perTrade).toFixed(1)} trades)`,
    );
  }
}
const books = await auditBooks(h.db);
console.log(`books ${books.balanced ? 'balanced' : 'NOT balanced: ' + JSON.stringify(books.problems)}; load ${load()}`);
await h.close();
