import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumSkip, launchChromium, signUpInPage, openWatchedPage } from './helpers/chromium.ts';
import { startGatewayWithMailbox, type Gateway } from './helpers/gateway.ts';
import { mailedLink, type Mailbox } from './helpers/mailbox.ts';

/**
 * A new user's path through the pages alone, with the browser's console watched: sign-up, the
 * emailed link, a key, credits granted in the operator console, a first call, usage, revocation,
 * sign-out (docs/api-decisions.md, "Dashboard and accounts: second audit").
 */
describe('dashboard pages, second audit (Chromium)', { skip: chromiumSkip }, () => {
  let gw: Gateway;
  let mail: Mailbox;
  let browser: Browser;

  before(async () => {
    ({ g: gw, mail } = await startGatewayWithMailbox());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  /** A page whose console errors, uncaught exceptions and failed requests are collected; every dialog is accepted. */
  async function watchedPage(): Promise<{ ctx: BrowserContext; page: Page; problems: string[] }> {
    const watched = await openWatchedPage(browser);
    watched.page.on('dialog', (d) => void d.accept());
    return watched;
  }
  const linkIn = (message: string): string => mailedLink(message, gw.t.url);

  it('takes a new user from sign-up to a working key and a first call through the pages only, with a clean console', async () => {
    const user = await watchedPage();
    const email = 'newcomer@example.com';
    await signUpInPage(user.page, gw.t.url, email, 'a long passphrase');
    await user.page.getByText('Verify your email').first().waitFor();
    await user.page.goto(linkIn(await mail.next(email, 'Verify your svc email')));
    await user.page.getByText('your email is verified').waitFor();
    await user.page.getByRole('link', { name: 'Go to your account' }).click();
    await user.page.getByRole('heading', { name: 'Overview' }).waitFor();
    // A new account has no credits: the pages say so and, with no card payments set up, whom to ask.
    await user.page.getByText('Your balance is 0.00 credits: calls are answered 402 until credits are added').waitFor();
    await user.page.getByRole('link', { name: 'Credits', exact: true }).click();
    const me = (await (await user.ctx.request.get(`${gw.t.url}/dashboard/api/session`)).json()) as { account: { id: number } };
    await user.page.getByText(`ask the operator of this service to add credits to account ${me.account.id} (${email})`).waitFor();

    // The operator grants credits in the console (new accounts start at zero).
    const op = await watchedPage();
    await op.page.goto(`${gw.t.url}/console`);
    await op.page.getByLabel('Admin token').fill(gw.t.admin.authorization.slice('Bearer '.length));
    await op.page.getByRole('button', { name: 'Open the console' }).click();
    await op.page.getByLabel('Find by email').fill(email);
    await op.page.getByRole('button', { name: 'Find' }).click();
    await op.page.getByRole('row', { name: new RegExp(email) }).getByRole('button', { name: 'Open' }).click();
    await op.page.getByLabel(/Grant credits/).fill('50');
    await op.page.getByRole('button', { name: 'Grant' }).click();
    await op.page.getByText('Balance 50.00 credits').waitFor();

    await user.page.getByRole('link', { name: 'Overview', exact: true }).click();
    await user.page.getByText('50.00 credits').waitFor();
    assert.equal(await user.page.getByText('Your balance is 0').count(), 0);
    await user.page.getByRole('link', { name: 'Keys', exact: true }).click();
    await user.page.getByLabel('Key name').fill('first key');
    await user.page.getByRole('button', { name: 'Create key' }).click();
    const key = (await user.page.getByTestId('new-key').textContent())!.trim();
    assert.match(key, /^svk_[A-Za-z0-9]{43}$/);
    const answer = await gw.client(key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'Say hi' }] });
    assert.equal(answer.model, 'svc-fast');

    await user.page.getByRole('link', { name: 'Usage', exact: true }).click();
    await user.page.getByTestId('usage-table').locator('tbody tr').first().waitFor();
    await user.page.getByRole('link', { name: 'Credits', exact: true }).click();
    await user.page.getByRole('heading', { name: 'Ledger' }).waitFor();
    await user.page.getByRole('button', { name: 'Sign out' }).click();
    await user.page.waitForURL(`${gw.t.url}/`);
    await user.page.getByRole('button', { name: 'Sign in' }).waitFor();

    // The console's session ends elsewhere: opening an account says why instead of doing nothing.
    const csrf = ((await (await op.ctx.request.get(`${gw.t.url}/dashboard/api/session`)).json()) as { csrf_token: string }).csrf_token;
    assert.equal((await op.ctx.request.post(`${gw.t.url}/dashboard/api/sign-out`, { headers: { 'x-csrf-token': csrf } })).status(), 200);
    await op.page.getByRole('row', { name: new RegExp(email) }).getByRole('button', { name: 'Open' }).click();
    await op.page.locator('#toast').filter({ hasText: 'unauthorized' }).waitFor();

    assert.deepEqual(user.problems, []);
    assert.deepEqual(op.problems.filter((p) => !p.includes('401')), []);
    await user.ctx.close();
    await op.ctx.close();
  });

  it('shows an error, not a stuck page, for a bad ledger cursor or usage range in the address', async () => {
    const user = await watchedPage();
    await signUpInPage(user.page, gw.t.url, 'cursor@example.com', 'a long passphrase');
    await user.page.goto(`${gw.t.url}/account/credits?before=abc`);
    await user.page.getByText('before: must be a ledger row id').waitFor({ timeout: 5000 });
    await user.page.goto(`${gw.t.url}/account/usage?from=2026-13-01`);
    await user.page.getByText('from: not a date').waitFor({ timeout: 5000 });
    assert.deepEqual(user.problems.filter((p) => !p.includes('400')), []);
    await user.ctx.close();
  });
});
