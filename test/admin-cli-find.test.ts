import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from './helpers/admin-cli.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { signedUp } from './helpers/dashboard-session.ts';

/** Operators look accounts up by email (docs/operations.md; docs/api-decisions.md, "Dashboard: session 28 audit"). */
describe('admin command line: accounts find (session 28)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true' } });
    await t.listen();
  });
  after(() => t.close());

  it('finds an account by its email, any case, the exact match first', async () => {
    const ada = await signedUp(t.url, 'ada@example.com', 'a long ada password');
    const lada = await signedUp(t.url, 'lada@example.com', 'a long lada password');
    const r = await runAdmin(t.url, ['accounts', 'find', 'ADA@Example.com']);
    assert.equal(r.status, 0, r.stderr);
    const found = JSON.parse(r.stdout) as { id: number; email: string }[];
    assert.deepEqual(found.map((a) => [a.id, a.email]), [[ada.id, 'ada@example.com'], [lada.id, 'lada@example.com']]);
    const part = await runAdmin(t.url, ['accounts', 'find', 'example.com']);
    assert.equal(part.status, 0, part.stderr);
    assert.equal((JSON.parse(part.stdout) as unknown[]).length, 2);
  });

  it('says so and exits 1 when no account matches', async () => {
    const r = await runAdmin(t.url, ['accounts', 'find', 'nobody@example.org']);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no account's email contains "nobody@example\.org"/);
  });

  it('refuses a blank search, exit 1, before asking the service', async () => {
    const r = await runAdmin(t.url, ['accounts', 'find', '  ']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /invalid for argument 'email'\. expected an email or a part of one/);
  });
});
