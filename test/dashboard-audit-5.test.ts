import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { runAdmin } from './helpers/admin-cli.ts';
import { dashboardSession, type DashboardSession } from './helpers/dashboard-session.ts';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { mailText, startMailbox, type Mailbox } from './helpers/mailbox.ts';

/**
 * The account dashboard, fifth pass: the admin command line's key rename, and a password reset
 * whose steps commit together (docs/api-decisions.md, "Dashboard and accounts: fifth audit").
 */

const PASSWORD = 'a long passphrase';
const NEW_PASSWORD = 'a new passphrase';
const tokenIn = (message: string) => /token=([A-Za-z0-9_-]+)/.exec(mailText(message))![1]!;

let ip = 0;
const browserAt = (g: Gateway): Promise<DashboardSession> => dashboardSession(g.t.url, { headers: { 'x-forwarded-for': `198.51.100.${++ip}` } });

describe('dashboard accounts: fifth audit', () => {
  let g: Gateway;
  let mail: Mailbox;

  before(async () => {
    mail = await startMailbox();
    g = await startGateway({ env: { SMTP_URL: mail.url, TRUST_PROXY: 'true' } });
  });
  after(async () => {
    await g?.close();
    await mail?.close();
  });

  async function signedUp(email: string): Promise<{ b: DashboardSession; id: number }> {
    const b = await browserAt(g);
    const r = await b.call('POST', '/sign-up', { email, password: PASSWORD });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    await b.refresh();
    return { b, id: r.json.id as number };
  }

  describe('admin command line: keys rename', () => {
    it('renames a key over the admin API (trimmed; "" clears it) and prints the key row', async () => {
      const { b, id } = await signedUp('cli-rename@example.com');
      const made = await b.call('POST', '/keys', { name: 'laptop' });
      const keyId = String(made.json.id);
      const r = await runAdmin(g.t.url, ['keys', 'rename', keyId, '  build server  ']);
      assert.equal(r.status, 0, r.stderr);
      const row = JSON.parse(r.stdout) as Record<string, unknown>;
      assert.deepEqual([row.id, row.name, row.prefix], [made.json.id, 'build server', made.json.prefix]);
      assert.equal(row.key, undefined);
      const cleared = await runAdmin(g.t.url, ['keys', 'rename', keyId, '']);
      assert.equal(cleared.status, 0, cleared.stderr);
      assert.equal((JSON.parse(cleared.stdout) as { name: string }).name, '');
      const keys = (await b.call('GET', '/keys')).json.keys as { id: number; name: string }[];
      assert.deepEqual(keys.map((k) => k.name), ['']);
      assert.ok(id > 0);
    });

    it('refuses a bad name, an unknown key and a malformed id in the service\'s words, exiting non-zero', async () => {
      const { b } = await signedUp('cli-rename-bad@example.com');
      const keyId = String((await b.call('POST', '/keys', { name: 'laptop' })).json.id);
      const control = await runAdmin(g.t.url, ['keys', 'rename', keyId, 'two\nlines']);
      assert.equal(control.status, 1);
      assert.match(control.stderr, /400: name: must not contain control characters/);
      const missing = await runAdmin(g.t.url, ['keys', 'rename', '424242', 'x']);
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, /404: key not found/);
      const malformed = await runAdmin(g.t.url, ['keys', 'rename', 'abc', 'x']);
      assert.equal(malformed.status, 1);
      assert.match(malformed.stderr, /positive whole number/);
      const noName = await runAdmin(g.t.url, ['keys', 'rename', keyId]);
      assert.equal(noName.status, 1);
      assert.match(noName.stderr, /missing required argument 'name'/);
    });
  });

  describe('password reset: one transaction', () => {
    /**
     * A statement of the reset that fails as a crash would (a trigger raising on the account's
     * update of `column`), removed again by the returned function.
     */
    async function failUpdatesOf(column: 'email_verified' | 'password_hash', accountId: number): Promise<() => Promise<void>> {
      const db = g.t.deps.db;
      await sql`create function test_fail_reset() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(db);
      await sql
        .raw(`create trigger test_fail_reset before update of ${column} on accounts for each row when (new.id = ${accountId}) execute function test_fail_reset()`)
        .execute(db);
      return async () => {
        await sql`drop trigger test_fail_reset on accounts`.execute(db);
        await sql`drop function test_fail_reset()`.execute(db);
      };
    }
    async function resetLink(email: string): Promise<string> {
      const r = await browserAt(g);
      assert.deepEqual((await r.call('POST', '/password-reset', { email })).json, { ok: true });
      return tokenIn(await mail.next(email, 'Reset your svc password'));
    }
    const signIn = async (email: string, password: string) => (await (await browserAt(g)).call('POST', '/sign-in', { email, password })).status;

    it('a failure marking the email verified leaves the old password, the session and the link as they were', async () => {
      const email = 'reset-atomic-verify@example.com';
      const { b, id } = await signedUp(email);
      await mail.next(email, 'Verify your svc email');
      const token = await resetLink(email);
      const restore = await failUpdatesOf('email_verified', id);
      try {
        const r = await (await browserAt(g)).call('POST', '/password-reset/confirm', { token, password: NEW_PASSWORD });
        assert.equal(r.status, 500);
      } finally {
        await restore();
      }
      // Nothing of the reset stayed: not a new password beside an unverified email.
      assert.equal(await signIn(email, NEW_PASSWORD), 401);
      assert.equal(await signIn(email, PASSWORD), 200);
      assert.equal((await b.call('GET', '/session')).json.account !== null, true);
      // The link was not spent by the failed attempt: it works now, and does all of it.
      assert.deepEqual((await (await browserAt(g)).call('POST', '/password-reset/confirm', { token, password: NEW_PASSWORD })).json, { ok: true });
      const after = await (await browserAt(g)).call('POST', '/sign-in', { email, password: NEW_PASSWORD });
      assert.deepEqual([after.status, after.json.email_verified], [200, true]);
      assert.equal((await b.call('GET', '/session')).json.account, null);
    });

    it('a failure setting the password leaves the email unverified and the link usable', async () => {
      const email = 'reset-atomic-password@example.com';
      const { id } = await signedUp(email);
      await mail.next(email, 'Verify your svc email');
      const token = await resetLink(email);
      const restore = await failUpdatesOf('password_hash', id);
      try {
        assert.equal((await (await browserAt(g)).call('POST', '/password-reset/confirm', { token, password: NEW_PASSWORD })).status, 500);
      } finally {
        await restore();
      }
      const old = await (await browserAt(g)).call('POST', '/sign-in', { email, password: PASSWORD });
      assert.deepEqual([old.status, old.json.email_verified], [200, false]);
      assert.deepEqual((await (await browserAt(g)).call('POST', '/password-reset/confirm', { token, password: NEW_PASSWORD })).json, { ok: true });
      assert.equal(await signIn(email, NEW_PASSWORD), 200);
    });
  });
});
