import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { accountCredits, expectedCost, usageRows, waitForUsage, type Gateway, type UsageRow } from './gateway.ts';
import type { TestAccount } from './inference.ts';
import { waitFor } from './wait.ts';

/** The books of an account: its balance is the sum of its ledger, and nothing stays held. */
export async function assertBooks(g: Gateway, accountId: number): Promise<void> {
  const db = g.t.deps.db;
  // The instance's credit lease on the account goes back once idle (CREDIT_LEASE_IDLE_MS).
  await waitFor(async () => (await db.selectFrom('accounts').select('reserved').where('id', '=', accountId).executeTakeFirstOrThrow()).reserved === 0n, {
    message: `no credits stay reserved: the credit lease of account ${accountId} did not go back`,
  });
  const a = await db.selectFrom('accounts').select(['credits', 'reserved']).where('id', '=', accountId).executeTakeFirstOrThrow();
  const l = await db.selectFrom('credit_ledger').select(sql<bigint>`coalesce(sum(amount), 0)::bigint`.as('sum')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  const holds = await db.selectFrom('credit_reservations').select(sql<bigint>`count(*)::bigint`.as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  assert.equal(l.sum, a.credits, 'the ledger sums to the balance');
  assert.equal(a.reserved, 0n, 'no credits stay reserved');
  assert.equal(holds.n, 0n, 'no hold stays open');
}

/** Runs `fn`, then checks the account was charged the recorded cost and wrote exactly one more usage record. */
export async function charged(g: Gateway, acct: TestAccount, fn: () => Promise<unknown>): Promise<{ charge: bigint; row: UsageRow }> {
  const before = await accountCredits(g.t, acct.id);
  const rowsBefore = (await usageRows(g.t, acct.id)).length;
  await fn();
  const rows = await waitForUsage(g.t, acct.id, rowsBefore + 1);
  assert.equal(rows.length, rowsBefore + 1, 'one usage record per request');
  const after = await accountCredits(g.t, acct.id);
  await assertBooks(g, acct.id);
  const row = rows[0]!;
  assert.equal(before.credits - after.credits, BigInt(row.cost_micro), 'the charge is the recorded cost');
  return { charge: before.credits - after.credits, row };
}

/** Token counts of one upstream call, as a fake upstream reports them. */
export type CallUsage = { input: number; cached: number; output: number };

/**
 * Runs `fn` (one request that may make several upstream calls), waits for its usage record, and
 * checks the account paid exactly the sum of the calls' usages at `price`. Returns that sum and
 * the record, for the caller's own checks.
 */
export async function assertPaidForUsages(
  g: Gateway,
  accountId: number,
  price: { input: bigint; cached: bigint; output: bigint },
  usages: readonly CallUsage[],
  fn: () => Promise<unknown>,
  message = `charged for ${JSON.stringify(usages)}`,
): Promise<{ sum: CallUsage; row: UsageRow; after: { credits: bigint; reserved: bigint } }> {
  const before = await accountCredits(g.t, accountId);
  const rows = (await usageRows(g.t, accountId)).length;
  await fn();
  await waitForUsage(g.t, accountId, rows + 1);
  const after = await accountCredits(g.t, accountId);
  const sum = usages.reduce((s, u) => ({ input: s.input + u.input, cached: s.cached + u.cached, output: s.output + u.output }), { input: 0, cached: 0, output: 0 });
  assert.equal(before.credits - after.credits, expectedCost(price, sum), message);
  return { sum, row: (await usageRows(g.t, accountId))[0]!, after };
}

/**
 * assertPaidForUsages for one `/v1/responses` request: also its usage record's endpoint and token
 * counts, and the account's books once the lease is back.
 */
export async function assertResponsePaid(
  g: Gateway,
  accountId: number,
  price: { input: bigint; cached: bigint; output: bigint },
  usages: readonly CallUsage[],
  fn: () => Promise<unknown>,
  message: string,
): Promise<void> {
  const { sum, row } = await assertPaidForUsages(g, accountId, price, usages, fn, message);
  assert.equal(row.endpoint, 'responses');
  assert.equal(row.input_tokens, sum.input);
  assert.equal(row.output_tokens, sum.output);
  await assertBooks(g, accountId);
}
