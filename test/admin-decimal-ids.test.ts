import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { dashboardSession } from './helpers/dashboard-session.ts';

// JavaScript's Number read by the schemas' coercion took these for 1 (docs/api-decisions.md,
// "Operator and dashboard ids: decimal digits").
const OTHER_SPELLINGS = ['0x1', '1e0', '+1', '1.0', ' 1', '0b1'];

describe('ids on the operator and dashboard APIs are decimal digits', () => {
  let t: TestApp;
  let accountId: number;
  let keyId: number;
  before(async () => {
    t = await startTestApp();
    await t.listen();
    const a = await t.app.inject({ method: 'POST', url: '/admin/accounts', headers: t.admin, payload: { email: 'ids@example.com', email_verified: true } });
    accountId = a.json().id as number;
    assert.equal(accountId, 1, 'the spellings below are of 1');
    const k = await t.app.inject({ method: 'POST', url: `/admin/accounts/${accountId}/keys`, headers: t.admin, payload: { name: 'k' } });
    keyId = k.json().id as number;
    assert.equal(keyId, 1);
  });
  after(() => t.close());

  const admin = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: t.admin, ...(payload ? { payload } : {}) });

  it('refuses another spelling of account 1 on every account route, before it reaches the account', async () => {
    for (const id of OTHER_SPELLINGS) {
      const p = encodeURIComponent(id);
      for (const [method, url, payload] of [
        ['GET', `/admin/accounts/${p}`],
        ['GET', `/admin/accounts/${p}/usage`],
        ['POST', `/admin/accounts/${p}/credits`, { credits: 5 }],
        ['POST', `/admin/accounts/${p}/verify-email`],
        ['POST', `/admin/accounts/${p}/keys`, { name: 'x' }],
      ] as const) {
        const r = await admin(method, url, payload);
        assert.equal(r.statusCode, 400, `${method} ${url}`);
        assert.deepEqual(r.json(), { error: 'invalid id: must be integer' }, `${method} ${url}`);
      }
    }
    // Nothing moved: no credits, one key.
    const a = (await admin('GET', '/admin/accounts/1')).json() as { credits_micro: string; keys: unknown[] };
    assert.equal(a.credits_micro, '0');
    assert.equal(a.keys.length, 1);
  });

  it('refuses another spelling of key 1, which stays live', async () => {
    for (const id of OTHER_SPELLINGS) {
      const r = await admin('DELETE', `/admin/keys/${encodeURIComponent(id)}`);
      assert.equal(r.statusCode, 400, id);
      assert.deepEqual(r.json(), { error: 'invalid id: must be integer' });
    }
    const keys = (await admin('GET', '/admin/accounts/1')).json().keys as { revoked_at: string | null }[];
    assert.equal(keys[0]!.revoked_at, null);
  });

  it('refuses another spelling of a query integer too, and still reads leading zeros as decimal', async () => {
    const bad = await admin('GET', '/admin/accounts/1/usage?limit=0x10');
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json(), { error: 'invalid limit: must be integer' });
    assert.equal((await admin('GET', '/admin/accounts/01')).statusCode, 200);
    assert.equal((await admin('GET', '/admin/accounts/1/usage?limit=010')).statusCode, 200);
  });

  it('refuses another spelling of a key id on the dashboard API, before the sign-in check', async () => {
    const browser = await dashboardSession(t.url);
    const odd = await browser.call('DELETE', '/keys/0x1');
    assert.equal(odd.status, 400);
    assert.deepEqual(odd.json, { error: 'invalid id: must be integer' });
    const plain = await browser.call('DELETE', '/keys/1');
    assert.equal(plain.status, 401);
  });
});
