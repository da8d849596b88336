import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import pg from 'pg';
import { startGateway, usageRows, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { getAccountOrThrow } from '../src/accounts/account.repository.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { waitFor } from './helpers/wait.ts';

interface CreditsBody {
  object: string;
  credits: number;
  available: number;
  credits_micro: string;
  available_micro: string;
}

const GRANT = 1_000n * 1_000_000n;

describe('GET /v1/credits: the balance of the key\'s account', () => {
  let g: Gateway;
  let acct: TestAccount;
  before(async () => {
    g = await startGateway();
    acct = await createTestAccount(g.t, { credits: 1_000 });
  });
  after(() => g.close());

  const get = (path: string, headers: Record<string, string>) => fetch(`${g.t.url}${path}`, { headers });

  it('answers the balance to the official OpenAI client, exact in micro-credits', async () => {
    const body = (await g.client(acct.key).get('/credits')) as CreditsBody;
    assert.deepEqual(body, { object: 'credits', credits: 1000, available: 1000, credits_micro: GRANT.toString(), available_micro: GRANT.toString() });
  });

  it('moves by exactly the charge of each answer, read right after it', async () => {
    const client = g.client(acct.key);
    await client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hello there' }] });
    // No waiting: the route writes this instance's queued charges before it reads.
    const body = (await client.get('/credits')) as CreditsBody;
    const [row] = await usageRows(g.t, acct.id);
    assert.ok(row && BigInt(row.cost_micro) > 0n);
    assert.equal(body.credits_micro, (GRANT - BigInt(row.cost_micro)).toString());
    assert.equal(body.credits, Number(GRANT - BigInt(row.cost_micro)) / 1e6);
    // This instance's own lease is the account's to spend: nothing else holds credits.
    assert.equal(body.available_micro, body.credits_micro);
    assert.equal(body.available, body.credits);
  });

  it('answers on the messages-style base with x-api-key (the Anthropic client\'s header) and with a bearer key', async () => {
    const anthropic = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
    const viaSdk = (await anthropic.get('/v1/credits')) as CreditsBody;
    assert.equal(viaSdk.object, 'credits');
    const r = await get('/inference/v1/credits', { authorization: `Bearer ${acct.key}` });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), viaSdk);
    assert.ok(r.headers.get('request-id'), 'Anthropic\'s request-id header, as on /v1/messages');
  });

  it('refuses a missing or unknown key, and x-api-key on the OpenAI base, with 401 in the surface\'s error shape', async () => {
    for (const headers of [{}, { authorization: 'Bearer svk_nope' }, { 'x-api-key': acct.key }] as Record<string, string>[]) {
      const r = await get('/v1/credits', headers);
      assert.equal(r.status, 401, JSON.stringify(headers));
      assert.deepEqual(await r.json(), { error: 'unauthorized' });
    }
  });

  it('refuses an unverified account\'s key with 403, as every inference endpoint does', async () => {
    const unverified = await createTestAccount(g.t, { credits: 5, verified: false });
    const r = await get('/v1/credits', { authorization: `Bearer ${unverified.key}` });
    assert.equal(r.status, 403);
    assert.deepEqual(await r.json(), { error: 'please verify your email first' });
  });

  it('shows the rate budget without spending it', async () => {
    const fresh = await createTestAccount(g.t, { credits: 5 });
    const remaining = async () => (await get('/v1/credits', { authorization: `Bearer ${fresh.key}` })).headers.get('x-ratelimit-remaining-requests');
    const first = await remaining();
    assert.ok(first !== null);
    assert.equal(await remaining(), first);
  });

  it('is in /openapi.json under both bases', async () => {
    const doc = (await (await fetch(`${g.t.url}/openapi.json`)).json()) as { paths: Record<string, { get?: unknown }> };
    assert.ok(doc.paths['/v1/credits']?.get);
    assert.ok(doc.paths['/inference/v1/credits']?.get);
  });
});

describe('GET /v1/credits with two instances on one database', () => {
  let one: Gateway;
  let two: Gateway;
  before(async () => {
    // Leases stay while the test looks at them.
    one = await startGateway({ env: { CREDIT_LEASE_IDLE_MS: '600000' } });
    two = await startGateway({ env: { CREDIT_LEASE_IDLE_MS: '600000' }, database: one.t.database });
  });
  after(async () => {
    await two.close();
    await one.close();
  });

  it('keeps back what the other instance\'s lease holds, not the asking instance\'s own', async () => {
    const acct = await createTestAccount(one.t, { credits: 1_000 });
    await one.client(acct.key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
    await waitForUsage(one.t, acct.id, 1);
    const fromOne = (await one.client(acct.key).get('/credits')) as CreditsBody;
    const account = (await one.t.app.inject({ url: `/admin/accounts/${acct.id}`, headers: one.t.admin })).json() as { credits_micro: string; reserved: number };
    const reserved = BigInt(Math.round(account.reserved * 1e6));
    assert.ok(reserved > 0n, 'instance one holds a lease of the account');
    assert.equal(fromOne.credits_micro, account.credits_micro);
    assert.equal(fromOne.available_micro, account.credits_micro);
    const fromTwo = (await two.client(acct.key).get('/credits')) as CreditsBody;
    assert.equal(fromTwo.credits_micro, account.credits_micro);
    assert.equal(fromTwo.available_micro, (BigInt(account.credits_micro) - reserved).toString());
  });
});

describe('GET /v1/credits while an idle lease goes back', () => {
  let g: Gateway;
  before(async () => {
    // Idle for a second: time to hold the lease's row after its renewal settled, before it goes back.
    g = await startGateway({ env: { CREDIT_LEASE_IDLE_MS: '1000' } });
  });
  after(() => g.close());

  // The CI failure of session 26 (available 0 on PGlite): the row was read before the idle timer
  // took the lease off the books, and the lease counted after; a read slower than the idle period
  // shows it every time. The read now keeps the lease.
  it('keeps the lease while the balance is read, so an idle period passing meanwhile changes nothing', async () => {
    const acct = await createTestAccount(g.t, { credits: 1_000 });
    await g.client(acct.key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
    const { account, available } = await g.t.deps.billing.balance(acct.id, async () => {
      const row = await getAccountOrThrow(g.t.deps.db, acct.id);
      assert.ok(row.reserved > 0n, 'the lease is in the row read');
      // More than the idle period and a tick of the idle timer (at most a second) pass before the lease is counted.
      await new Promise((r) => setTimeout(r, 2_500));
      return row;
    });
    assert.equal(available, account.credits);
    assert.ok(g.t.deps.billing.unheld(acct.id) > 0n, 'the lease was kept through the read');
    // Released after the read: the next tick returns it.
    await waitFor(() => g.t.deps.billing.unheld(acct.id) === 0n, { message: 'the idle lease never went back after the read' });
  });

  // The idle lease leaves the instance's books before its return commits; a read in between took
  // the returned credits as another instance's hold. Only a server lets another connection hold
  // the return back (PGlite runs every statement in turn on one connection).
  it('waits for the return, so available is the whole balance', { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL: a second connection holds the return' }, async () => {
    const acct = await createTestAccount(g.t, { credits: 1_000 });
    await g.client(acct.key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
    const blocker = new pg.Client({ connectionString: g.t.database.url! });
    await blocker.connect();
    // The lease's writes settle first (its renewal ahead of need would wait on the lock too).
    await g.t.deps.billing.written();
    try {
      await blocker.query('begin');
      await blocker.query('select id from credit_reservations where account_id = $1 for update', [acct.id]);
      // The idle timer takes the lease off this instance's books.
      await waitFor(() => g.t.deps.billing.unheld(acct.id) === 0n, { message: 'the idle lease left the instance' });
      const asked = g.client(acct.key).get('/credits') as Promise<CreditsBody>;
      // Let the read run ahead of the return if it does not wait for it.
      await Promise.race([asked, new Promise((r) => setTimeout(r, 300))]);
      await blocker.query('commit');
      const body = await asked;
      assert.equal(body.available_micro, body.credits_micro);
    } finally {
      await blocker.end();
    }
  });
});
