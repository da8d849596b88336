import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from './helpers/admin-cli.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

describe('admin command line', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.listen();
  });
  after(() => t.close());

  it('calls the admin API over HTTP with the token', async () => {
    const r = await runAdmin(t.url, ['whoami']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { role: 'operator' });
  });

  it('reports a refused token and exits non-zero', async () => {
    const r = await runAdmin(t.url, ['whoami'], 'wrong-token-wrong-token');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /401: unauthorized/);
  });
});
