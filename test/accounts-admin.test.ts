import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAdminClient } from '../src/cli/admin/admin-client.ts';
import { buildAdminProgram } from '../src/cli/admin/program.ts';
import { createBilling } from '../src/inference/billing/billing.ts';
import { systemClock } from '../src/shared/clock.ts';
import { TEST_ADMIN_TOKEN, startTestApp, type TestApp } from './helpers/app.ts';

describe('admin API: inference accounts', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url: `/admin${url}`, headers: t.admin, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('needs the admin token', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/admin/accounts', payload: { email: 'a@b.co' } });
    assert.equal(r.statusCode, 401);
    assert.deepEqual(r.json(), { error: 'unauthorized' });
  });

  it('creates accounts, unique by email whatever its case', async () => {
    const r = await call('POST', '/accounts', { email: ' Ada@Example.com ' });
    assert.equal(r.statusCode, 201);
    const a = r.json();
    assert.equal(typeof a.id, 'number');
    assert.deepEqual(
      { ...a, id: 0, created_at: '' },
      { id: 0, email: 'Ada@Example.com', email_verified: false, credits: 0, reserved: 0, available: 0, credits_micro: '0', created_at: '' },
    );
    const dup = await call('POST', '/accounts', { email: 'ada@example.COM' });
    assert.equal(dup.statusCode, 409);
    assert.deepEqual(dup.json(), { error: 'an account with this email already exists' });
    const verified = await call('POST', '/accounts', { email: 'bob@example.com', email_verified: true });
    assert.equal(verified.json().email_verified, true);
  });

  it('refuses bad account input with 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'missing required field: email'],
      [{ email: 'not-an-email' }, 'invalid email: expected an address like name@example.com'],
      [{ email: 'x@y.co', extra: 1 }, 'unknown field: extra'],
      [{ email: 'x@y.co', email_verified: 'maybe' }, 'invalid email_verified: must be boolean'],
    ];
    for (const [body, error] of cases) {
      const r = await call('POST', '/accounts', body);
      assert.equal(r.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(r.json(), { error });
    }
    for (const url of ['/accounts/abc', '/accounts/0', '/accounts/99999999999']) {
      assert.equal((await call('GET', url)).statusCode, 400, url);
    }
    const missing = await call('GET', '/accounts/424242');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { error: 'account not found' });
  });

  it('verifies an email', async () => {
    const id = (await call('POST', '/accounts', { email: 'carol@example.com' })).json().id;
    const r = await call('POST', `/accounts/${id}/verify-email`);
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().email_verified, true);
    assert.equal((await call('POST', '/accounts/424242/verify-email')).statusCode, 404);
  });

  it('grants and takes credits exactly, each change written to the ledger with its note', async () => {
    const id = (await call('POST', '/accounts', { email: 'dan@example.com' })).json().id;
    const g = await call('POST', `/accounts/${id}/credits`, { credits: 10.123456, note: 'welcome' });
    assert.equal(g.statusCode, 200);
    assert.equal(g.json().credits, 10.123456);
    assert.equal(g.json().credits_micro, '10123456');
    const take = await call('POST', `/accounts/${id}/credits`, { credits: -12.5 });
    assert.equal(take.json().credits, -2.376544, 'a balance may be taken below zero');
    assert.equal(take.json().available, -2.376544);
    const ledger = await t.deps.db.selectFrom('credit_ledger').selectAll().where('account_id', '=', id).orderBy('id').execute();
    assert.deepEqual(
      ledger.map((l) => [l.kind, l.amount, l.balance_after, l.note]),
      [
        ['grant', 10_123_456n, 10_123_456n, 'welcome'],
        ['adjustment', -12_500_000n, -2_376_544n, null],
      ],
    );
  });

  it('refuses bad credit amounts with 400', async () => {
    const id = (await call('POST', '/accounts', { email: 'erin@example.com' })).json().id;
    const cases: Array<[unknown, string]> = [
      [{ credits: 0.1234567 }, 'invalid credits: at most 6 decimal places'],
      [{ credits: 0 }, 'invalid credits: must not be zero'],
      [{ credits: 'lots' }, 'invalid credits: must be number'],
      [{ credits: 2e9 }, 'invalid credits: must be between -1000000000 and 1000000000'],
      [{}, 'missing required field: credits'],
      [{ credits: 1, note: 5, x: 1 }, 'unknown field: x'],
    ];
    for (const [body, error] of cases) {
      const r = await call('POST', `/accounts/${id}/credits`, body);
      assert.equal(r.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(r.json(), { error });
    }
    assert.equal((await call('POST', '/accounts/424242/credits', { credits: 1 })).statusCode, 404);
    assert.equal((await call('GET', `/accounts/${id}`)).json().credits, 0, 'nothing moved');
  });

  it('issues a key once and lists keys without it; revoking is idempotent', async () => {
    const id = (await call('POST', '/accounts', { email: 'fay@example.com' })).json().id;
    const k = await call('POST', `/accounts/${id}/keys`, { name: 'laptop' });
    assert.equal(k.statusCode, 201);
    const key = k.json();
    assert.match(key.key, /^svk_[0-9A-Za-z]{43}$/);
    assert.equal(key.prefix, key.key.slice(0, 10));
    assert.equal(key.name, 'laptop');
    assert.equal(key.account_id, id);
    assert.equal(key.revoked_at, null);
    const noName = await call('POST', `/accounts/${id}/keys`);
    assert.equal(noName.statusCode, 201);
    assert.equal(noName.json().name, '');

    const shown = await call('GET', `/accounts/${id}`);
    assert.equal(shown.json().keys.length, 2);
    assert.ok(!shown.body.includes(key.key), 'the key is never shown again');
    assert.ok(!shown.body.includes('hash'));

    const r1 = await call('DELETE', `/keys/${key.id}`);
    assert.equal(r1.statusCode, 200);
    const r2 = await call('DELETE', `/keys/${key.id}`);
    assert.equal(r2.json().revoked_at, r1.json().revoked_at);
    const missing = await call('DELETE', '/keys/424242');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { error: 'key not found' });
    assert.equal((await call('POST', '/accounts/424242/keys', {})).statusCode, 404);
    assert.equal((await call('POST', `/accounts/${id}/keys`, { name: 'x'.repeat(101) })).statusCode, 400);
  });

  it("lists an account's usage newest first, in pages", async () => {
    const id = (await call('POST', '/accounts', { email: 'gus@example.com' })).json().id;
    await call('POST', `/accounts/${id}/credits`, { credits: 100 });
    const keyId = (await call('POST', `/accounts/${id}/keys`, {})).json().id;
    const billing = createBilling(t.deps.db, systemClock);
    const model = t.deps.config.catalog.models.get('svc-fast')!;
    for (let i = 1; i <= 3; i++) {
      const r = await billing.reserve({
        principal: { accountId: id, keyId, emailVerified: true, keyPrefix: 'svk_x' },
        model,
        endpoint: 'chat.completions',
        requestId: `req-${i}`,
        charge: { estimate: 1000n, minimum: 1n },
      });
      await billing.settle(r, { usage: { inputTokens: 1000 * i, outputTokens: 10 }, usageSource: i === 3 ? 'estimated' : 'upstream' });
    }
    const empty = await call('GET', `/accounts/${id}/usage?limit=500`);
    assert.equal(empty.statusCode, 200);
    const all = empty.json();
    assert.equal(all.account_id, id);
    assert.deepEqual(all.data.map((u: { request_id: string }) => u.request_id), ['req-3', 'req-2', 'req-1']);
    assert.equal(all.next_before, null);
    assert.equal(all.data[2].cost, 0.459, '1000 in * 0.45 + 10 out * 0.90 per 1K');
    assert.equal(all.data[0].usage_source, 'estimated');

    const p1 = (await call('GET', `/accounts/${id}/usage?limit=2`)).json();
    assert.equal(p1.data.length, 2);
    const p2 = (await call('GET', `/accounts/${id}/usage?limit=2&before=${p1.next_before}`)).json();
    assert.deepEqual(p2.data.map((u: { request_id: string }) => u.request_id), ['req-1']);
    for (const q of ['limit=0', 'limit=501', 'before=abc', 'page=2']) {
      assert.equal((await call('GET', `/accounts/${id}/usage?${q}`)).statusCode, 400, q);
    }
    assert.equal((await call('GET', '/accounts/424242/usage')).statusCode, 404);
  });
});

describe('admin command line: accounts and keys', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.listen();
  });
  after(() => t.close());

  async function run(...args: string[]): Promise<Record<string, unknown>> {
    const out: unknown[] = [];
    const program = buildAdminProgram(() => createAdminClient(t.url, TEST_ADMIN_TOKEN), (v) => out.push(v));
    await program.parseAsync(['node', 'admin', ...args]);
    return out[0] as Record<string, unknown>;
  }

  it('creates an account, credits it (negative too), issues and revokes a key and shows usage', async () => {
    const a = await run('accounts', 'create', 'cli@example.com', '--verified');
    assert.equal(a.email_verified, true);
    const id = String(a.id);
    assert.equal((await run('accounts', 'credit', id, '25.5', '--note', 'trial')).credits, 25.5);
    assert.equal((await run('accounts', 'credit', id, '-0.5')).credits, 25);
    const k = await run('keys', 'create', id, '--name', 'ci');
    assert.match(String(k.key), /^svk_/);
    assert.match(String((await run('keys', 'revoke', String(k.id))).revoked_at), /^\d{4}-/);
    const shown = await run('accounts', 'show', id);
    assert.equal((shown.keys as unknown[]).length, 1);
    assert.deepEqual((await run('accounts', 'usage', id, '--limit', '5')).data, []);
    const v = await run('accounts', 'create', 'cli2@example.com');
    assert.equal((await run('accounts', 'verify-email', String(v.id))).email_verified, true);
  });

  it('refuses bad arguments before calling the service', async () => {
    const program = buildAdminProgram(() => createAdminClient(t.url, TEST_ADMIN_TOKEN), () => {});
    const quiet = (c: typeof program) => {
      c.configureOutput({ writeErr: () => {} });
      c.commands.forEach(quiet);
    };
    quiet(program);
    await assert.rejects(program.parseAsync(['node', 'admin', 'accounts', 'credit', '1', '1.1234567']), /at most 6 decimals/);
    await assert.rejects(program.parseAsync(['node', 'admin', 'keys', 'revoke', 'abc']), /positive whole number/);
  });
});
