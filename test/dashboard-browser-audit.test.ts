import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumSkip, launchChromium, signUpInPage } from './helpers/chromium.ts';
import { startGateway, type Gateway } from './helpers/gateway.ts';

/**
 * The dashboard's pages show what the API answers, where docs/dashboard.md says: under the field
 * the error names, and for actions outside forms (revoke, sign out) in the status line
 * (docs/api-decisions.md, "Dashboard and accounts audit").
 */
describe('dashboard pages show the errors the API returns (Chromium)', { skip: chromiumSkip }, () => {
  let gw: Gateway;
  let browser: Browser;

  before(async () => {
    gw = await startGateway();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  async function newPage(): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await ctx.newPage();
    page.on('dialog', (d) => void d.accept());
    return { ctx, page };
  }

  /** The error line under the input labelled `label`, once it has text, and whether the input is marked invalid. */
  async function errorUnder(page: Page, label: string): Promise<{ text: string; invalid: string | null }> {
    const input = page.getByLabel(label, { exact: true });
    const errorId = (await input.getAttribute('aria-describedby'))!;
    const line = page.locator(`[id="${errorId}"]`);
    await line.filter({ hasText: /./ }).waitFor();
    return { text: (await line.textContent())!, invalid: await input.getAttribute('aria-invalid') };
  }

  it('puts a password error under the password, not the email', async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${gw.t.url}/?tab=sign-up`);
    await page.getByLabel('Email').fill('long-password@example.com');
    await page.getByLabel('Password').fill('p'.repeat(201));
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.deepEqual(await errorUnder(page, 'Password'), { text: 'password: must be at most 200 characters', invalid: 'true' });
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), null);

    // The API's own words for a taken address and a wrong password, on the page.
    await signUpInPage(page, gw.t.url, 'taken@example.com', 'a long passphrase');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${gw.t.url}/`);
    await page.goto(`${gw.t.url}/?tab=sign-up`);
    await page.getByLabel('Email').fill('TAKEN@example.com');
    await page.getByLabel('Password').fill('a long passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.equal((await errorUnder(page, 'Email')).text, 'an account with this email already exists');
    await page.goto(`${gw.t.url}/`);
    await page.getByLabel('Email').fill('taken@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal((await errorUnder(page, 'Email')).text, 'wrong email or password');
    await ctx.close();
  });

  it('says why a key was not revoked when the API refuses, and names a blank key name', async () => {
    const { ctx, page } = await newPage();
    await signUpInPage(page, gw.t.url, 'revoke@example.com', 'a long passphrase');
    await page.goto(`${gw.t.url}/account/keys`);
    await page.getByLabel('Key name').fill('   ');
    await page.getByRole('button', { name: 'Create key' }).click();
    assert.equal((await errorUnder(page, 'Key name')).text, 'name: must not be blank');
    await page.getByLabel('Key name').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-key').waitFor();

    // The session ends elsewhere (another tab signs out) while this page is open.
    const csrf = (await (await ctx.request.get(`${gw.t.url}/dashboard/api/session`)).json()).csrf_token;
    assert.equal((await ctx.request.post(`${gw.t.url}/dashboard/api/sign-out`, { headers: { 'x-csrf-token': csrf } })).status(), 200);
    // The page reads the session again and sends its user to sign in, saying why (fifth dashboard
    // audit; it had shown the CSRF refusal and stayed, looking signed in).
    await page.getByRole('button', { name: 'Revoke key laptop' }).click();
    await page.waitForURL(`${gw.t.url}/?next=%2Faccount%2Fkeys`);
    await page.locator('#toast').filter({ hasText: 'your session has ended - sign in again' }).waitFor();
    await ctx.close();
  });
});
