/**
 * The charge batch written behind the gateway's answers (settleCharges), alone: the process's CPU
 * (the embedded database's thread included) per charged request, at batch sizes from one (a
 * lone request) to a loaded gateway's. `npx tsx bench/settle-batch.ts` on PGlite in a temporary
 * folder, as `npm start` keeps it; with DATABASE_URL on that PostgreSQL (its server's CPU is not
 * counted). BATCHES (1,10,150) and ROUNDS (CPU time per size, 3000 ms) change the run. Compare
 * two commits by running both alternately (docs/benchmarks.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grantCredits, insertAccount } from '../src/accounts/account.repository.ts';
import { insertApiKey } from '../src/accounts/api-key.repository.ts';
import { settleCharges, type SettleItem } from '../src/inference/billing/credits.repository.ts';
import { migrateToLatest, openDatabase } from '../src/storage/database.ts';

const BATCHES = (process.env.BATCHES ?? '1,10,150').split(',').map(Number);
const MS = Number(process.env.BENCH_MS ?? 3000);
const dir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'svc-settle-'));
const h = await openDatabase({ databaseUrl: process.env.DATABASE_URL ?? null, dataDir: dir });
try {
  await migrateToLatest(h.db);
  const account = await insertAccount(h.db, { email: `bench-${Date.now()}@example.com`, emailVerified: true });
  await grantCredits(h.db, account.id, 10n ** 15n, null);
  const key = await insertApiKey(h.db, { accountId: account.id, name: 'bench', hash: randomBytes(32).toString('hex'), prefix: 'svk_bench' });
  let n = 0;
  const item = (): SettleItem => ({
    leaseId: null,
    charged: 1234n,
    usage: {
      accountId: account.id, keyId: key.id, model: 'svc-fast', servedModel: null, providerId: 'main-openai', upstreamModel: 'gpt-4.1-mini',
      endpoint: 'chat.completions', lane: null, inputTokens: 12, cachedInputTokens: 0, outputTokens: 5, imageCount: 0, cost: 1234n,
      latencyMs: 3, status: 200, usageSource: 'upstream', requestId: `req_bench_${n++}`,
    },
  });
  const cpuMs = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  console.log(`charge batch: ${h.kind}, node ${process.version}, load average ${(await import('node:os')).loadavg()[0]!.toFixed(2)}`);
  for (const size of BATCHES) {
    for (let r = 0; r < 20; r++) await settleCharges(h.db, Array.from({ length: size }, item));
    const c0 = cpuMs();
    const t0 = performance.now();
    let charges = 0;
    while (cpuMs() - c0 < MS) {
      await settleCharges(h.db, Array.from({ length: size }, item));
      charges += size;
    }
    const cpu = cpuMs() - c0;
    console.log(`  batch ${String(size).padStart(4)}: ${(cpu / charges).toFixed(4)} ms CPU per charge, ${((cpu / charges) * size).toFixed(2)} ms per batch, ${((performance.now() - t0) / charges).toFixed(4)} ms wall per charge`);
  }
} finally {
  await h.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
