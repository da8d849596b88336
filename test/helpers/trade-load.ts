/**
 * A load process for the crash test (run as `node --import tsx test/helpers/trade-load.ts`): on
 * the configured database (DATABASE_URL, or the embedded one in DATA_DIR) it places trades with
 * placeTrade, and now and then deposits and withdrawals, from LOAD_CONCURRENCY workers, forever,
 * until it is killed. After every 20 committed trades it prints `trades <n>` (n committed so far).
 */
import { loadConfig } from '../../src/config/index.ts';
import { inTransaction } from '../../src/market/market-transaction.ts';
import { placeTrade } from '../../src/market/trading/place-trade.ts';
import { depositToWallet } from '../../src/market/wallets/deposit.ts';
import { requestWithdrawal } from '../../src/market/withdrawals/request-withdrawal.ts';
import { completeWithdrawal, releaseWithdrawal } from '../../src/market/withdrawals/settle-withdrawal.ts';
import { HttpError } from '../../src/shared/errors.ts';
import { systemClock } from '../../src/shared/clock.ts';
import { openDatabase } from '../../src/storage/database.ts';

const markets = (process.env.LOAD_MARKETS ?? '').split(',').filter(Boolean).map(Number);
const wallets = (process.env.LOAD_WALLETS ?? '').split(',').filter(Boolean);
const concurrency = Number(process.env.LOAD_CONCURRENCY ?? '4');
if (markets.length === 0 || wallets.length === 0) throw new Error('LOAD_MARKETS and LOAD_WALLETS are required');

const config = loadConfig();
const { db } = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const UNIT = 1_000_000n;
let trades = 0;

async function step(): Promise<void> {
  const wallet = pick(wallets);
  const r = Math.random();
  if (r < 0.9) {
    const amount = UNIT + BigInt(Math.floor(Math.random() * 3_000_000));
    await placeTrade(db, systemClock, { wallet, marketId: pick(markets), side: Math.random() < 0.5 ? 'yes' : 'no', amount });
    trades++;
    if (trades % 20 === 0) process.stdout.write(`trades ${trades}\n`);
  } else if (r < 0.95) {
    await depositToWallet(db, systemClock, { wallet, amount: 5n * UNIT, note: 'load' });
  } else {
    const at = new Date();
    const { withdrawal } = await inTransaction(db, (trx) =>
      requestWithdrawal(trx, { wallet, amount: 2n * UNIT, chain: null, onChainAvailable: null, minUnits: UNIT, at }),
    );
    const open = (w: { status: string }) => w.status === 'pending';
    if (Math.random() < 0.5) await completeWithdrawal(db, withdrawal.id, { txHash: `load-${withdrawal.id}`, chain: 'evm', at, guard: open });
    else await releaseWithdrawal(db, withdrawal.id, { state: 'rejected', at, guard: open });
  }
}

async function worker(): Promise<never> {
  for (;;) {
    try {
      await step();
    } catch (e) {
      // Refusals (an empty wallet) are part of the load; anything else is a bug worth stopping for.
      if (!(e instanceof HttpError && e.status === 400)) {
        console.error('load step failed:', e);
        process.exit(1);
      }
    }
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
