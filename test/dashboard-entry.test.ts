import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';

/** The inference document sends people "to the dashboard"; its address is the first they try. */
describe('GET /dashboard', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => t?.close());

  it('leads to the account pages, which send a visitor without a session to sign in', async () => {
    for (const url of ['/dashboard', '/dashboard/']) {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 302, `${url}: ${res.statusCode} ${res.body}`);
      assert.equal(res.headers.location, '/account');
    }
    const page = await t.app.inject({ url: '/account' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
  });

  it('leaves the JSON API under /dashboard/api as it was', async () => {
    const res = await t.app.inject({ url: '/dashboard/api/nothing-here' });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });
});
