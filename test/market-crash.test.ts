import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { sha256Hex } from '../src/market/auth/digest.ts';
import { buildWalletMessage } from '../src/market/auth/wallet-message.ts';
import { createMarket } from '../src/market/markets/markets.admin.ts';
import { depositToWallet } from '../src/market/wallets/deposit.ts';
import { systemClock } from '../src/shared/clock.ts';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../src/storage/database.ts';
import { freshDatabase } from './helpers/database.ts';
import { addr, USDC } from './helpers/market.ts';
import { waitFor } from './helpers/wait.ts';

/**
 * SIGKILL in the middle of money-moving load, on the embedded database (a DATA_DIR) and on a
 * PostgreSQL server: after a restart, `npm run audit` must find the books balanced and every
 * record whole (a trade with its ledger movement and position, a withdrawal with its lock or its
 * movement), and every trade the load saw committed must still be there.
 */
const ADMIN_TOKEN = 'crash-test-admin-token-0123456789';
const TRADERS = Array.from({ length: 12 }, (_, i) => addr(0xc0de00 + i));
const onServer = Boolean(process.env.DATABASE_URL);

interface Proc {
  readonly child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Waits until `ready()` holds (`what`), failing early if the process exits, and after two
 * minutes with what it waited for and the end of the process's output.
 */
async function until(p: Proc, what: string, ready: () => boolean | Promise<boolean>): Promise<void> {
  let exited = false;
  void p.exited.then(() => (exited = true));
  await waitFor(
    async () => {
      if (await ready()) return true;
      if (exited) throw new Error(`process exited early, waiting for ${what}:\n${p.output()}`);
      return false;
    },
    { timeoutMs: 120_000, everyMs: 50, message: () => `${what}; the process's output ends:\n${p.output().slice(-2000)}` },
  );
}

async function startService(env: Record<string, string>): Promise<Proc & { url: string }> {
  const port = await freePort();
  const p = run(['src/main.ts'], { ...env, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN, RATE_LIMIT_MARKET_PER_MINUTE: '1000000' });
  const url = `http://127.0.0.1:${port}`;
  await until(p, `the service answering ${url}/healthz`, async () => {
    try {
      return (await fetch(`${url}/healthz`)).ok;
    } catch {
      return false;
    }
  });
  return Object.assign(p, { url });
}

async function kill9(p: Proc): Promise<void> {
  p.child.kill('SIGKILL');
  const code = await p.exited;
  assert.equal(code, null, 'killed by the signal, not exited');
}

const lastCount = (out: string) => Math.max(0, ...[...out.matchAll(/^trades (\d+)$/gm)].map((m) => Number(m[1])));

/** `npm run audit`'s command. */
async function audit(env: Record<string, string>): Promise<{ status: number | null; out: string }> {
  const p = run(['src/cli/audit.ts'], env);
  const status = await p.exited;
  return { status, out: p.output() };
}

/** Markets and funded traders, written before any load starts. */
async function prepare(h: DatabaseHandle, wallets: readonly string[]): Promise<number[]> {
  await migrateToLatest(h.db);
  const end = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const ids: number[] = [];
  for (let i = 0; i < 4; i++) {
    ids.push((await createMarket(h.db, systemClock, { title: `Crash market ${i}`, category: 'test', market_type: i === 3 ? 'threeway' : 'yesno', end_date: end })).id);
  }
  for (const w of wallets) await depositToWallet(h.db, systemClock, { wallet: w, amount: 200n * USDC, note: 'crash test funding' });
  return ids;
}

/** Signed withdrawals, admin deposits and operator completions through the service's HTTP API, until stopped. */
function httpMoneyLoad(url: string, accounts: readonly PrivateKeyAccount[]) {
  let stopped = false;
  let done = 0;
  const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  async function one(account: PrivateKeyAccount, n: number): Promise<void> {
    const wallet = account.address.toLowerCase();
    const r = n % 3;
    if (r === 0) {
      await fetch(`${url}/admin/wallets/${wallet}/deposit`, { method: 'POST', headers: adminHeaders, body: JSON.stringify({ amount: '3', note: `load ${n}` }) });
    } else if (r === 1) {
      const body = JSON.stringify({ wallet_addr: wallet, amount: `1.${String(n).padStart(6, '0')}` });
      const ts = Math.floor(Date.now() / 1000);
      const message = buildWalletMessage({ wallet, timestamp: ts, method: 'POST', path: '/api/pool/withdraw', bodySha256: sha256Hex(body) });
      const signature = await account.signMessage({ message });
      await fetch(`${url}/api/pool/withdraw`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-message': message, 'x-wallet-signature': signature, 'idempotency-key': `crash-${wallet}-${n}` },
        body,
      });
    } else {
      const list = (await (await fetch(`${url}/admin/withdrawals?status=pending&limit=5`, { headers: adminHeaders })).json()) as { data?: { id: number }[] };
      for (const w of list.data ?? []) {
        const action = w.id % 2 === 0 ? 'complete' : 'reject';
        await fetch(`${url}/admin/withdrawals/${w.id}/${action}`, { method: 'POST', headers: adminHeaders, body: JSON.stringify(action === 'complete' ? { tx_hash: `0x${w.id.toString(16).padStart(64, '0')}` } : {}) });
      }
    }
    done++;
  }
  const workers = accounts.map(async (a, i) => {
    for (let n = i * 1_000_000; !stopped; n++) {
      // The service may be dead already: errors are expected once it is killed.
      await one(a, n).catch(() => {});
    }
  });
  return {
    count: () => done,
    async stop() {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

/** What every restart must find: books balanced by `npm run audit`, committed trades all there. */
async function checkAfterCrash(env: Record<string, string>, h: () => Promise<DatabaseHandle>, committedTrades: number): Promise<void> {
  const a = await audit(env);
  assert.equal(a.status, 0, `npm run audit:\n${a.out}`);
  assert.match(a.out, /Balanced\./);
  const handle = await h();
  try {
    const n = await sql<{ n: number }>`select count(*)::int as n from trades`.execute(handle.db);
    assert.ok(n.rows[0]!.n >= committedTrades, `${n.rows[0]!.n} trades stored, ${committedTrades} reported committed before the kill`);
  } finally {
    await handle.close();
  }
}

describe('SIGKILL under load leaves balanced books', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
  const accounts = Array.from({ length: 4 }, () => privateKeyToAccount(generatePrivateKey()));
  let server: (DatabaseHandle & { url: string | null }) | null = null;
  let env: Record<string, string>;
  let openAgain: () => Promise<DatabaseHandle>;
  let markets: number[];

  before(async () => {
    if (onServer) {
      server = await freshDatabase();
      env = { DATABASE_URL: server.url!, DATA_DIR: dataDir, REDIS_URL: '' };
      openAgain = () => openDatabase({ databaseUrl: server!.url, dataDir: null });
      markets = await prepare(server, [...TRADERS, ...accounts.map((a) => a.address.toLowerCase())]);
    } else {
      env = { DATABASE_URL: '', DATA_DIR: dataDir, REDIS_URL: '' };
      openAgain = () => openDatabase({ databaseUrl: null, dataDir });
      const h = await openAgain();
      try {
        markets = await prepare(h, [...TRADERS, ...accounts.map((a) => a.address.toLowerCase())]);
      } finally {
        await h.close();
      }
    }
  });
  after(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const loadEnv = () => ({ ...env, LOAD_MARKETS: markets.join(','), LOAD_WALLETS: TRADERS.join(','), LOAD_CONCURRENCY: onServer ? '8' : '4' });

  it('a trade load killed mid-flight', async () => {
    const load = run(['test/helpers/trade-load.ts'], loadEnv());
    await until(load, 'the trade load reporting 300 committed trades', () => lastCount(load.output()) >= 300);
    await kill9(load);
    await checkAfterCrash(env, openAgain, lastCount(load.output()));
  });

  it('a service killed under HTTP money load (and, on a server, beside a trade load)', async () => {
    const service = await startService(env);
    // PGlite serves one process: the trade load shares the database only on a server.
    const trades = onServer ? run(['test/helpers/trade-load.ts'], loadEnv()) : null;
    const http = httpMoneyLoad(service.url, accounts);
    await until(
      service,
      '150 HTTP money calls answered (and, on a server, the trade load reporting 300 committed trades)',
      () => http.count() >= 150 && (trades === null || lastCount(trades.output()) >= 300),
    );
    await kill9(service);
    if (trades) await kill9(trades);
    await http.stop();
    await checkAfterCrash(env, openAgain, trades ? lastCount(trades.output()) : 0);

    // The service starts again on the same data and agrees.
    const again = await startService(env);
    try {
      const res = await fetch(`${again.url}/admin/audit`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const report = (await res.json()) as { balanced: boolean; problems: string[]; totals: { withdrawals: number } };
      assert.deepEqual(report.problems, []);
      assert.equal(report.balanced, true);
      assert.ok(report.totals.withdrawals > 0, 'withdrawals were completed during the load');
    } finally {
      again.child.kill('SIGTERM');
      assert.equal(await again.exited, 0);
    }
  });

  it('npm run audit exits 1 and names the problem when the books do not balance', async () => {
    const h = await openAgain();
    // The books balanced above, so what the wallet has locked is what its open withdrawals add up
    // to: a withdrawal the kill left open (requested, not yet sent) counts there too.
    let lockedBefore: bigint;
    try {
      // A trade whose ledger movement and position effect were never written.
      await sql`insert into trades (market_id, wallet, outcome, amount, shares, price, price_yes_after, price_no_after)
                values (${markets[0]!}, ${TRADERS[0]!}, 'yes', 1000000, 1500000, 0.66, 0.5, 0.5)`.execute(h.db);
      const w = await sql<{ locked: bigint }>`select locked from wallets where address = ${TRADERS[1]!}`.execute(h.db);
      lockedBefore = BigInt(w.rows[0]!.locked);
      await sql`update wallets set locked = locked + 1 where address = ${TRADERS[1]!}`.execute(h.db);
    } finally {
      await h.close();
    }
    const a = await audit(env);
    assert.equal(a.status, 1, a.out);
    assert.match(a.out, /NOT balanced/);
    assert.match(a.out, /trade \d+ of 1000000: its ledger movement debits 0 and escrows 0 in 0 entries/);
    assert.match(a.out, new RegExp(`wallet ${TRADERS[1]}: locked ${lockedBefore + 1n} but its open withdrawals add up to ${lockedBefore}\n`));
    const j = run(['src/cli/audit.ts', '--json'], env);
    assert.equal(await j.exited, 1);
    const report = JSON.parse(j.output()) as { balanced: boolean; problems: string[] };
    assert.equal(report.balanced, false);
    assert.ok(report.problems.length >= 2);
  });
});
