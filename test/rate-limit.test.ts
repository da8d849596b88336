import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';

describe('market rate limit: 200 requests per minute per IP', () => {
  const apps: TestApp[] = [];
  after(async () => {
    for (const a of apps) await a.close();
  });

  it('refuses the 201st request of a minute from one IP with 429', async () => {
    const t = await startTestApp();
    apps.push(t);
    for (let i = 0; i < 200; i++) {
      const r = await t.app.inject({ url: '/api/time', remoteAddress: '10.1.1.1' });
      assert.equal(r.statusCode, 200, `request ${i + 1}`);
    }
    const refused = await t.app.inject({ url: '/api/time', remoteAddress: '10.1.1.1' });
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json(), { success: false, error: 'Rate limit exceeded' });
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    const other = await t.app.inject({ url: '/api/time', remoteAddress: '10.1.1.2' });
    assert.equal(other.statusCode, 200, 'another IP has its own budget');
  });

  it('reads the client IP from X-Forwarded-For only when TRUST_PROXY is on', async () => {
    const trusting = await startTestApp({ env: { TRUST_PROXY: 'true', RATE_LIMIT_MARKET_PER_MINUTE: '2' } });
    apps.push(trusting);
    const via = (ip: string) => trusting.app.inject({ url: '/api/time', headers: { 'x-forwarded-for': ip } });
    assert.equal((await via('1.1.1.1')).statusCode, 200);
    assert.equal((await via('1.1.1.1')).statusCode, 200);
    assert.equal((await via('1.1.1.1')).statusCode, 429);
    assert.equal((await via('2.2.2.2')).statusCode, 200);

    const plain = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: '2' } });
    apps.push(plain);
    const spoof = (ip: string) => plain.app.inject({ url: '/api/time', headers: { 'x-forwarded-for': ip } });
    assert.equal((await spoof('3.3.3.3')).statusCode, 200);
    assert.equal((await spoof('4.4.4.4')).statusCode, 200);
    assert.equal((await spoof('5.5.5.5')).statusCode, 429, 'a forged header does not buy a new budget');
  });

  it('shares the budget between two instances through Redis', { skip: !process.env.REDIS_URL && 'REDIS_URL not set' }, async () => {
    const prefix = `t${randomBytes(6).toString('hex')}`;
    const a = await startTestApp({ redisPrefix: prefix });
    apps.push(a);
    const b = await startTestApp({ redisPrefix: prefix, database: a.database });
    apps.push(b);
    for (let i = 0; i < 200; i++) {
      const app = i % 2 === 0 ? a.app : b.app;
      const r = await app.inject({ url: '/api/time', remoteAddress: '10.9.9.9' });
      assert.equal(r.statusCode, 200, `request ${i + 1}`);
    }
    for (const app of [a.app, b.app]) {
      const r = await app.inject({ url: '/api/time', remoteAddress: '10.9.9.9' });
      assert.equal(r.statusCode, 429);
      assert.deepEqual(r.json(), { success: false, error: 'Rate limit exceeded' });
    }
  });
});
