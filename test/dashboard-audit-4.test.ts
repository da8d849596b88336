import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '../src/config/index.ts';
import { createDeps } from '../src/deps.ts';
import { keyId } from '../src/shared/sealing-keys.ts';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from './helpers/app.ts';
import { chromiumSkip, launchChromium, signUpInPage, openWatchedPage } from './helpers/chromium.ts';
import { browserAt, signedUp as signedUpAt, type DashboardSession } from './helpers/dashboard-session.ts';
import { freshDatabase } from './helpers/database.ts';
import { startGatewayWithMailbox, type Gateway } from './helpers/gateway.ts';
import { mailedToken, mailedLink, type Mailbox } from './helpers/mailbox.ts';

/**
 * The account dashboard, fourth pass: key names a terminal or a log would misread, what a password
 * reset and a resent verification link prove, and an instance left on the old sealing key after a
 * rotation's re-seal (docs/api-decisions.md, "Dashboard and accounts: fourth audit").
 */

const PASSWORD = 'a long passphrase';
const INVALID_LINK = 'this link is invalid, expired or already used';
const SUPERSEDED_LINK = 'a newer verification link was sent: use the link in the newest email';
const CONTROL_NAME = 'name: must not contain control characters (line breaks, tabs, escapes, bidirectional controls)';
const LONG_NAME = 'name: must be at most 100 characters';

describe('dashboard accounts: fourth audit', () => {
  let g: Gateway;
  let mail: Mailbox;

  before(async () => void ({ g, mail } = await startGatewayWithMailbox({ env: { TRUST_PROXY: 'true' } })));
  after(() => g?.close());

  async function signedUp(email: string): Promise<{ b: DashboardSession; id: number }> {
    const b = await signedUpAt(g.t.url, email, PASSWORD);
    return { b, id: b.id };
  }
  const admin = (method: 'POST' | 'PATCH', url: string, payload: unknown) => g.t.app.inject({ method, url, headers: g.t.admin, payload: payload as object });

  describe('key names', () => {
    // Each was stored as given: a newline splits a log line or a CSV row in two, ESC drives the
    // operator's terminal, a bidi override shows `laptop` for a name that reads otherwise.
    const controls = ['two\nlines', 'carriage\rreturn', 'tab\there', 'esc \u001b[31mred', 'del\u007f', 'c1 \u0085 next line', 'line\u2028separator', 'paragraph\u2029separator', 'rlo \u202egnp.exe', 'isolate \u2066x\u2069', 'mark \u200f'];
    const fine = ['laptop', 'josé’s key', '👩‍💻 work', 'مفتاح الإنتاج', '  padded  '];

    it('the dashboard refuses a name with a control character, on creation and on rename, naming `name`', async () => {
      const { b } = await signedUp('names@example.com');
      const made = await b.call('POST', '/keys', { name: 'first' });
      assert.equal(made.status, 201);
      for (const name of controls) {
        const c = await b.call('POST', '/keys', { name });
        assert.deepEqual([c.status, c.json], [400, { error: CONTROL_NAME }], JSON.stringify(name));
        const r = await b.call('PATCH', `/keys/${made.json.id}`, { name });
        assert.deepEqual([r.status, r.json], [400, { error: CONTROL_NAME }], JSON.stringify(name));
      }
      const nul = await b.call('POST', '/keys', { name: 'nul\u0000byte' });
      assert.equal(nul.status, 400);
      assert.match(nul.json.error as string, /^(invalid )?name: /);
      const keys = (await b.call('GET', '/keys')).json.keys as { name: string }[];
      assert.deepEqual(keys.map((k) => k.name), ['first']);
      for (const name of fine) {
        const c = await b.call('POST', '/keys', { name });
        assert.deepEqual([c.status, c.json.name], [201, name.trim()], name);
      }
    });

    it('the dashboard renames a key of its own account: trimmed, blank refused, another account\'s key not found', async () => {
      const { b } = await signedUp('rename@example.com');
      const made = (await b.call('POST', '/keys', { name: 'old' })).json;
      const r = await b.call('PATCH', `/keys/${made.id}`, { name: '  new name  ' });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.deepEqual([r.json.id, r.json.name, r.json.prefix], [made.id, 'new name', made.prefix]);
      assert.deepEqual(((await b.call('GET', '/keys')).json.keys as { name: string }[]).map((k) => k.name), ['new name']);
      const blank = await b.call('PATCH', `/keys/${made.id}`, { name: '   ' });
      assert.deepEqual([blank.status, blank.json], [400, { error: 'name: must not be blank' }]);
      const other = await signedUp('rename-other@example.com');
      const theirs = await other.b.call('PATCH', `/keys/${made.id}`, { name: 'mine now' });
      assert.deepEqual([theirs.status, theirs.json], [404, { error: 'key not found' }]);
      // The key still works as before: a rename changes its label only.
      assert.deepEqual(((await b.call('GET', '/keys')).json.keys as { name: string }[]).map((k) => k.name), ['new name']);
    });

    it('the admin API refuses the same names in the same words, on issue and on rename', async () => {
      const { id } = await signedUp('admin-names@example.com');
      const made = await admin('POST', `/admin/accounts/${id}/keys`, { name: 'ops' });
      assert.equal(made.statusCode, 201);
      for (const name of controls) {
        const c = await admin('POST', `/admin/accounts/${id}/keys`, { name });
        assert.deepEqual([c.statusCode, c.json()], [400, { error: CONTROL_NAME }], JSON.stringify(name));
        const r = await admin('PATCH', `/admin/keys/${made.json().id}`, { name });
        assert.deepEqual([r.statusCode, r.json()], [400, { error: CONTROL_NAME }], JSON.stringify(name));
      }
      const renamed = await admin('PATCH', `/admin/keys/${made.json().id}`, { name: ' ci runner ' });
      assert.deepEqual([renamed.statusCode, renamed.json().name], [200, 'ci runner']);
      // The admin API may still issue an unnamed key (its name is optional there).
      assert.equal((await admin('POST', `/admin/accounts/${id}/keys`, {})).statusCode, 201);
      assert.deepEqual([(await admin('PATCH', '/admin/keys/2147483647', { name: 'x' })).statusCode], [404]);
    });

    it('a name is at most 100 characters, counted as stored (trimmed, a character being a code point), in the same words everywhere', async () => {
      const { b, id } = await signedUp('long-names@example.com');
      const key = (await b.call('POST', '/keys', { name: 'k' })).json;
      const adminKey = (await admin('POST', `/admin/accounts/${id}/keys`, { name: 'k' })).json();
      const longest = ['x'.repeat(100), '😀'.repeat(100), ` ${'y'.repeat(100)} `];
      for (const name of longest) {
        assert.equal((await b.call('POST', '/keys', { name })).status, 201, name);
        assert.equal((await b.call('PATCH', `/keys/${key.id}`, { name })).status, 200, name);
        assert.equal((await admin('POST', `/admin/accounts/${id}/keys`, { name })).statusCode, 201, name);
        assert.equal((await admin('PATCH', `/admin/keys/${adminKey.id}`, { name })).statusCode, 200, name);
      }
      for (const name of ['x'.repeat(101), '😀'.repeat(101), 'z'.repeat(5000)]) {
        const answers = [
          await b.call('POST', '/keys', { name }),
          await b.call('PATCH', `/keys/${key.id}`, { name }),
        ].map((r) => [r.status, r.json]);
        const adminAnswers = [
          await admin('POST', `/admin/accounts/${id}/keys`, { name }),
          await admin('PATCH', `/admin/keys/${adminKey.id}`, { name }),
        ].map((r) => [r.statusCode, r.json()]);
        for (const a of [...answers, ...adminAnswers]) assert.deepEqual(a, [400, { error: LONG_NAME }], name.slice(0, 3));
      }
    });
  });

  it('completing a password reset from the emailed link verifies the email: the link proved the inbox', async () => {
    const email = 'reset-verifies@example.com';
    const { b } = await signedUp(email);
    await mail.next(email, 'Verify your svc email');
    const key = (await b.call('POST', '/keys', { name: 'k' })).json.key as string;
    const chat = () => g.client(key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
    await assert.rejects(chat(), (e: { status?: number; error?: unknown }) => e.status === 403 && JSON.stringify(e.error).includes('please verify your email first'));
    const r = await browserAt(g.t.url);
    assert.deepEqual((await r.call('POST', '/password-reset', { email })).json, { ok: true });
    const token = mailedToken(await mail.next(email, 'Reset your svc password'));
    assert.deepEqual((await r.call('POST', '/password-reset/confirm', { token, password: 'a new passphrase' })).json, { ok: true });
    const signedIn = await r.call('POST', '/sign-in', { email, password: 'a new passphrase' });
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.json.email_verified, true);
    // The instance's cached key lookup learned it at once: the key is no longer answered 403.
    await assert.rejects(chat(), (e: { status?: number }) => e.status === 402);
    // Resend has nothing left to send.
    await r.refresh();
    const resend = await r.call('POST', '/verify-email/resend');
    assert.deepEqual([resend.status, resend.json], [409, { error: 'your email is already verified' }]);
  });

  it('only the newest verification link verifies; an earlier one says to use the newest email', async () => {
    const email = 'newest-link@example.com';
    const { b } = await signedUp(email);
    const first = mailedToken(await mail.next(email, 'Verify your svc email'));
    assert.deepEqual((await b.call('POST', '/verify-email/resend')).json, { ok: true });
    const second = mailedToken(await mail.next(email, 'Verify your svc email'));
    const old = await b.call('POST', '/verify-email', { token: first });
    assert.deepEqual([old.status, old.json], [400, { error: SUPERSEDED_LINK }]);
    assert.equal(((await b.call('GET', '/session')).json.account as { email_verified: boolean }).email_verified, false);
    assert.deepEqual((await b.call('POST', '/verify-email', { token: second })).json, { ok: true });
    // Used, the newest is used; the earlier one verifies nothing either.
    const again = await b.call('POST', '/verify-email', { token: second });
    assert.deepEqual([again.status, again.json], [400, { error: INVALID_LINK }]);
    assert.equal((await b.call('POST', '/verify-email', { token: first })).status, 400);
  });

  it('a Resend whose email was not sent leaves the earlier link working', async () => {
    const email = 'resend-not-sent@example.com';
    const { b } = await signedUp(email);
    const first = mailedToken(await mail.next(email, 'Verify your svc email'));
    mail.down = true;
    try {
      assert.equal((await b.call('POST', '/verify-email/resend')).status, 503);
    } finally {
      mail.down = false;
    }
    assert.deepEqual((await b.call('POST', '/verify-email', { token: first })).json, { ok: true });
  });
});

/**
 * Rotating SECRETS_KEY from A to B (docs/operations.md, "Rotating the sealing key") on one
 * database (PostgreSQL when DATABASE_URL is set): which configurations start before and after the
 * re-seal records B.
 */
describe('sealing key rotation: an instance left on the replaced key', () => {
  const keyA = randomBytes(32).toString('base64');
  const keyB = randomBytes(32).toString('base64');
  const keyC = randomBytes(32).toString('base64');
  const idOf = (key: string) => keyId(Buffer.from(key, 'base64')).toString('base64url');
  let database: Awaited<ReturnType<typeof freshDatabase>>;

  before(async () => {
    database = await freshDatabase();
  });
  after(async () => {
    await database?.close();
  });

  const started = async (env: Record<string, string>): Promise<TestApp> => startTestApp({ env, database });
  async function starts(env: Record<string, string>): Promise<void> {
    await (await started(env)).close();
  }
  async function refusesToStart(env: Record<string, string>, message: RegExp): Promise<void> {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-rotation-'));
    try {
      const config = loadConfig({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
      await assert.rejects(createDeps(config, { database }), (e: Error) => {
        assert.match(e.message, message);
        return true;
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const reseal = async (t: TestApp) => {
    const r = await t.app.inject({ method: 'POST', url: '/admin/secrets/reseal', headers: t.admin });
    assert.equal(r.statusCode, 200, r.body);
  };

  it('before the re-seal: "A", "A, previous B" and "B, previous A" all start', async () => {
    await starts({ SECRETS_KEY: keyA });
    await starts({ SECRETS_KEY: keyA, SECRETS_KEY_PREVIOUS: keyB });
    await starts({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA });
  });

  it('after the re-seal recorded B: "A, previous B" refuses, naming both keys by id; "B, previous A" and "B" start', async () => {
    const swapped = await started({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA });
    try {
      await reseal(swapped);
    } finally {
      await swapped.close();
    }
    const message = new RegExp(
      `^invalid configuration: SECRETS_KEY: is key ${idOf(keyA)}, which a re-seal replaced \\(\\S+\\); the recorded sealing key is key ${idOf(keyB)}, in this instance's SECRETS_KEY_PREVIOUS: ` +
        `this instance would seal with a key the other instances may no longer hold; give it SECRETS_KEY=<key ${idOf(keyB)}> and, while still needed, SECRETS_KEY_PREVIOUS=<key ${idOf(keyA)}> ` +
        `\\(docs/operations.md, "Rotating the sealing key"\\)$`,
    );
    await refusesToStart({ SECRETS_KEY: keyA, SECRETS_KEY_PREVIOUS: keyB }, message);
    await refusesToStart({ SECRETS_KEY: keyA, SECRETS_KEY_PREVIOUS: `${keyC},${keyB}` }, message);
    await starts({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA });
    await starts({ SECRETS_KEY: keyB });
    // The old key alone was refused already, in the words of another key.
    await refusesToStart({ SECRETS_KEY: keyA }, /^invalid configuration: SECRETS_KEY: differs from the sealing key of the other instances/);
  });

  it('a second rotation, B to C, runs the same way, and neither replaced key comes back as current', async () => {
    await starts({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyC });
    const swapped = await started({ SECRETS_KEY: keyC, SECRETS_KEY_PREVIOUS: keyB });
    try {
      await reseal(swapped);
    } finally {
      await swapped.close();
    }
    await starts({ SECRETS_KEY: keyC });
    await starts({ SECRETS_KEY: keyC, SECRETS_KEY_PREVIOUS: `${keyB},${keyA}` });
    await refusesToStart({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyC }, new RegExp(`is key ${idOf(keyB)}, which a re-seal replaced \\(\\S+\\); the recorded sealing key is key ${idOf(keyC)}`));
    await refusesToStart({ SECRETS_KEY: keyA, SECRETS_KEY_PREVIOUS: keyC }, new RegExp(`is key ${idOf(keyA)}, which a re-seal replaced \\(\\S+\\); the recorded sealing key is key ${idOf(keyC)}`));
  });
});

/**
 * A new user's path through the pages in Debian's Chromium, with the console watched: sign-up, a
 * Resend and the older link followed, the newest one, keys made, renamed and revoked, usage,
 * credits (no card payments here), sign-out, and a forgotten password whose reset verifies.
 */
describe('dashboard pages, fourth audit (Chromium)', { skip: chromiumSkip }, () => {
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

  /** A page whose console errors and uncaught exceptions are collected; a prompt is answered with `answers`' next text. */
  async function watchedPage(answers: string[] = []): Promise<{ ctx: BrowserContext; page: Page; problems: string[] }> {
    const watched = await openWatchedPage(browser);
    watched.page.on('dialog', (d) => void (d.type() === 'prompt' ? d.accept(answers.shift()) : d.accept()));
    return watched;
  }
  const linkIn = (message: string): string => mailedLink(message, g.t.url);

  it('sign-up, Resend, the older link says to use the newest, keys renamed and revoked, usage, credits, sign-out', async () => {
    const long = 'l'.repeat(101);
    const { ctx, page, problems } = await watchedPage(['  build server  ', long]);
    const email = 'walk-4@example.com';
    await signUpInPage(page, g.t.url, email, PASSWORD);
    const first = linkIn(await mail.next(email, 'Verify your svc email'));
    await page.getByRole('button', { name: 'Resend the link' }).click();
    await page.getByText('A new verification link was sent.').waitFor();
    const newest = linkIn(await mail.next(email, 'Verify your svc email'));
    await page.goto(first);
    await page.getByText(SUPERSEDED_LINK).waitFor();
    await page.goto(newest);
    await page.getByText('your email is verified').waitFor();
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Resend the link' }).count(), 0);

    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByLabel('Key name').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    assert.match(key, /^svk_/);
    // A name past the limit is typed in full (no maxlength counting UTF-16 units) and answered under the field.
    await page.getByLabel('Key name').fill('😀'.repeat(100));
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: `Key "${'😀'.repeat(100)}" created` }).waitFor();
    await page.getByLabel('Key name').fill(long);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText(LONG_NAME).waitFor();

    await page.getByRole('button', { name: 'Rename key laptop' }).click();
    await page.getByText('Key renamed to "build server".').waitFor();
    await page.getByRole('cell', { name: 'build server', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Rename key build server' }).click();
    await page.locator('#toast').filter({ hasText: LONG_NAME }).waitFor();
    await page.getByRole('button', { name: 'Revoke key build server' }).click();
    await page.getByText('Key "build server" revoked.').waitFor();
    await assert.rejects(g.client(key).models.list(), (e: { status?: number }) => e.status === 401);

    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await page.getByRole('link', { name: 'Credits', exact: true }).click();
    await page.getByText('Card payments are not set up here').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${g.t.url}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(problems.filter((p) => !p.includes('400')), []);
    await ctx.close();
  });

  it('a forgotten password reset from the emailed link leaves no verification banner behind', async () => {
    const { ctx, page, problems } = await watchedPage();
    const email = 'walk-4-reset@example.com';
    await signUpInPage(page, g.t.url, email, PASSWORD);
    await mail.next(email, 'Verify your svc email');
    await page.getByRole('button', { name: 'Resend the link' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.goto(linkIn(await mail.next(email, 'Reset your svc password')));
    await page.getByLabel('New password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Resend the link' }).count(), 0);
    assert.deepEqual(problems, []);
    await ctx.close();
  });
});
