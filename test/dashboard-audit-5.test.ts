import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { runAdmin } from './helpers/admin-cli.ts';
import { chromiumSkip, launchChromium, signUpInPage, consoleProblems } from './helpers/chromium.ts';
import { browserAt, signedUp as signedUpAt, type DashboardSession } from './helpers/dashboard-session.ts';
import { startGatewayWithMailbox, type Gateway } from './helpers/gateway.ts';
import { mailText, mailedToken, type Mailbox } from './helpers/mailbox.ts';

/**
 * The account dashboard, fifth pass: the admin command line's key rename, and a password reset
 * whose steps commit together (docs/api-decisions.md, "Dashboard and accounts: fifth audit").
 */

const PASSWORD = 'a long passphrase';
const NEW_PASSWORD = 'a new passphrase';
const SESSION_ENDED = 'your session has ended - sign in again';

describe('dashboard accounts: fifth audit', () => {
  let g: Gateway;
  let mail: Mailbox;

  before(async () => void ({ g, mail } = await startGatewayWithMailbox({ env: { TRUST_PROXY: 'true' } })));
  after(() => g?.close());

  async function signedUp(email: string): Promise<{ b: DashboardSession; id: number }> {
    const b = await signedUpAt(g.t.url, email, PASSWORD);
    return { b, id: b.id };
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

  it('a write carrying the cookie of a session that ended is 401 `your session has ended - sign in again`, not a CSRF refusal', async () => {
    const email = 'ended-session@example.com';
    const { b } = await signedUp(email);
    const keyId = (await b.call('POST', '/keys', { name: 'k' })).json.id as number;
    // Ended by expiry: the page still holds the session's token and the browser its cookie.
    await sql`update dashboard_sessions set expires_at = now() - interval '1 second' where account_id = (select id from accounts where email = ${email})`.execute(g.t.deps.db);
    for (const [method, path, body] of [['POST', '/keys', { name: 'x' }], ['PATCH', `/keys/${keyId}`, { name: 'y' }], ['DELETE', `/keys/${keyId}`, undefined], ['POST', '/verify-email/resend', undefined], ['POST', '/sign-out', undefined]] as const) {
      const r = await b.call(method, path, body);
      assert.deepEqual([r.status, r.json], [401, { error: SESSION_ENDED }], `${method} ${path}`);
    }
    // Without a session cookie, or with a live session and a wrong token, it is the CSRF refusal.
    const fresh = await browserAt(g.t.url);
    const noToken = await fetch(`${g.t.url}/dashboard/api/keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: fresh.cookieHeader() }, body: '{"name":"x"}' });
    assert.equal(noToken.status, 403);
    const { b: live } = await signedUp('live-session@example.com');
    const wrong = await fetch(`${g.t.url}/dashboard/api/keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: live.cookieHeader(), 'x-csrf-token': 'wrong' }, body: '{"name":"x"}' });
    assert.deepEqual([wrong.status, await wrong.json()], [403, { error: 'missing or wrong CSRF token; reload the page' }]);
    assert.equal(((await live.call('GET', '/keys')).json.keys as unknown[]).length, 0);
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
      const r = await browserAt(g.t.url);
      assert.deepEqual((await r.call('POST', '/password-reset', { email })).json, { ok: true });
      return mailedToken(await mail.next(email, 'Reset your svc password'));
    }
    const signIn = async (email: string, password: string) => (await (await browserAt(g.t.url)).call('POST', '/sign-in', { email, password })).status;

    it('a failure marking the email verified leaves the old password, the session and the link as they were', async () => {
      const email = 'reset-atomic-verify@example.com';
      const { b, id } = await signedUp(email);
      await mail.next(email, 'Verify your svc email');
      const token = await resetLink(email);
      const restore = await failUpdatesOf('email_verified', id);
      try {
        const r = await (await browserAt(g.t.url)).call('POST', '/password-reset/confirm', { token, password: NEW_PASSWORD });
        assert.equal(r.status, 500);
      } finally {
        await restore();
      }
      // Nothing of the reset stayed: not a new password beside an unverified email.
      assert.equal(await signIn(email, NEW_PASSWORD), 401);
      assert.equal(await signIn(email, PASSWORD), 200);
      assert.equal((await b.call('GET', '/session')).json.account !== null, true);
      // The link was not spent by the failed attempt: it works now, and does all of it.
      assert.deepEqual((await (await browserAt(g.t.url)).call('POST', '/password-reset/confirm', { token, password: NEW_PASSWORD })).json, { ok: true });
      const after = await (await browserAt(g.t.url)).call('POST', '/sign-in', { email, password: NEW_PASSWORD });
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
        assert.equal((await (await browserAt(g.t.url)).call('POST', '/password-reset/confirm', { token, password: NEW_PASSWORD })).status, 500);
      } finally {
        await restore();
      }
      const old = await (await browserAt(g.t.url)).call('POST', '/sign-in', { email, password: PASSWORD });
      assert.deepEqual([old.status, old.json.email_verified], [200, false]);
      assert.deepEqual((await (await browserAt(g.t.url)).call('POST', '/password-reset/confirm', { token, password: NEW_PASSWORD })).json, { ok: true });
      assert.equal(await signIn(email, NEW_PASSWORD), 200);
    });
  });
});

describe('dashboard pages, fifth audit (Chromium)', { skip: chromiumSkip }, () => {
  let g: Gateway;
  let mail: Mailbox;
  let browser: Browser;

  before(async () => {
    ({ g, mail } = await startGatewayWithMailbox());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await g?.close();
  });

  async function watched(ctx: BrowserContext): Promise<{ page: Page; problems: string[] }> {
    const page = await ctx.newPage();
    const problems = consoleProblems(page);
    page.on('dialog', (d) => void d.accept());
    return { page, problems };
  }
  const noSidewaysScroll = async (page: Page, what: string) =>
    assert.deepEqual(await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]'), [375, 375], what);

  it('a new user at phone width, by keyboard: sign-up, the mailed link, a key copied and used, usage and credits, revoked, signed out', async () => {
    const ctx = await browser.newContext({ viewport: { width: 375, height: 740 } });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: g.t.url });
    const { page, problems } = await watched(ctx);
    const email = 'walk-5@example.com';
    await page.goto(`${g.t.url}/?tab=sign-up`);
    await noSidewaysScroll(page, 'sign-up');
    // A short password is answered under its field, which takes the focus and names the error.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.keyboard.press('Enter');
    const short = page.getByText('password: must be at least 10 characters');
    await short.waitFor();
    assert.deepEqual(
      await page.evaluate("[document.activeElement.getAttribute('aria-invalid'), document.getElementById(document.activeElement.getAttribute('aria-describedby')).textContent]"),
      ['true', 'password: must be at least 10 characters'],
    );
    await page.getByLabel('Password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${g.t.url}/account`);
    await noSidewaysScroll(page, 'overview');
    const link = new URL(/https?:\/\/\S+\/account\/verify\?token=[A-Za-z0-9_-]+/.exec(mailText(await mail.next(email, 'Verify your svc email')))![0]);
    await page.goto(`${g.t.url}${link.pathname}${link.search}`);
    await page.getByText('your email is verified').waitFor();
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByLabel('Key name').fill('phone');
    await page.keyboard.press('Enter');
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    await noSidewaysScroll(page, 'keys with the new secret');
    await page.getByRole('button', { name: 'Copy', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);

    const id = ((await (await fetch(`${g.t.url}/admin/accounts?email=${email}`, { headers: g.t.admin })).json()) as { data: { id: number }[] }).data[0]!.id;
    await fetch(`${g.t.url}/admin/accounts/${id}/credits`, { method: 'POST', headers: { ...g.t.admin, 'content-type': 'application/json' }, body: '{"credits":10}' });
    const chat = await g.client(key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
    assert.ok(chat.usage);
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByTestId('usage-table').getByRole('cell', { name: 'svc-fast', exact: true }).waitFor();
    await noSidewaysScroll(page, 'usage');
    await page.getByRole('link', { name: 'Credits', exact: true }).click();
    await page.getByRole('cell', { name: 'charge', exact: true }).waitFor();
    await noSidewaysScroll(page, 'credits');
    // Back and Forward walk the pages visited.
    await page.goBack();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await page.goForward();
    await page.getByRole('heading', { name: 'Credits' }).waitFor();

    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('button', { name: 'Revoke key phone' }).click();
    await page.getByText('Key "phone" revoked.').waitFor();
    await assert.rejects(g.client(key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }), (e: { status?: number }) => e.status === 401);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${g.t.url}/`);
    await page.goto(`${g.t.url}/account/keys`);
    await page.waitForURL(`${g.t.url}/?next=%2Faccount%2Fkeys`);
    // The short password's 400 is the only failed request.
    assert.deepEqual(problems.filter((p) => !p.includes('status of 400')), []);
    await ctx.close();
  });

  it('a page left open after its session ended elsewhere sends a write to sign-in, saying so, and comes back after', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const { page } = await watched(ctx);
    const email = 'two-tabs-5@example.com';
    await signUpInPage(page, g.t.url, email, PASSWORD);
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByLabel('Key name').fill('one');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-key').waitFor();
    // Signed out in a second tab: the first still shows the account.
    const { page: tab2 } = await watched(ctx);
    await tab2.goto(`${g.t.url}/account`);
    await tab2.getByRole('button', { name: 'Sign out' }).click();
    await tab2.waitForURL(`${g.t.url}/`);
    await page.getByLabel('Key name').fill('two');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL(`${g.t.url}/?next=%2Faccount%2Fkeys`);
    await page.locator('#toast').filter({ hasText: SESSION_ENDED }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${g.t.url}/account/keys`);
    await page.getByRole('cell', { name: 'one', exact: true }).waitFor();
    // The session expires while the page is open: Sign out (and every write) leads to sign-in.
    await sql`update dashboard_sessions set expires_at = now() - interval '1 second'`.execute(g.t.deps.db);
    await page.getByRole('button', { name: 'Rename key one' }).click();
    await page.waitForURL(`${g.t.url}/?next=%2Faccount%2Fkeys`);
    await page.locator('#toast').filter({ hasText: SESSION_ENDED }).waitFor();
    await ctx.close();
  });
});
