import { booksView } from '../market/admin/market-admin.views.ts';
import { auditBooks } from '../market/audit/audit-books.ts';
import { ConfigError, loadConfig } from '../config/index.ts';
import { openDatabase } from '../storage/database.ts';
import { DatabaseInUseError } from '../storage/pglite-lock.ts';
import { scriptArgs } from './cli-args.ts';
import { callHoldingService } from './service-target.ts';

// npm run audit [-- --json]: re-adds the market ledger of the configured database (DATABASE_URL,
// or the embedded one in DATA_DIR, through the running service's admin API when the service
// holds it) and checks the books. Exit 0 balanced, 1 not balanced, 2 when the check could not run.
type Books = ReturnType<typeof booksView>;

async function auditHere(databaseUrl: string | null, dataDir: string): Promise<Books | DatabaseInUseError> {
  let handle;
  try {
    handle = await openDatabase({ databaseUrl, dataDir });
  } catch (e) {
    if (e instanceof DatabaseInUseError) return e;
    throw e;
  }
  try {
    return booksView(await auditBooks(handle.db));
  } finally {
    await handle.close();
  }
}

const USAGE = `Usage: npm run audit [-- --json]

Re-adds the market ledger of DATABASE_URL or the embedded database in DATA_DIR (through the
running service's admin API when that service holds it) and checks the books.
Exit 0 balanced, 1 not balanced, 2 when the check could not run.

  --json       the whole report as JSON
  -h, --help   this text`;

const json = scriptArgs(USAGE, { json: { type: 'boolean' } }).json === true;
let exitCode = 2;
try {
  const config = loadConfig();
  const here = await auditHere(config.databaseUrl, config.dataDir);
  const report = here instanceof DatabaseInUseError ? ((await callHoldingService(here, 'GET', '/audit')) as Books) : here;
  const t = report.totals;
  if (json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    const where = config.databaseUrl ? new URL(config.databaseUrl).host + new URL(config.databaseUrl).pathname : `${config.dataDir} (embedded)`;
    console.log(`Books of ${where}: ${t.movements} movements, ${t.entries} entries, ${t.wallets_count} wallets, ${t.markets_count} markets (${t.settled_markets} settled).`);
    console.log(
      `wallets ${t.wallets} + escrow ${t.escrow} + fees ${t.fees} USDC; ` +
        `deposits ${t.deposits} - withdrawals ${t.withdrawals} = ${t.net_external} USDC.`,
    );
    if (report.balanced) console.log('Balanced.');
    else console.log(`NOT balanced, ${report.problems.length} problem(s):\n  ${report.problems.join('\n  ')}`);
  }
  exitCode = report.balanced ? 0 : 1;
} catch (e) {
  if ((e as { code?: unknown }).code === '42P01') console.error('The database has no market tables yet: run `npm run migrate` (or start the service) first.');
  else console.error(e instanceof ConfigError || e instanceof Error ? e.message : e);
}
process.exit(exitCode);
