import { loadConfig, ConfigError } from '../config/index.ts';
import { seedSummaryView } from '../market/admin/demo-admin.routes.ts';
import { DatabaseNotEmptyError, seedDemo } from '../market/demo/seed-demo.ts';
import { migrateToLatest, openDatabase } from '../storage/database.ts';
import { DatabaseInUseError } from '../storage/pglite-lock.ts';
import { AdminApiError } from './admin/admin-client.ts';
import { scriptArgs } from './cli-args.ts';
import { callHoldingService } from './service-target.ts';

// npm run seed:demo [-- --seed <n>] [-- --trades <n>]: a month of demo market activity on the
// configured database, or through the running service's admin API when that service holds the
// embedded database.
const USAGE = `Usage: npm run seed:demo [-- --seed <n>] [-- --trades <n>]

Fills an empty market with a month of demo activity (events, markets, wallets, trades, some
settled), on DATABASE_URL or the embedded database in DATA_DIR, or through the running service's
admin API when that service holds the embedded database. Refused when the market holds data.

  --seed <n>     seed of the random choices (the same seed makes the same market)
  --trades <n>   how many trades to make
  -h, --help     this text`;

const options = scriptArgs(USAGE, { seed: { type: 'string' }, trades: { type: 'string' } });

function whole(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new Error(`--${name} takes a whole number`);
  return Number(v);
}

interface SeedArgs {
  seed?: number;
  trades?: number;
}

type SeedView = ReturnType<typeof seedSummaryView>;

async function seedHere(databaseUrl: string | null, dataDir: string, args: SeedArgs): Promise<SeedView | DatabaseInUseError> {
  let handle;
  try {
    handle = await openDatabase({ databaseUrl, dataDir });
  } catch (e) {
    if (e instanceof DatabaseInUseError) return e;
    throw e;
  }
  try {
    await migrateToLatest(handle.db);
    const where = databaseUrl ? new URL(databaseUrl).host + new URL(databaseUrl).pathname : `${dataDir} (embedded)`;
    console.log(`Seeding demo market data into ${where}...`);
    return seedSummaryView(await seedDemo(handle.db, { ...args, log: (line) => console.log(line) }));
  } finally {
    await handle.close();
  }
}

let exitCode = 0;
try {
  const config = loadConfig();
  const args: SeedArgs = {};
  const seed = whole('seed', options.seed);
  const trades = whole('trades', options.trades);
  if (seed !== undefined) args.seed = seed;
  if (trades !== undefined) args.trades = trades;
  const started = Date.now();
  const here = await seedHere(config.databaseUrl, config.dataDir, args);
  const s = here instanceof DatabaseInUseError ? ((await callHoldingService(here, 'POST', '/demo/seed', args)) as SeedView) : here;
  console.log(
    `Done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${s.events} events, ${s.markets} markets ` +
      `(${s.resolved} resolved, ${s.cancelled} cancelled, ${s.pending} pending), ${s.wallets} wallets, ` +
      `${s.trades} trades for ${s.volume} USDC.`,
  );
  const t = s.books.totals;
  if (!s.books.balanced) {
    console.error(`The books do not balance:\n  ${s.books.problems.join('\n  ')}`);
    exitCode = 1;
  } else {
    console.log(`Books balanced: wallets ${t.wallets} + escrow ${t.escrow} + fees ${t.fees} = deposits ${t.net_external} USDC.`);
  }
} catch (e) {
  if (e instanceof DatabaseNotEmptyError) console.error(`Not seeding: ${e.message}.`);
  else if (e instanceof AdminApiError && e.status === 409) console.error(`${e.message.replace(/^409: n/, 'N')}.`);
  else console.error(e instanceof ConfigError || e instanceof Error ? e.message : e);
  exitCode = 1;
}
process.exit(exitCode);
