import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { chromiumSkip, launchChromium, openWatchedPage, signUpInPage } from './helpers/chromium.ts';
import { startMailbox, type Mailbox } from './helpers/mailbox.ts';

/**
 * The account dashboard, session 28 (docs/api-decisions.md,
 * "Dashboard: session 28 audit"): each test failed before its fix.
 */
describe('dashboard pages, session 28 (Chromium)', { skip: chromiumSkip }, () => {
  // A local install: no SMTP_URL, so the mail goes to DATA_DIR/outbox.
  let local: TestApp;
  let localData: string;
  // An install with a mail server.
  let smtp: TestApp;
  let mail: Mailbox;
  let browser: Browser;

  before(async () => {
    localData = mkdtempSync(join(tmpdir(), 'svc-dash28-'));
    mail = await startMailbox();
    [local, smtp] = await Promise.all([startTestApp({ env: { DATA_DIR: localData } }), startTestApp({ env: { SMTP_URL: mail.url } })]);
    await Promise.all([local.listen(), smtp.listen()]);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await Promise.all([local?.close(), smtp?.close()]);
    await mail?.close();
    rmSync(localData, { recursive: true, force: true });
  });

  it('on a local install the verification banner says the email was written to the configured outbox, where it is', async () => {
    const { ctx, page, problems } = await openWatchedPage(browser);
    const outbox = join(localData, 'outbox');
    await page.goto(`${local.url}/?tab=sign-up`);
    // Signed out, the page names the setting, not a folder of the server's.
    await page.getByText('This service sends no email (SMTP_URL is not set): each link is written to a file in DATA_DIR/outbox/').waitFor();
    await signUpInPage(page, local.url, 'local@example.com', 'a long local password');
    const banner = page.locator('.banner[role=alert]');
    await banner.waitFor();
    const text = (await banner.textContent())!;
    assert.match(text, /SMTP_URL/, text);
    assert.ok(text.includes(`${outbox}/`), text);
    // The banner's words are true: the email is there, with its link.
    const files = readdirSync(outbox);
    assert.equal(files.length, 1);
    assert.match(readFileSync(join(outbox, files[0]!), 'utf8'), /\/account\/verify\?token=/);
    await page.getByRole('button', { name: 'Resend the link' }).click();
    await page.getByText(`A new verification link was written to ${outbox}/`).waitFor();
    assert.equal(readdirSync(outbox).length, 2);
    const anonymous = (await (await fetch(`${local.url}/dashboard/api/session`)).json()) as { sends_email: boolean; mail_outbox: string | null };
    assert.deepEqual([anonymous.sends_email, anonymous.mail_outbox], [false, null], 'no server path to a visitor not signed in');
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  it('with a mail server the banner and the sign-up page say nothing of an outbox', async () => {
    const { ctx, page, problems } = await openWatchedPage(browser);
    await page.goto(`${smtp.url}/?tab=sign-up`);
    await page.getByText('We email you a link to verify your address').waitFor();
    assert.doesNotMatch((await page.locator('main').textContent())!, /outbox/i);
    await signUpInPage(page, smtp.url, 'mailed@example.com', 'a long mailed password');
    const banner = page.locator('.banner[role=alert]');
    await banner.waitFor();
    assert.doesNotMatch((await banner.textContent())!, /outbox|SMTP/i);
    await mail.next('mailed@example.com', 'Verify your svc email');
    await page.getByRole('button', { name: 'Resend the link' }).click();
    await page.getByText('A new verification link was sent.').waitFor();
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  it('?topup=success claims no payment where card payments are not set up', async () => {
    const { ctx, page, problems } = await openWatchedPage(browser);
    await signUpInPage(page, local.url, 'nopay@example.com', 'a long nopay password');
    await page.goto(`${local.url}/account/credits?topup=success`);
    await page.getByRole('heading', { name: 'Credits', level: 1 }).waitFor();
    const text = (await page.locator('main').textContent())!;
    assert.doesNotMatch(text, /Payment received/);
    assert.match(text, /Card payments are not set up here/);
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  it('a reset asked for a malformed email says so under the field, not that a link is on its way', async () => {
    const { ctx, page, problems } = await openWatchedPage(browser);
    await page.goto(`${smtp.url}/account/forgot`);
    await page.getByLabel('Email').fill('ada@examplecom');
    await page.getByLabel('Email').press('Enter');
    await page.getByText('invalid email: expected an address like name@example.com').waitFor();
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    assert.doesNotMatch((await page.locator('#toast').textContent()) ?? '', /reset link/);
    // Chromium logs the refused request itself; the page's script logs nothing.
    assert.deepEqual(problems.filter((p) => !p.includes('status of 400 (Bad Request)')), []);
    await ctx.close();
  });

  it('revoking a key from the keyboard keeps the focus on the keys and takes away the secret shown for it', async () => {
    const { ctx, page, problems } = await openWatchedPage(browser);
    page.on('dialog', (d) => void d.accept());
    await signUpInPage(page, local.url, 'keyboard@example.com', 'a long keyboard password');
    await page.goto(`${local.url}/account/keys`);
    await page.getByLabel('Key name').fill('laptop');
    await page.getByLabel('Key name').press('Enter');
    await page.getByTestId('new-key').waitFor();
    await page.getByRole('button', { name: 'Revoke key laptop' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'revoked', exact: true }).waitFor();
    assert.equal(await page.getByTestId('new-key').count(), 0, 'the secret of a revoked key is no longer on the page');
    const focused = await page.evaluate<string>("document.activeElement ? document.activeElement.textContent : ''");
    assert.equal(focused, 'Your keys');
    assert.deepEqual(problems, []);
    await ctx.close();
  });
});
