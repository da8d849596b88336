/**
 * Signed trades per second through HTTP: `npx tsx bench/market-trades.ts`.
 *
 * Starts the service as its own process (src/main.ts) on PostgreSQL: DATABASE_URL, or a fresh
 * database created on postgres://postgres@127.0.0.1:5432 and dropped afterwards; with Redis at
 * REDIS_URL (default redis://127.0.0.1:6379) when it answers. Funds 64 wallets, issues each an
 * API key through the admin API, opens 100 markets, then drives POST /api/pool/trade from 64
 * concurrent keep-alive clients, each request with a fresh timestamp and HMAC signature:
 * spread over the 100 markets, then all on one hot market. Prints the books check afterwards.
 *
 * Options (environment): BENCH_SECONDS (default 15), BENCH_CONCURRENCY (64),
 * BENCH_IDEMPOTENCY=1 (an Idempotency-Key on every trade), BENCH_LOG_LEVEL (server LOG_LEVEL,
 * default info), BENCH_PROFILE=<dir> (server CPU profile written there on exit),
 * BENCH_SCENARIOS (default `spread,hot`: which scenarios run, in that order).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { hmacHeaders, type ApiKeyCredentials } from '../test/helpers/market-client.ts';
import { formatResult, runLoad, type LoadResult } from './lib/load.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const MARKETS = 100;
const WALLETS = 64;
const IDEMPOTENCY = process.env.BENCH_IDEMPOTENCY === '1';
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? 'spread,hot').split(','));
const ADMIN_TOKEN = `bench-${randomBytes(16).toString('hex')}`;
const SERVER = 'postgres://postgres@127.0.0.1:5432';

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

/** CPU seconds (user, system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): { user: number; system: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: NaN, system: NaN };
  }
}

/** CPU seconds per thread name of a process (main thread, libuv workers, V8 GC and compiler threads). */
function threadSeconds(pid: number | undefined): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${name}/${tid === String(pid) ? "main" : tid}`, (Number(fields[11]) + Number(fields[12])) / 100);
    }
  } catch {
    // not Linux, or the process is gone
  }
  return out;
}

/** CPU seconds used so far by the PostgreSQL backends serving one database (same machine only). */
async function backendSeconds(url: string): Promise<Map<number, number>> {
  const c = new pg.Client({ connectionString: url });
  const out = new Map<number, number>();
  try {
    await c.connect();
    const { rows } = await c.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    for (const { pid } of rows) {
      const { user, system } = cpuSeconds(pid);
      if (Number.isFinite(user)) out.set(pid, user + system);
    }
  } catch {
    // another machine, or no access to /proc: reported as unknown
  } finally {
    await c.end().catch(() => {});
  }
  return out;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function adminQuery(url: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

/** DATABASE_URL as given, or a fresh database on the local server (dropped by `drop`). */
async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, drop: async () => {} };
  const name = `svc_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  await adminQuery(SERVER, `create database ${name}`);
  return { url: `${SERVER}/${name}`, drop: () => adminQuery(SERVER, `drop database if exists ${name} with (force)`) };
}

async function reachableRedis(): Promise<string | null> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG' ? url : null;
  } catch {
    return null;
  } finally {
    r.disconnect();
  }
}

async function startServer(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const args = ['--import', 'tsx'];
  if (process.env.BENCH_PROFILE) args.push('--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`);
  const child = spawn(process.execPath, [...args, 'src/main.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not become ready in 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const database = await benchDatabase();
  const redisUrl = await reachableRedis();
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';
  console.log(`database ${database.url.replace(/\/\/[^@]*@/, '//')}, redis ${redisUrl ?? 'none (replay record in PostgreSQL)'}, server LOG_LEVEL ${logLevel}`);
  console.log(`load average before: ${load()}`);
  const server = await startServer(
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      ...(redisUrl ? { REDIS_URL: redisUrl } : { REDIS_URL: '' }),
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      REDIS_PREFIX: `bench${randomBytes(4).toString('hex')}`,
      RATE_LIMIT_MARKET_PER_MINUTE: '1000000',
      LOG_LEVEL: logLevel,
    },
    port,
  );
  console.log(`server pid ${server.pid} on ${base}`);
  try {
    const admin = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${base}/admin${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    const endDate = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const markets: number[] = [];
    for (let i = 0; i < MARKETS; i++) {
      const m = await admin('POST', '/markets', { title: `Bench market ${i}`, category: 'bench', market_type: 'yesno', end_date: endDate });
      markets.push(m.id as number);
    }
    const wallets: { address: string; key: ApiKeyCredentials }[] = [];
    for (let i = 0; i < WALLETS; i++) {
      const address = privateKeyToAccount(generatePrivateKey()).address;
      await admin('POST', `/wallets/${address}/deposit`, { amount: '10000000', note: 'bench' });
      const key = (await admin('POST', `/wallets/${address}/api-keys`)) as unknown as ApiKeyCredentials;
      wallets.push({ address, key });
    }

    let seq = 0;
    /** A trade body signed now: wallets in turn, a distinct amount per request (1.000001 .. 1.999999 USDC). */
    const signedTrade = (marketOf: () => number) => () => {
      const n = seq++;
      const w = wallets[n % WALLETS]!;
      const body = JSON.stringify({
        wallet_addr: w.address,
        market_id: marketOf(),
        side: n % 3 === 0 ? 'no' : 'yes',
        // From its decimal text: 1 + k / 1e6 in floating point is sometimes 1.0000030000000002,
        // which the server rightly refuses (400 `amount must have at most 6 decimals`).
        amount: Number(`1.${String((n % 999_999) + 1).padStart(6, '0')}`),
      });
      const headers = {
        'content-type': 'application/json',
        ...hmacHeaders(w.key, { method: 'POST', path: '/api/pool/trade', body, timestamp: Math.floor(Date.now() / 1000) }),
        ...(IDEMPOTENCY ? { 'idempotency-key': `bench-${n}` } : {}),
      };
      return { body, headers };
    };

    const scenario = async (name: string, marketOf: () => number): Promise<LoadResult> => {
      const cpu0 = cpuSeconds(server.pid);
      const threads0 = threadSeconds(server.pid);
      const backends0 = await backendSeconds(database.url);
      const r = await runLoad({
        url: `${base}/api/pool/trade`,
        method: 'POST',
        body: signedTrade(marketOf),
        concurrency: CONCURRENCY,
        durationMs: SECONDS * 1000,
        warmupMs: 2000,
      });
      const cpu1 = cpuSeconds(server.pid);
      const backends1 = await backendSeconds(database.url);
      let backendCpu = 0;
      for (const [pid, t] of backends1) backendCpu += t - (backends0.get(pid) ?? 0);
      const user = cpu1.user - cpu0.user;
      const system = cpu1.system - cpu0.system;
      console.log(formatResult(name, r));
      // What the server process spent per trade (warm-up included, at the measured rate).
      const trades = r.requests * (1 + 2000 / (SECONDS * 1000));
      console.log(
        `  load average after: ${load()}; server CPU ${(user + system).toFixed(1)} s ` +
          `(user ${((user * 1000) / trades).toFixed(2)} + system ${((system * 1000) / trades).toFixed(2)} ms per trade); ` +
          `PostgreSQL backends ${backendCpu.toFixed(1)} s (${((backendCpu * 1000) / trades).toFixed(2)} ms per trade)`,
      );
      const byThread = [...threadSeconds(server.pid)].map(([n, t]) => [n, t - (threads0.get(n) ?? 0)] as const).filter(([, t]) => t >= 0.05);
      console.log(`  server threads: ${byThread.map(([n, t]) => `${n} ${t.toFixed(2)} s`).join(', ')}`);
      return r;
    };

    const label = `${CONCURRENCY} clients${IDEMPOTENCY ? ' + Idempotency-Key' : ''}`;
    if (SCENARIOS.has('spread')) await scenario(`trades, ${MARKETS} markets, ${label}`, () => markets[Math.floor(Math.random() * MARKETS)]!);
    const hot = markets[0]!;
    if (SCENARIOS.has('hot')) await scenario(`trades, one hot market, ${label}`, () => hot);

    // Statistics first: without them (autovacuum off, as on the bench machine, or not yet run)
    // the audit's trade/ledger join is planned as over empty tables, a nested loop whose time
    // grows with the square of the trades (minutes after a few tens of thousands).
    await adminQuery(database.url, 'analyze');
    const audit = await admin('GET', '/audit');
    console.log('books check:', JSON.stringify(audit));
    if (audit.balanced !== true) process.exitCode = 1;
  } finally {
    await stopServer(server);
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
