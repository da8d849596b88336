/**
 * The charge batch (settleCharges) on the shipped per-account indexes, `(account_id, id)`, against
 * the `(account_id, id desc)` ones they replaced (docs/bench-gateway.md, "Session 29"), each on a
 * database of its own, alternated: CPU per charge (the embedded database's thread included), WAL
 * bytes per charge and the indexes' sizes once the run has grown them. `npx tsx
 * bench/owner-indexes.ts` on PGlite in temporary folders; ROUNDS (4), BATCH (150 charges),
 * ACCOUNTS (20, charges spread over them in turn) and BENCH_MS (2000 of CPU per variant a round)
 * change the run.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { grantCredits, insertAccount } from '../src/accounts/account.repository.ts';
import { insertApiKey } from '../src/accounts/api-key.repository.ts';
import { settleCharges, type SettleItem } from '../src/inference/billing/credits.repository.ts';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../src/storage/database.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const BATCH = Number(process.env.BATCH ?? 150);
const ACCOUNTS = Number(process.env.ACCOUNTS ?? 20);
const MS = Number(process.env.BENCH_MS ?? 2000);
const INDEXES = [['usage_records_account', 'usage_records'], ['credit_ledger_account', 'credit_ledger']] as const;

interface Variant {
  readonly name: string;
  readonly dir: string;
  readonly h: DatabaseHandle;
  readonly item: () => SettleItem;
  readonly cpu: number[];
  wal: number;
  charges: number;
}

async function open(name: 'ascending' | 'descending'): Promise<Variant> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-owner-idx-'));
  const h = await openDatabase({ databaseUrl: null, dataDir: dir });
  await migrateToLatest(h.db);
  if (name === 'descending') {
    for (const [index, table] of INDEXES) {
      await sql`drop index ${sql.id(index)}`.execute(h.db);
      await sql`create index ${sql.id(index)} on ${sql.id(table)} (account_id, id desc)`.execute(h.db);
    }
  }
  const owners: { accountId: number; keyId: number }[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const a = await insertAccount(h.db, { email: `bench-${i}@example.com`, emailVerified: true });
    await grantCredits(h.db, a.id, 10n ** 15n, null);
    const k = await insertApiKey(h.db, { accountId: a.id, name: 'bench', hash: randomBytes(32).toString('hex'), prefix: 'svk_bench' });
    owners.push({ accountId: a.id, keyId: k.id });
  }
  let n = 0;
  const item = (): SettleItem => {
    const o = owners[n % owners.length]!;
    return {
      leaseId: null,
      charged: 1234n,
      usage: {
        accountId: o.accountId, keyId: o.keyId, model: 'svc-fast', servedModel: null, providerId: 'main-openai', upstreamModel: 'gpt-4.1-mini',
        endpoint: 'chat.completions', lane: null, inputTokens: 12, cachedInputTokens: 0, outputTokens: 5, imageCount: 0, cost: 1234n,
        latencyMs: 3, status: 200, usageSource: 'upstream', requestId: `req_bench_${n++}`,
      },
    };
  };
  return { name, dir, h, item, cpu: [], wal: 0, charges: 0 };
}

const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const lsn = async (h: DatabaseHandle) => {
  const l = (await sql<{ l: string }>`select pg_current_wal_lsn()::text as l`.execute(h.db)).rows[0]!.l;
  const [hi, lo] = l.split('/') as [string, string];
  return parseInt(hi, 16) * 2 ** 32 + parseInt(lo, 16);
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`owner indexes: pglite, node ${process.version}, load average ${loadavg()[0]!.toFixed(2)}, ${ROUNDS} rounds, batches of ${BATCH} over ${ACCOUNTS} accounts`);
const variants = [await open('ascending'), await open('descending')];
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of variants) {
      for (let w = 0; w < 5; w++) await settleCharges(v.h.db, Array.from({ length: BATCH }, v.item));
      const l0 = await lsn(v.h);
      const c0 = cpuMs();
      let charges = 0;
      while (cpuMs() - c0 < MS) {
        await settleCharges(v.h.db, Array.from({ length: BATCH }, v.item));
        charges += BATCH;
      }
      v.cpu.push(((cpuMs() - c0) / charges) * 1000);
      v.wal += (await lsn(v.h)) - l0;
      v.charges += charges;
    }
  }
  for (const v of variants) {
    const sizes: string[] = [];
    for (const [index] of INDEXES) {
      const s = Number((await sql<{ s: string }>`select pg_relation_size(${index}::regclass)::text as s`.execute(v.h.db)).rows[0]!.s);
      sizes.push(`${index} ${(s / 2 ** 20).toFixed(1)} MB`);
    }
    const rows = Number((await sql<{ n: string }>`select count(*)::text as n from usage_records`.execute(v.h.db)).rows[0]!.n);
    console.log(
      `  ${v.name.padEnd(10)} CPU per charge ${median(v.cpu).toFixed(1)} µs (rounds ${v.cpu.map((x) => x.toFixed(1)).join(', ')}), WAL ${(v.wal / v.charges).toFixed(0)} B per charge; after ${rows} rows: ${sizes.join(', ')}`,
    );
  }
  console.log(`  ascending / descending CPU per charge, median of rounds' ratios: ${median(variants[0]!.cpu.map((a, i) => a / variants[1]!.cpu[i]!)).toFixed(2)}; load average after ${loadavg()[0]!.toFixed(2)}`);
} finally {
  for (const v of variants) {
    await v.h.close();
    rmSync(v.dir, { recursive: true, force: true });
  }
}
