/**
 * Throughput of the market's busiest reads over real HTTP, against a bare Fastify baseline.
 *
 *   npx tsx bench/market-reads.ts [--markets 10000] [--duration 10] [--connections 32] [--explain] [--keep] [--only list|price|prices]
 *
 * --only runs the baseline and that one endpoint; BENCH_PROFILE=<dir> writes the servers' CPU
 * profile there (one process serves the app and the baseline: read the app's share).
 *
 * Uses DATABASE_URL when set (seeding it only if it has no markets yet), else creates a fresh
 * database on postgres://postgres@127.0.0.1:5432 and drops it at the end (--keep keeps it).
 * The servers (the app with RATE_LIMIT_MARKET_PER_MINUTE=1000000, whose answers are reused only
 * while exact, and a bare Fastify route returning a constant) run in a child
 * process; this process only generates load (bench/lib/load.ts: N keep-alive undici clients,
 * each sending its next request when the last answered), one endpoint after the other.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { createDeps } from '../src/deps.ts';
import type { MarketStatus } from '../src/market/market.tables.ts';
import { type MarketPools, type MarketType, type Outcome, mapOutcomes, marketOutcomes, marketPools, openingSeeds, quoteTrade } from '../src/market/pricing/index.ts';
import { listMarketsQuery } from '../src/market/queries/markets.list.ts';
import { type Db, migrateToLatest, openDatabase } from '../src/storage/database.ts';
import { type LoadResult, runLoad } from './lib/load.ts';

const SERVER = 'postgres://postgres@127.0.0.1:5432';
const CATEGORIES = ['crypto', 'politics', 'sports', 'economy', 'science', 'culture', 'tech', 'weather'];
const DAY = 86_400_000;

// ---------------------------------------------------------------- child: the servers

async function serve(databaseUrl: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const start = async (env: Record<string, string>) => {
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'bench-admin-token-0123456789',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MARKET_PER_MINUTE: '1000000',
      ...env,
    });
    const deps = await createDeps(config);
    const app = await buildApp(deps);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { app, deps };
  };
  // The app as shipped: answers kept only while no write and no time window changed them.
  const plain = await start({});
  const bare = Fastify({ logger: false });
  bare.get('/constant', async () => ({ success: true, data: { ok: true } }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const port = (s: { server: { address(): unknown } }) => (s.server.address() as AddressInfo).port;
  process.send?.({ app: port(plain.app), bare: port(bare) });
  process.on('disconnect', () => {
    void Promise.all([plain.app.close(), bare.close()])
      .then(() => plain.deps.close())
      .finally(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
  });
}

// ---------------------------------------------------------------- seeding

function rng(seed: number): () => number {
  // mulberry32: the same data set on every run.
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function insertChunks<T extends object>(db: Db, table: 'trades' | 'positions' | 'markets' | 'wallets' | 'events', rows: T[], size: number): Promise<void> {
  for (let i = 0; i < rows.length; i += size) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + size) as never)
      .execute();
  }
}

async function seed(db: Db, markets: number): Promise<{ trades: number }> {
  const rand = rng(42);
  const now = Date.now();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const wallets = Array.from({ length: 1000 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
  await insertChunks(
    db,
    'wallets',
    wallets.map((address) => ({ address })),
    1000,
  );
  const eventIds: number[] = [];
  for (let i = 0; i < markets / 10; i++) {
    const r = await db
      .insertInto('events')
      .values({ slug: `bench-event-${i}`, title: `Event ${i}`, description: '', category: pick(CATEGORIES), image_url: '', status: 'active', created_at: new Date(now - 90 * DAY) })
      .returning('id')
      .executeTakeFirstOrThrow();
    eventIds.push(r.id);
  }

  const trades: object[] = [];
  const positions = new Map<string, { market_id: number; wallet: string; outcome: Outcome; shares: bigint; cost_basis: bigint; created_at: Date; updated_at: Date }>();
  const marketRows: object[] = [];
  const firstId = Number((await sql<{ n: bigint }>`select coalesce(max(id), 0)::bigint as n from markets`.execute(db)).rows[0]!.n) + 1;
  for (let i = 0; i < markets; i++) {
    const id = firstId + i;
    const type: MarketType = rand() < 0.1 ? 'threeway' : rand() < 0.1 ? 'updown' : 'yesno';
    const r = rand();
    const status: MarketStatus = r < 0.8 ? 'active' : r < 0.9 ? 'resolved' : r < 0.95 ? 'pending' : 'cancelled';
    const created = now - Math.floor((1 + rand() * 59) * DAY);
    const seeds = openingSeeds(type);
    const outcomes = marketOutcomes(type);
    let pools: MarketPools = marketPools(seeds);
    const shares = new Map<Outcome, bigint>(outcomes.map((o) => [o, 0n]));
    let volume = 0n;
    const count = status === 'pending' ? 0 : Math.floor(rand() * 41);
    const times = Array.from({ length: count }, () => created + Math.floor(rand() * (now - created))).sort((a, b) => a - b);
    for (const at of times) {
      const outcome = pick(outcomes);
      const wallet = pick(wallets);
      const stake = BigInt(Math.floor((1 + rand() ** 3 * 999) * 1_000_000));
      const q = quoteTrade(pools, outcome, stake);
      pools = q.poolsAfter;
      shares.set(outcome, shares.get(outcome)! + q.shares);
      volume += stake;
      trades.push({
        market_id: id,
        wallet,
        outcome,
        amount: stake,
        shares: q.shares,
        price: q.averagePrice,
        price_yes_after: q.pricesAfter.yes,
        price_no_after: q.pricesAfter.no,
        price_draw_after: q.pricesAfter.draw ?? null,
        created_at: new Date(at),
      });
      const key = `${id}:${wallet}:${outcome}`;
      const p = positions.get(key) ?? { market_id: id, wallet, outcome, shares: 0n, cost_basis: 0n, created_at: new Date(at), updated_at: new Date(at) };
      p.shares += q.shares;
      p.cost_basis += stake;
      p.updated_at = new Date(at);
      positions.set(key, p);
    }
    const real = mapOutcomes(outcomes, (o) => pools[o]!.real);
    const s = mapOutcomes(outcomes, (o) => shares.get(o)!);
    marketRows.push({
      id,
      event_id: rand() < 0.3 ? pick(eventIds) : null,
      slug: `bench-market-${id}`,
      title: `Will ${pick(CATEGORIES)} thing number ${id} happen?`,
      description: `Benchmark market ${id} about ${pick(CATEGORIES)}.`,
      category: pick(CATEGORIES),
      market_type: type,
      status,
      image_url: `/img/${id}.png`,
      end_date: new Date(created + Math.floor((10 + rand() * 110) * DAY)),
      outcome_labels: JSON.stringify(type === 'updown' ? { yes: 'Up', no: 'Down' } : {}),
      pool_yes: real.yes,
      pool_no: real.no,
      pool_draw: real.draw ?? 0n,
      seed_yes: seeds.yes,
      seed_no: seeds.no,
      seed_draw: seeds.draw ?? 0n,
      shares_yes: s.yes,
      shares_no: s.no,
      shares_draw: s.draw ?? 0n,
      escrow: status === 'active' ? volume : 0n,
      volume,
      trade_count: count,
      last_trade_at: times.length ? new Date(times[times.length - 1]!) : null,
      resolved_outcome: status === 'resolved' ? 'yes' : null,
      created_at: new Date(created),
      updated_at: new Date(now),
    });
  }
  await insertChunks(db, 'markets', marketRows, 1000);
  await sql`select setval('markets_id_seq', (select max(id) from markets))`.execute(db);
  await insertChunks(db, 'trades', trades, 4000);
  await insertChunks(db, 'positions', [...positions.values()], 4000);
  // Fresh statistics and a visibility map, as autovacuum would leave them on a live database.
  await sql`vacuum analyze`.execute(db);
  return { trades: trades.length };
}

// ---------------------------------------------------------------- load

async function adminQuery(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: SERVER });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      markets: { type: 'string', default: '10000' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '32' },
      explain: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      only: { type: 'string' },
    },
  });
  const markets = Number(values.markets);
  const seconds = Number(values.duration);
  const connections = Number(values.connections);
  let databaseUrl = process.env.DATABASE_URL ?? '';
  let created: string | null = null;
  if (!databaseUrl) {
    created = `svc_bench_${randomBytes(4).toString('hex')}`;
    await adminQuery(`create database ${created}`);
    databaseUrl = `${SERVER}/${created}`;
  }
  let child: ChildProcess | null = null;
  try {
    const handle = await openDatabase({ databaseUrl, dataDir: null });
    await migrateToLatest(handle.db);
    const existing = Number((await sql<{ n: bigint }>`select count(*)::bigint as n from markets`.execute(handle.db)).rows[0]!.n);
    if (existing === 0) {
      const t0 = Date.now();
      const { trades } = await seed(handle.db, markets);
      console.log(`seeded ${markets} markets, ${trades} trades in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } else {
      console.log(`using ${existing} existing markets`);
    }
    const ids = (await sql<{ id: number }>`select id from markets order by volume desc, id desc`.execute(handle.db)).rows.map((r) => r.id);
    if (values.explain) {
      // The plan of the exact statement GET /api/markets?sort=volume&limit=20 runs.
      const q = listMarketsQuery({}, { sort: 'volume', offset: 0, limit: 20 }, new Date()).compile(handle.db);
      for (let i = 0; i < 3; i++) await sql.raw('select 1').execute(handle.db); // warm the pool
      const explain = async () =>
        (await handle.db.executeQuery<{ 'QUERY PLAN': string }>({ ...q, sql: `explain (analyze, buffers) ${q.sql}` })).rows.map((r) => r['QUERY PLAN']);
      await explain(); // first run reads pages into the cache
      console.log((await explain()).join('\n'));
    }
    await handle.close();

    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    child = fork(fileURLToPath(import.meta.url), ['--serve', databaseUrl], { execArgv: ['--import', 'tsx', ...profile], stdio: 'inherit' });
    const ports = await new Promise<{ app: number; bare: number }>((resolve, reject) => {
      child!.once('message', (m) => resolve(m as { app: number; bare: number }));
      child!.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const app = `http://127.0.0.1:${ports.app}`;
    // Each run from a loopback address of its own: at these rates two endpoints' runs would pass
    // the per-IP limit of one minute (RATE_LIMIT_MARKET_PER_MINUTE is at most 1,000,000) and
    // the later one would measure 429s.
    let runs = 0;
    const load = async (name: string, url: string): Promise<{ name: string } & LoadResult> => ({
      name,
      ...(await runLoad({ url, concurrency: connections, durationMs: seconds * 1000, warmupMs: 2000, localAddress: `127.0.0.${10 + runs++}` })),
    });
    // The single-market price: the most traded market (the one the list shows first).
    const top = ids[0]!;
    const endpoints: [key: string, name: string, url: string][] = [
      ['list', 'GET /api/markets?sort=volume&limit=20', `${app}/api/markets?sort=volume&limit=20`],
      ['price', `GET /api/markets/${top}/price`, `${app}/api/markets/${top}/price`],
      ['prices', `GET /api/markets/prices?ids= (${Math.min(ids.length, 20)} ids)`, `${app}/api/markets/prices?ids=${ids.slice(0, 20).join(',')}`],
    ];
    const results = [await load('baseline: bare Fastify constant', `http://127.0.0.1:${ports.bare}/constant`)];
    const byKey = new Map<string, LoadResult>();
    for (const [key, name, url] of endpoints) {
      if (values.only !== undefined && values.only !== key) continue;
      const r = await load(name, url);
      results.push(r);
      byKey.set(key, r);
    }
    const base = results[0]!.rps;
    console.log(`\n${connections} connections, ${seconds} s each, ${ids.length} markets, node ${process.version}`);
    console.log('endpoint'.padEnd(42), 'req/s'.padStart(9), 'ratio'.padStart(7), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'errors'.padStart(7));
    for (const r of results) {
      const bad = r.errors + Object.entries(r.statuses).reduce((n, [code, k]) => (code === '200' ? n : n + k), 0);
      console.log(
        r.name.padEnd(42),
        r.rps.toFixed(0).padStart(9),
        `${((r.rps / base) * 100).toFixed(1)}%`.padStart(7),
        r.p50Ms.toFixed(2).padStart(8),
        r.p99Ms.toFixed(2).padStart(8),
        String(bad).padStart(7),
      );
      for (const [what, n] of Object.entries(r.failures)) console.log(`    ${n} x ${what}`);
    }
    const aim = (key: string, label: string, share: number) => {
      const r = byKey.get(key);
      if (!r) return;
      const ratio = r.rps / base;
      console.log(`${label} at ${(ratio * 100).toFixed(1)}% of baseline (aim: >= ${share * 100}%): ${ratio >= share ? 'met' : 'NOT met'}`);
    };
    console.log('');
    aim('list', 'list', 0.25);
    aim('price', 'price', 0.4);
  } finally {
    if (child) {
      child.disconnect();
      await new Promise((r) => child!.once('exit', r));
    }
    if (created && !values.keep) await adminQuery(`drop database if exists ${created} with (force)`);
    else if (created) console.log(`kept database ${databaseUrl}`);
  }
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3]!);
} else {
  await main();
}
