import { loadConfig, ConfigError } from '../config/index.ts';
import { formatUsdc } from '../market/pricing/index.ts';
import { DatabaseNotEmptyError, seedDemo } from '../market/demo/seed-demo.ts';
import { migrateToLatest, openDatabase } from '../storage/database.ts';

// npm run seed:demo [-- --seed <n>]: a month of demo market activity on the configured database.
function seedArg(argv: string[]): number | undefined {
  const i = argv.indexOf('--seed');
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined || !/^\d+$/.test(v)) throw new Error('--seed takes a whole number');
  return Number(v);
}

let exitCode = 0;
try {
  const config = loadConfig();
  const seed = seedArg(process.argv.slice(2));
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(handle.db);
    const where = config.databaseUrl ? new URL(config.databaseUrl).host + new URL(config.databaseUrl).pathname : `${config.dataDir} (embedded)`;
    console.log(`Seeding demo market data into ${where}...`);
    const started = Date.now();
    const s = await seedDemo(handle.db, { seed, log: (line) => console.log(line) });
    console.log(
      `Done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${s.events} events, ${s.markets} markets ` +
        `(${s.resolved} resolved, ${s.cancelled} cancelled, ${s.pending} pending), ${s.wallets} wallets, ` +
        `${s.trades} trades for ${formatUsdc(s.volume)} USDC.`,
    );
    if (!s.books.balanced) {
      console.error(`The books do not balance:\n  ${s.books.problems.join('\n  ')}`);
      exitCode = 1;
    } else {
      console.log(`Books balanced: wallets ${formatUsdc(s.books.totals.wallets)} + escrow ${formatUsdc(s.books.totals.escrow)} + fees ${formatUsdc(s.books.totals.fees)} = deposits ${formatUsdc(s.books.totals.net_external)} USDC.`);
    }
  } finally {
    await handle.close();
  }
} catch (e) {
  if (e instanceof DatabaseNotEmptyError) console.error(`Not seeding: ${e.message}.`);
  else console.error(e instanceof ConfigError ? e.message : e);
  exitCode = 1;
}
process.exit(exitCode);
