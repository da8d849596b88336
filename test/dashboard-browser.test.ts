import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import Stripe from 'stripe';
import { DEFAULT_USAGE } from './fakes/fake-scenario.ts';
import { chromiumSkip, launchChromium, signUpInPage } from './helpers/chromium.ts';
import { expectedCost, PRICES, startGateway, type Gateway } from './helpers/gateway.ts';
import { mailedLink, startMailbox, type Mailbox } from './helpers/mailbox.ts';

const SHOTS = process.env.DASHBOARD_SCREENSHOTS; // a folder: write the docs' screenshots there
const WEBHOOK_SECRET = 'whsec_test_0123456789abcdef';

/** Stripe's API as far as Checkout creation goes, on loopback. */
async function startFakeStripe(): Promise<{ url: string; created: unknown[]; close(): Promise<void> }> {
  const created: unknown[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
        created.push(Object.fromEntries(new URLSearchParams(body)));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: `cs_test_${created.length}`, object: 'checkout.session', url: `${base}/pay/cs_test_${created.length}` }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Fake Stripe Checkout</title><h1>Fake Stripe Checkout</h1>');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, created, close: () => new Promise((r) => server.close(() => r())) };
}

describe('account dashboard in Chromium', { skip: chromiumSkip }, () => {
  let gw: Gateway;
  let mail: Mailbox;
  let stripeApi: Awaited<ReturnType<typeof startFakeStripe>>;
  let browser: Browser;
  const stripe = new Stripe('sk_test_unused');

  before(async () => {
    [mail, stripeApi] = await Promise.all([startMailbox(), startFakeStripe()]);
    gw = await startGateway({
      env: { SMTP_URL: mail.url, STRIPE_SECRET_KEY: 'sk_test_fake_0123456789', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripeApi.url },
    });
    browser = await launchChromium();
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
    await Promise.all([mail?.close(), stripeApi?.close()]);
  });

  async function newPage(width = 1200): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await ctx.newPage();
    page.on('dialog', (d) => void d.accept());
    return { ctx, page };
  }

  async function shoot(page: Page, name: string): Promise<void> {
    if (!SHOTS) return;
    await page.screenshot({ path: `${SHOTS}/${name}-desktop.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}/${name}-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1200, height: 900 });
  }

  const signUp = (page: Page, email: string, password: string) => signUpInPage(page, gw.t.url, email, password);

  async function webhook(body: object): Promise<{ status: number; json: { credited?: boolean; error?: string } }> {
    const payload = JSON.stringify(body);
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const r = await fetch(`${gw.t.url}/dashboard/api/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: payload });
    return { status: r.status, json: (await r.json()) as { credited?: boolean } };
  }

  it('sign-up, verification by email, a key, a billed call, usage, top-up once, revocation', async () => {
    const { ctx, page } = await newPage();
    const email = 'ada@example.com';
    if (SHOTS) {
      await page.goto(`${gw.t.url}/?tab=sign-up`);
      await shoot(page, 'sign-up');
    }
    await signUp(page, email, 'a long enough password');
    await page.getByText('Verify your email').waitFor();
    await shoot(page, 'overview-unverified');

    // The email came through a real SMTP server; its link verifies once.
    const link = mailedLink(await mail.next(email, 'Verify your svc email'), gw.t.url);
    await page.goto(link);
    await page.getByText('your email is verified').waitFor();
    await page.goto(link);
    await page.getByText('invalid, expired or already used').waitFor();

    // An operator grants credits (the account starts at zero).
    const me = await (await ctx.request.get(`${gw.t.url}/dashboard/api/session`)).json();
    const grant = await gw.t.app.inject({ method: 'POST', url: `/admin/accounts/${me.account.id}/credits`, headers: gw.t.admin, payload: { credits: 100 } });
    assert.equal(grant.statusCode, 200);

    await page.goto(`${gw.t.url}/account/keys`);
    await page.getByLabel('Key name').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    assert.match(key, /^svk_/);
    await shoot(page, 'keys');

    const answer = await gw.client(key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'Say hi' }] });
    assert.equal(answer.model, 'svc-fast');
    const cost = expectedCost(PRICES['svc-fast'], { input: DEFAULT_USAGE.input, output: DEFAULT_USAGE.output });

    await page.goto(`${gw.t.url}/account/usage`);
    const row = page.getByTestId('usage-table').locator('tbody tr').first();
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    const headers = await page.getByTestId('usage-table').locator('thead th').allTextContents();
    const cell = (name: string) => {
      assert.ok(headers.includes(name), `the usage table has a ${name} column`);
      return cells[headers.indexOf(name)]!;
    };
    assert.equal(cell('Model'), 'svc-fast');
    assert.equal(cell('Lane'), '', 'a plain model has no lane');
    assert.equal(cell('Tokens in'), String(DEFAULT_USAGE.input));
    assert.equal(cell('Out'), String(DEFAULT_USAGE.output));
    const shown = Number(cell('Credits').replace(/,/g, ''));
    assert.equal(Math.round(shown * 1e6), Number(cost), 'the usage page shows the exact charge');
    const api = await (await ctx.request.get(`${gw.t.url}/dashboard/api/usage`)).json();
    assert.equal(api.total_cost_micro, cost.toString());
    const csv = await (await ctx.request.get(`${gw.t.url}/dashboard/api/usage.csv`)).text();
    assert.match(csv.split('\r\n')[1]!, /svc-fast/);
    await shoot(page, 'usage');

    // Top-up: Checkout is created at (fake) Stripe; only the signed webhook credits, once.
    await page.goto(`${gw.t.url}/account/credits`);
    await page.getByLabel(/Amount/).fill('10');
    await page.getByRole('button', { name: 'Pay with Stripe' }).click();
    await page.getByText('Fake Stripe Checkout').waitFor();
    assert.equal(stripeApi.created.length, 1);
    // Checkout comes back to the Credits page, which says what happened.
    const checkout = stripeApi.created[0] as Record<string, string>;
    assert.equal(checkout.success_url, `${gw.t.url}/account/credits?topup=success`);
    assert.equal(checkout.cancel_url, `${gw.t.url}/account/credits?topup=cancelled`);
    const before = (await (await ctx.request.get(`${gw.t.url}/dashboard/api/credits`)).json()).account.credits_micro;
    const event = {
      id: 'evt_test_topup_1',
      object: 'event',
      type: 'checkout.session.completed',
      data: { object: { id: 'cs_test_1', object: 'checkout.session', payment_status: 'paid', currency: 'usd', amount_total: 1000, metadata: { account_id: String(me.account.id) }, client_reference_id: String(me.account.id) } },
    };
    assert.deepEqual((await webhook(event)).json, { received: true, credited: true });
    assert.deepEqual((await webhook(event)).json, { received: true, credited: false });
    const badSig = await fetch(`${gw.t.url}/dashboard/api/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, body: JSON.stringify(event) });
    assert.equal(badSig.status, 400);
    const afterTopUp = (await (await ctx.request.get(`${gw.t.url}/dashboard/api/credits`)).json()).account.credits_micro;
    assert.equal(BigInt(afterTopUp) - BigInt(before), 10_000n * 1_000_000n, '$10 = 10,000 credits, once');
    await page.goto(checkout.success_url!);
    await page.getByText('Payment received: credits appear here as soon as Stripe confirms it.').waitFor();
    await page.goto(checkout.cancel_url!);
    await page.getByText('Payment cancelled: nothing was charged.').waitFor();
    await page.goto(`${gw.t.url}/account/credits`);
    await shoot(page, 'credits');

    await page.goto(`${gw.t.url}/account/keys`);
    await page.getByRole('button', { name: 'Revoke key laptop' }).click();
    await page.getByText('revoked', { exact: true }).waitFor();
    await assert.rejects(gw.client(key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'again' }] }), (e: { status?: number }) => e.status === 401);
    await ctx.close();
  });

  it('a sign-up while the mail server is down makes the account, says the email was not sent, and Resend sends it once mail is back', async () => {
    const { ctx, page } = await newPage();
    mail.down = true;
    try {
      await signUp(page, 'frank@example.com', 'frank password 789');
      await page.getByText('We could not send the verification email to frank@example.com').waitFor();
      await page.getByRole('button', { name: 'Resend the link' }).click();
      await page.getByText('the email could not be sent - try again in a few minutes').waitFor();
    } finally {
      mail.down = false;
    }
    await page.getByRole('button', { name: 'Resend the link' }).click();
    await page.getByText('A new verification link was sent.').waitFor();
    await page.goto(mailedLink(await mail.next('frank@example.com', 'Verify your svc email'), gw.t.url));
    await page.getByText('your email is verified').waitFor();
    await ctx.close();
  });

  it('limits wrong passwords, resets a password by email, and refuses requests without the CSRF token', async () => {
    const { ctx, page } = await newPage();
    await signUp(page, 'bob@example.com', 'first password 123');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${gw.t.url}/`);

    const csrf = (await (await ctx.request.get(`${gw.t.url}/dashboard/api/session`)).json()).csrf_token;
    const attempt = (password: string) =>
      ctx.request.post(`${gw.t.url}/dashboard/api/sign-in`, { headers: { 'x-csrf-token': csrf }, data: { email: 'bob@example.com', password } });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await attempt('wrong password!')).status());
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
    assert.equal(statuses[10], 429);
    assert.match((await (await attempt('first password 123')).json()).error, /too many attempts/);

    const noToken = await ctx.request.post(`${gw.t.url}/dashboard/api/password-reset`, { data: { email: 'bob@example.com' } });
    assert.equal(noToken.status(), 403);
    assert.match((await noToken.json()).error, /CSRF/);

    await page.goto(`${gw.t.url}/account/forgot`);
    await page.getByLabel('Email').fill('bob@example.com');
    await page.getByRole('button', { name: 'Email me a link' }).click();
    const link = mailedLink(await mail.next('bob@example.com', 'Reset your svc password'), gw.t.url);
    await page.goto(link);
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('password: must be at least 10 characters').waitFor();
    await page.getByLabel('New password').fill('second password 456');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${gw.t.url}/`);
    await ctx.close();

    // A fresh browser (another IP bucket is not needed: the limit is per email too, so use the API on a new email).
    const other = await newPage();
    await signUp(other.page, 'carol@example.com', 'carol password 1');
    await other.ctx.close();
  });

  it("one account's session cannot read or act on another's", async () => {
    const a = await newPage();
    const b = await newPage();
    await signUp(a.page, 'dan@example.com', 'dan password 123');
    await signUp(b.page, 'eve@example.com', 'eve password 123');
    const aCsrf = (await (await a.ctx.request.get(`${gw.t.url}/dashboard/api/session`)).json()).csrf_token;
    const created = await a.ctx.request.post(`${gw.t.url}/dashboard/api/keys`, { headers: { 'x-csrf-token': aCsrf }, data: { name: 'dan key' } });
    assert.equal(created.status(), 201);
    const keyId = (await created.json()).id;
    const bSession = await (await b.ctx.request.get(`${gw.t.url}/dashboard/api/session`)).json();
    const bKeys = await (await b.ctx.request.get(`${gw.t.url}/dashboard/api/keys`)).json();
    assert.deepEqual(bKeys.keys, []);
    const steal = await b.ctx.request.delete(`${gw.t.url}/dashboard/api/keys/${keyId}`, { headers: { 'x-csrf-token': bSession.csrf_token } });
    assert.equal(steal.status(), 404);
    // B's CSRF token with A's cookie is refused too.
    const crossed = await a.ctx.request.delete(`${gw.t.url}/dashboard/api/keys/${keyId}`, { headers: { 'x-csrf-token': bSession.csrf_token } });
    assert.equal(crossed.status(), 403);
    const stillActive = await (await a.ctx.request.get(`${gw.t.url}/dashboard/api/keys`)).json();
    assert.equal(stillActive.keys[0].revoked_at, null);
    await a.ctx.close();
    await b.ctx.close();
  });

  it('the operator console resolves a market after two confirmations', async () => {
    const { ctx, page } = await newPage();
    await page.goto(`${gw.t.url}/console`);
    await page.getByLabel('Admin token').fill('wrong token value');
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByText('wrong admin token').waitFor();
    await page.getByLabel('Admin token').fill(gw.t.admin.authorization.slice('Bearer '.length));
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('tab', { name: 'Accounts' }).waitFor();
    await page.getByText('ada@example.com').first().waitFor();
    await shoot(page, 'console-accounts');

    await page.goto(`${gw.t.url}/console?tab=markets`);
    await page.getByLabel('Title').fill('Will the console work?');
    await page.getByRole('button', { name: 'Create market' }).click();
    await page.getByRole('cell', { name: 'Will the console work?' }).waitFor();
    const id = (await page.getByRole('row', { name: /Will the console work\?/ }).locator('td').first().textContent())!.trim();
    const dialogs: string[] = [];
    page.removeAllListeners('dialog');
    page.on('dialog', (d) => {
      dialogs.push(d.type());
      void (d.type() === 'prompt' ? d.accept('yes') : d.accept());
    });
    await page.getByRole('button', { name: `Resolve market ${id}` }).click();
    await page.getByRole('row', { name: /Will the console work\?/ }).getByText('resolved').waitFor();
    assert.deepEqual(dialogs, ['prompt', 'confirm', 'confirm']);
    const market = await gw.t.app.inject({ url: `/api/markets/${id}` });
    assert.equal(market.json().data.status, 'resolved');
    await shoot(page, 'console-markets');
    await ctx.close();
  });
});
