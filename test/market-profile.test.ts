import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { issueApiKey } from '../src/market/auth/api-key.repository.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { signedRequest } from './helpers/market-client.ts';

describe('PUT /api/users/:wallet (wallet-signed profile)', () => {
  let t: TestApp;
  const alice = privateKeyToAccount(generatePrivateKey());
  const bob = privateKeyToAccount(generatePrivateKey());
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const put = async (signer: Parameters<typeof signedRequest>[0], wallet: string, body: unknown) =>
    t.app.inject(await signedRequest(signer, { method: 'PUT', url: `/api/users/${wallet}`, body }));

  it('sets and clears the username and avatar of the signing wallet, seen by GET', async () => {
    const r = await put({ account: alice }, alice.address, { username: 'alice_trader', avatar_url: 'https://img.example/a.png' });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().data, {
      wallet: alice.address.toLowerCase(),
      username: 'alice_trader',
      avatar_url: 'https://img.example/a.png',
    });
    const check = await t.app.inject('/api/users/check-username/ALICE_TRADER');
    assert.equal(check.json().data.available, false, 'names are unique whatever their case');
    const cleared = await put({ account: alice }, alice.address, { avatar_url: null });
    assert.equal(cleared.json().data.avatar_url, '', 'cleared reads "" (a string, as the spec types it)');
    assert.equal(cleared.json().data.username, 'alice_trader', 'a field left out stays');
  });

  it('refuses a missing signature, another wallet, an API key and a taken name', async () => {
    const none = await put(null, alice.address, { username: 'nobody' });
    assert.equal(none.statusCode, 401);
    assert.deepEqual(none.json(), { success: false, error: 'Signature required' });

    const other = await put({ account: bob }, alice.address, { username: 'bob_is_alice' });
    assert.equal(other.statusCode, 403);
    assert.deepEqual(other.json(), { success: false, error: 'Wallet mismatch' });

    const key = await issueApiKey(t.deps.db, t.deps.secretsKey, alice.address.toLowerCase());
    const viaKey = await put({ apiKey: key }, alice.address, { username: 'bot_name' });
    assert.equal(viaKey.statusCode, 403);
    assert.deepEqual(viaKey.json(), { success: false, error: 'Wallet signature required' });

    const taken = await put({ account: bob }, bob.address, { username: 'Alice_Trader' });
    assert.equal(taken.statusCode, 409);
    assert.deepEqual(taken.json(), { success: false, error: 'Username taken' });
  });

  it('answers bad input with 400 naming the field', async () => {
    const short = await put({ account: bob }, bob.address, { username: 'x' });
    assert.equal(short.statusCode, 400);
    assert.match(short.json().error, /username/i);
    const unknown = await put({ account: bob }, bob.address, { nickname: 'bobby' });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().error, /nickname/);
    const badWallet = await put({ account: bob }, '0x123', { username: 'bobby' });
    assert.equal(badWallet.statusCode, 400);
    assert.match(badWallet.json().error, /wallet/i);
  });
});
