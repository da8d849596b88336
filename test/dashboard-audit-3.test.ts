import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchChromium, openWatchedPage } from './helpers/chromium.ts';
import { dashboardSession, browserAt } from './helpers/dashboard-session.ts';
import { expectedCost, PRICES, startGatewayWithMailbox, type Gateway } from './helpers/gateway.ts';
import { mailedToken, type Mailbox } from './helpers/mailbox.ts';

/**
 * The account dashboard, third pass, as a brand-new and a careful user try it: addresses no mail
 * reaches, answers a cache may keep, reset links that outlive the reset, a first call with a key
 * made a moment before, and the pages signed out and on a failing API, in Debian's Chromium
 * (docs/api-decisions.md, "Dashboard and accounts: third audit").
 */

const PASSWORD = 'a long passphrase';
const INVALID_EMAIL = 'invalid email: expected an address like name@example.com';
const INVALID_LINK = 'this link is invalid, expired or already used';

describe('dashboard accounts: third audit', () => {
  let g: Gateway;
  let mail: Mailbox;

  before(async () => void ({ g, mail } = await startGatewayWithMailbox({ env: { TRUST_PROXY: 'true' } })));
  after(() => g?.close());

  it('refuses an address no mail can reach, before the password, and makes no account for it', async () => {
    // Each was a 201 whose verification mail the mail library refused: an account its owner could
    // never verify, taking the address, with a banner blaming the mail server.
    for (const email of ['someone@example..com', '<script>@example.com', 'a..b@example.com', 'name@-example.com', 'name@example.com.']) {
      const r = await (await browserAt(g.t.url)).call('POST', '/sign-up', { email, password: PASSWORD });
      assert.deepEqual([r.status, r.json], [400, { error: INVALID_EMAIL }], email);
    }
    // The form's first field is answered first: fixing the password must not reveal a second error.
    const both = await (await browserAt(g.t.url)).call('POST', '/sign-up', { email: 'someone@example..com', password: 'short' });
    assert.deepEqual([both.status, both.json], [400, { error: INVALID_EMAIL }]);
    const admin = await g.t.app.inject({ method: 'POST', url: '/admin/accounts', headers: g.t.admin, payload: { email: 'someone@example..com' } });
    assert.deepEqual([admin.statusCode, admin.json()], [400, { error: INVALID_EMAIL }]);
    const made = await g.t.deps.db.selectFrom('accounts').select('email').execute();
    assert.deepEqual(made.filter((a) => a.email.includes('example..com') || a.email.startsWith('<')), []);
    // Addresses people have still sign up and get their link.
    for (const email of ["o'brien+svc@mail.example.co.uk", 'josé@example.com']) {
      const r = await (await browserAt(g.t.url)).call('POST', '/sign-up', { email, password: PASSWORD });
      assert.equal(r.status, 201, `${email}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.verification_email_sent, true, email);
    }
  });

  it('tells every cache to keep no dashboard answer: the CSRF token, a new key, usage and the ledger', async () => {
    const b = await browserAt(g.t.url);
    assert.equal((await b.call('POST', '/sign-up', { email: 'no-store@example.com', password: PASSWORD })).status, 201);
    await b.refresh();
    const answers = [
      ['GET /session', await b.call('GET', '/session')],
      ['POST /keys', await b.call('POST', '/keys', { name: 'laptop' })],
      ['GET /keys', await b.call('GET', '/keys')],
      ['GET /usage', await b.call('GET', '/usage')],
      ['GET /credits', await b.call('GET', '/credits')],
      ['GET /usage?from=x (an error)', await b.call('GET', '/usage?from=x')],
    ] as const;
    for (const [name, r] of answers) assert.equal(r.headers.get('cache-control'), 'no-store', name);
    const csv = await fetch(`${g.t.url}/dashboard/api/usage.csv`, { headers: { cookie: b.cookieHeader() } });
    assert.equal(csv.status, 200);
    assert.equal(csv.headers.get('cache-control'), 'no-store');
  });

  it('a password reset ends the other reset links of the account, not only its sessions', async () => {
    const email = 'two-links@example.com';
    const b = await browserAt(g.t.url);
    assert.equal((await b.call('POST', '/sign-up', { email, password: PASSWORD })).status, 201);
    await mail.next(email, 'Verify your svc email');
    const r = await browserAt(g.t.url);
    assert.deepEqual((await r.call('POST', '/password-reset', { email })).json, { ok: true });
    const first = mailedToken(await mail.next(email, 'Reset your svc password'));
    assert.deepEqual((await r.call('POST', '/password-reset', { email })).json, { ok: true });
    const second = mailedToken(await mail.next(email, 'Reset your svc password'));
    assert.deepEqual((await r.call('POST', '/password-reset/confirm', { token: second, password: 'the owner chose this' })).json, { ok: true });
    // The earlier mail (a link requested by whoever could read the mailbox then) no longer sets a password.
    const old = await r.call('POST', '/password-reset/confirm', { token: first, password: 'somebody else chose' });
    assert.deepEqual([old.status, old.json], [400, { error: INVALID_LINK }]);
    assert.equal((await (await browserAt(g.t.url)).call('POST', '/sign-in', { email, password: 'the owner chose this' })).status, 200);
  });

  it('a key made a moment ago serves the official client at once, and Usage and Credits show exactly what was billed', async () => {
    const email = 'first-call@example.com';
    const b = await browserAt(g.t.url);
    const su = await b.call('POST', '/sign-up', { email, password: PASSWORD });
    await b.refresh();
    const key = (await b.call('POST', '/keys', { name: 'first' })).json;
    const client = g.client(key.key as string);
    const ask = () => client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hello' }] });
    await assert.rejects(ask(), (e: { status?: number; error?: unknown }) => e.status === 403 && JSON.stringify(e.error).includes('please verify your email first'));
    assert.deepEqual((await b.call('POST', '/verify-email', { token: mailedToken(await mail.next(email, 'Verify your svc email')) })).json, { ok: true });
    await assert.rejects(ask(), (e: { status?: number }) => e.status === 402);
    const grant = await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${su.json.id}/credits`, headers: g.t.admin, payload: { credits: 2, note: 'welcome' } });
    assert.equal(grant.statusCode, 200);
    const answer = await ask();
    const stream = await client.chat.completions.create({ model: 'svc-fast', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'again' }] });
    let streamed: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage;
    const costs = [answer.usage!, streamed!].map((u) => expectedCost(PRICES['svc-fast'], { input: u.prompt_tokens, output: u.completion_tokens }));
    const total = costs[0]! + costs[1]!;

    const usage = (await b.call('GET', '/usage')).json;
    assert.equal(usage.total_cost_micro, total.toString());
    assert.equal(usage.total_credits, Number(total) / 1_000_000);
    const recent = usage.recent as { cost_micro: string; input_tokens: number; output_tokens: number; model: string }[];
    assert.deepEqual(recent.map((r) => r.cost_micro).sort(), costs.map(String).sort());
    const credits = (await b.call('GET', '/credits')).json;
    const ledger = credits.ledger as { kind: string; amount_micro: string; note: string | null }[];
    assert.deepEqual(ledger.map((l) => [l.kind, l.amount_micro]), [['charge', (-costs[1]!).toString()], ['charge', (-costs[0]!).toString()], ['grant', '2000000']]);
    assert.equal((credits.account as { credits_micro: string }).credits_micro, (2_000_000n - total).toString());
    // The whole key was in the create answer only: the list has its prefix, the database its hash.
    const listed = ((await b.call('GET', '/keys')).json.keys as Record<string, unknown>[])[0]!;
    assert.equal(listed.prefix, (key.key as string).slice(0, 10));
    assert.ok(!JSON.stringify(listed).includes(key.key as string));
    const row = await g.t.deps.db.selectFrom('api_keys').selectAll().where('id', '=', key.id as number).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(key.key as string));
    assert.match(row.key_hash, /^[0-9a-f]{64}$/);
  });
});

describe('dashboard pages, third audit (Chromium)', { skip: chromiumSkip }, () => {
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

  const watchedPage = () => openWatchedPage(browser);

  it('a signed-out visit of an account page signs in and comes back to that page, never to another site', async () => {
    const { ctx, page, problems } = await watchedPage();
    const email = 'bookmark@example.com';
    const b = await dashboardSession(g.t.url);
    assert.equal((await b.call('POST', '/sign-up', { email, password: PASSWORD })).status, 201);
    for (const path of ['/account', '/account/keys', '/account/usage', '/account/credits']) {
      await page.goto(`${g.t.url}${path}`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    }
    await page.goto(`${g.t.url}/account/usage?from=2026-01-01`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, '/account/usage?from=2026-01-01');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // A `next` that leads off the account pages is not followed.
    for (const next of ['//evil.example/', 'https://evil.example/', '/console', '/\\evil.example']) {
      await page.goto(`${g.t.url}/?next=${encodeURIComponent(next)}`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      assert.equal(page.url(), `${g.t.url}/account`, next);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    }
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  it('the sign-in page offers its two forms as links a screen reader names as such, not as tabs without panels', async () => {
    const { ctx, page, problems } = await watchedPage();
    await page.goto(`${g.t.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await page.getByRole('tab').count(), 0);
    assert.equal(await page.getByRole('tablist').count(), 0);
    const current = page.getByRole('link', { name: 'Sign in', exact: true }).first();
    assert.equal(await current.getAttribute('aria-current'), 'page');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Create an account' }).getAttribute('aria-current'), 'page');
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  it('a verification link opened twice tells a signed-in user the email is verified, and a dead link leads to Resend', async () => {
    const { ctx, page, problems } = await watchedPage();
    const email = 'twice@example.com';
    await page.goto(`${g.t.url}/?tab=sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const link = `${g.t.url}/account/verify?token=${mailedToken(await mail.next(email, 'Verify your svc email'))}`;
    // A dead link (cut short by a mail client) while unverified: the way on is the account page's Resend.
    await page.goto(`${g.t.url}/account/verify?token=${'x'.repeat(43)}`);
    await page.getByText(INVALID_LINK).waitFor();
    await page.getByRole('link', { name: 'Go to your account to get a new link' }).click();
    await page.getByRole('button', { name: 'Resend the link' }).waitFor();
    await page.goto(link);
    await page.getByText('your email is verified').waitFor();
    // The same link again (a second click in the mail): the account is verified, and the page says so.
    await page.goto(link);
    await page.getByText('Your email is already verified').waitFor();
    await page.getByText(INVALID_LINK).waitFor();
    assert.deepEqual(problems.filter((p) => !p.includes('/dashboard/api/verify-email')), []);
    await ctx.close();
  });

  it('Back from the sign-in page a signed-out visit was sent to leaves, instead of being sent there again', async () => {
    const { ctx, page, problems } = await watchedPage();
    await page.goto(`${g.t.url}/account/forgot`);
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.goto(`${g.t.url}/account/keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(page.url(), `${g.t.url}/?next=%2Faccount%2Fkeys`);
    // The redirect replaced the page's own entry: Back is the page before it, not a loop.
    await page.goBack();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    assert.equal(page.url(), `${g.t.url}/account/forgot`);
    assert.deepEqual(problems, []);
    await ctx.close();
  });

  it('a page whose first request fails offers to try again, and does so', async () => {
    const { ctx, page } = await watchedPage();
    let fail = true;
    await page.route('**/dashboard/api/session', (route) => (fail ? route.abort() : route.continue()));
    await page.goto(`${g.t.url}/account/forgot`);
    await page.getByRole('heading', { name: 'Unavailable' }).waitFor();
    fail = false;
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await ctx.close();
  });
});
