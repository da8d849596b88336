import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { grantCredits, insertAccount, listLedger } from '../src/accounts/account.repository.ts';
import { insertApiKey } from '../src/accounts/api-key.repository.ts';
import { listUsage } from '../src/accounts/usage.repository.ts';
import { settleCharges, type SettleItem } from '../src/inference/billing/credits.repository.ts';
import { migrateToLatest, type DatabaseHandle } from '../src/storage/database.ts';
import { freshDatabase } from './helpers/database.ts';

// Usage records and ledger rows are written by the charge batch behind every answer; how their
// per-account indexes grow is part of what each request costs the database.
describe('the per-account indexes of append-only rows', () => {
  let h: DatabaseHandle;
  const accounts: { id: number; keyId: number }[] = [];
  before(async () => {
    h = await freshDatabase();
    await migrateToLatest(h.db);
    for (let i = 0; i < 3; i++) {
      const a = await insertAccount(h.db, { email: `owner-index-${i}@example.com`, emailVerified: true });
      await grantCredits(h.db, a.id, 10n ** 12n, null);
      const k = await insertApiKey(h.db, { accountId: a.id, name: 'k', hash: randomBytes(32).toString('hex'), prefix: 'svk_idx' });
      accounts.push({ id: a.id, keyId: k.id });
    }
    let n = 0;
    const item = (): SettleItem => {
      const a = accounts[n % accounts.length]!;
      return {
        leaseId: null,
        charged: 7n,
        usage: {
          accountId: a.id, keyId: a.keyId, model: 'svc-fast', servedModel: null, providerId: 'p', upstreamModel: 'm', endpoint: 'chat.completions',
          lane: null, inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, imageCount: 0, cost: 7n, latencyMs: 1, status: 200, usageSource: 'upstream',
          requestId: `req_owner_index_${n++}`,
        },
      };
    };
    for (let b = 0; b < 24; b++) await settleCharges(h.db, Array.from({ length: 250 }, item));
  });
  after(() => h.close());

  const size = async (index: string) => Number((await sql<{ s: string }>`select pg_relation_size(${index}::regclass)::text as s`.execute(h.db)).rows[0]!.s);

  it('grow with full pages as rows are added: no more than 1.6 times the primary key of the same rows', async () => {
    // (owner, id desc) put each new row at the left end of its owner's range, split half and half: 2.6x.
    for (const [index, pkey] of [['usage_records_account', 'usage_records_pkey'], ['credit_ledger_account', 'credit_ledger_pkey']] as const) {
      const ratio = (await size(index)) / (await size(pkey));
      assert.ok(ratio <= 1.6, `${index} is ${ratio.toFixed(2)} times ${pkey}`);
    }
  });

  it('serve the newest-first lists, paged, in the order they promise', async () => {
    const a = accounts[1]!;
    const usage = await listUsage(h.db, a.id, { limit: 5 });
    assert.equal(usage.length, 5);
    const older = await listUsage(h.db, a.id, { limit: 5, beforeId: usage[4]!.id });
    const ids = [...usage, ...older].map((r) => r.id);
    assert.deepEqual(ids, [...ids].sort((x, y) => (x > y ? -1 : 1)));
    assert.ok([...usage, ...older].every((r) => r.account_id === a.id));
    const ledger = await listLedger(h.db, a.id, 4);
    assert.deepEqual(ledger.map((r) => r.id), [...ledger.map((r) => r.id)].sort((x, y) => (x > y ? -1 : 1)));
  });
});
