import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { chromiumSkip, launchChromium, openWatchedPage, signUpInPage } from './helpers/chromium.ts';
import { mailedLink, startMailbox, type Mailbox } from './helpers/mailbox.ts';

/**
 * The account dashboard walked by a new user, session 29 (docs/api-decisions.md,
 * "Dashboard: session 29 audit"): each test failed before its fix.
 */
describe('dashboard pages, session 29 (Chromium)', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let mail: Mailbox;
  let browser: Browser;

  before(async () => {
    mail = await startMailbox();
    // TRUST_PROXY: each page below comes from an address of its own (x-forwarded-for).
    t = await startTestApp({ env: { SMTP_URL: mail.url, TRUST_PROXY: 'true' } });
    await t.listen();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await mail?.close();
  });

  /** The error line under the field labelled `label`, once it says something. */
  async function errorUnder(page: Page, label: string): Promise<string> {
    const input = page.getByLabel(label, { exact: true });
    const line = page.locator(`#${await input.getAttribute('aria-describedby')}`);
    await line.filter({ hasText: /./ }).waitFor();
    assert.equal(await input.getAttribute('aria-invalid'), 'true', label);
    return (await line.textContent())!;
  }

  // Chromium logs each refused request itself; the pages' scripts log nothing.
  const pageProblems = (problems: string[]) => problems.filter((p) => !/status of 40\d/.test(p));

  it('a field left empty or too long is named in words under it on every form, never in the schema validator\'s', async () => {
    const { ctx, page, problems } = await openWatchedPage(browser);
    await ctx.setExtraHTTPHeaders({ 'x-forwarded-for': '198.51.100.29' });
    const submit = async (name: string) => page.getByRole('button', { name, exact: true }).click();

    await page.goto(`${t.url}/?tab=sign-up`);
    await submit('Create account');
    assert.equal(await errorUnder(page, 'Email'), 'email: enter your email address');
    await page.getByLabel('Email').fill('ab');
    await submit('Create account');
    assert.equal(await errorUnder(page, 'Email'), 'invalid email: expected an address like name@example.com');
    await page.getByLabel('Email').fill('blank@example.com');
    await submit('Create account');
    assert.equal(await errorUnder(page, 'Password'), 'password: must be at least 10 characters');
    await page.getByLabel('Password').fill('p'.repeat(201));
    await submit('Create account');
    assert.equal(await errorUnder(page, 'Password'), 'password: must be at most 200 characters');

    await page.goto(`${t.url}/`);
    await submit('Sign in');
    assert.equal(await errorUnder(page, 'Email'), 'email: enter your email address');
    await page.getByLabel('Email').fill('blank@example.com');
    await submit('Sign in');
    assert.equal(await errorUnder(page, 'Password'), 'password: enter your password');

    await page.goto(`${t.url}/account/forgot`);
    await submit('Email me a link');
    assert.equal(await errorUnder(page, 'Email'), 'email: enter your email address');

    await page.goto(`${t.url}/account/reset?token=${'a'.repeat(43)}`);
    await submit('Set password');
    assert.equal(await errorUnder(page, 'New password'), 'password: must be at least 10 characters');

    // The console's form leaves an empty token to the browser's own check; its API names the field.
    const operator = await page.evaluate(async () => {
      const { csrf_token } = (await (await fetch('/dashboard/api/session')).json()) as { csrf_token: string };
      const r = await fetch('/dashboard/api/operator/sign-in', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf_token }, body: JSON.stringify({ token: '' }) });
      return [r.status, await r.json()] as const;
    });
    assert.deepEqual(operator, [400, { error: 'token: enter the admin token' }]);
    assert.deepEqual(pageProblems(problems), []);
    await ctx.close();
  });

  it('a reset link that is spent or expired says to ask for a new one and links there, instead of refusing the password typed', async () => {
    const { ctx, page, problems } = await openWatchedPage(browser);
    await ctx.setExtraHTTPHeaders({ 'x-forwarded-for': '198.51.100.30' });
    await signUpInPage(page, t.url, 'reset29@example.com', 'the first long password');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await page.goto(`${t.url}/account/forgot`);
    await page.getByLabel('Email').fill('reset29@example.com');
    await page.getByRole('button', { name: 'Email me a link' }).click();
    const link = mailedLink(await mail.next('reset29@example.com', 'Reset your svc password'), t.url);
    await page.goto(link);
    await page.getByLabel('New password').fill('the second long password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${t.url}/`);
    // The same link again (Back, or the mail opened a second time): no password typed can help.
    await page.goto(link);
    await page.getByLabel('New password').fill('the third long password');
    await page.getByRole('button', { name: 'Set password' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent())!, /this link is invalid, expired or already used/);
    assert.equal(await page.getByLabel('New password').count(), 0, 'the form of a dead link is gone');
    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await page.waitForURL(`${t.url}/account/forgot`);
    await page.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor();
    assert.deepEqual(pageProblems(problems), []);
    await ctx.close();
  });
});
