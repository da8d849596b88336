import { booksView } from '../market/admin/market-admin.views.ts';
import { auditBooks } from '../market/audit/audit-books.ts';
import { formatUsdc } from '../market/pricing/index.ts';
import { ConfigError, loadConfig } from '../config/index.ts';
import { openDatabase } from '../storage/database.ts';
import { DatabaseInUseError } from '../storage/pglite-lock.ts';

// npm run audit [-- --json]: re-adds the market ledger of the configured database (DATABASE_URL,
// or the embedded one in DATA_DIR) and checks the books. Exit 0 balanced, 1 not balanced,
// 2 when the check could not run.
const json = process.argv.slice(2).includes('--json');
let exitCode = 2;
try {
  const config = loadConfig();
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const report = await auditBooks(handle.db);
    const t = report.totals;
    if (json) {
      console.log(JSON.stringify(booksView(report), null, 2));
    } else {
      const where = config.databaseUrl ? new URL(config.databaseUrl).host + new URL(config.databaseUrl).pathname : `${config.dataDir} (embedded)`;
      console.log(`Books of ${where}: ${t.movements} movements, ${t.entries} entries, ${t.wallets_count} wallets, ${t.markets_count} markets (${t.settled_markets} settled).`);
      console.log(
        `wallets ${formatUsdc(t.wallets)} + escrow ${formatUsdc(t.escrow)} + fees ${formatUsdc(t.fees)} USDC; ` +
          `deposits ${formatUsdc(t.deposits)} - withdrawals ${formatUsdc(t.withdrawals)} = ${formatUsdc(t.net_external)} USDC.`,
      );
      if (report.balanced) console.log('Balanced.');
      else console.log(`NOT balanced, ${report.problems.length} problem(s):\n  ${report.problems.join('\n  ')}`);
    }
    exitCode = report.balanced ? 0 : 1;
  } finally {
    await handle.close();
  }
} catch (e) {
  if (e instanceof ConfigError || e instanceof DatabaseInUseError) console.error(e.message);
  else if ((e as { code?: unknown }).code === '42P01') console.error('The database has no market tables yet: run `npm run migrate` (or start the service) first.');
  else console.error(e);
}
process.exit(exitCode);
