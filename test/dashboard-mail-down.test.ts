import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dashboardSession } from './helpers/dashboard-session.ts';
import { startGatewayWithMailbox, type Gateway } from './helpers/gateway.ts';
import { mailedToken, type Mailbox } from './helpers/mailbox.ts';

/**
 * The dashboard while its SMTP server is down: a sign-up still makes the account and says the
 * verification email could not be sent; Resend and a password reset answer 503 in the dashboard's
 * error shape, and work again once mail is back (docs/api-decisions.md, "Inference: ninth audit").
 */
describe('dashboard sign-up and mail while SMTP is down', () => {
  let g: Gateway;
  let mail: Mailbox;

  before(async () => void ({ g, mail } = await startGatewayWithMailbox()));
  after(() => g?.close());

  const browser = () => dashboardSession(g.t.url);

  it('sign-up answers 201 with the account, signed in, saying the email could not be sent and that Resend works', async () => {
    mail.down = true;
    const b = await browser();
    const email = `down${Date.now()}@example.com`;
    const r = await b.call('POST', '/sign-up', { email, password: 'a long passphrase' });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.equal(r.json.email, email);
    assert.equal(r.json.email_verified, false);
    assert.equal(r.json.verification_email_sent, false);
    assert.equal(r.json.message, 'your account was created, but the verification email could not be sent; use "Resend the link" on your account page to try again');
    await b.refresh();
    const session = await b.call('GET', '/session');
    assert.equal(session.json.signed_in, true);

    // Resend while mail is still down: a 503 in the dashboard's error shape, with a wait to honour.
    const down = await b.call('POST', '/verify-email/resend');
    assert.equal(down.status, 503);
    assert.deepEqual(down.json, { error: 'the email could not be sent - try again in a few minutes' });
    assert.equal(down.headers.get('retry-after'), '60');

    // Mail is back: Resend sends a link that verifies the account.
    mail.down = false;
    const up = await b.call('POST', '/verify-email/resend');
    assert.deepEqual([up.status, up.json], [200, { ok: true }]);
    const message = await mail.next(email, 'Verify your svc email');
    const token = mailedToken(message);
    const verified = await b.call('POST', '/verify-email', { token });
    assert.deepEqual([verified.status, verified.json], [200, { ok: true }]);
    assert.equal(((await b.call('GET', '/session')).json.account as { email_verified: boolean }).email_verified, true);
  });

  it('a sign-up with mail up says the email was sent, and carries no message', async () => {
    mail.down = false;
    const b = await browser();
    const email = `up${Date.now()}@example.com`;
    const r = await b.call('POST', '/sign-up', { email, password: 'a long passphrase' });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.equal(r.json.verification_email_sent, true);
    assert.equal('message' in r.json, false);
    await mail.next(email, 'Verify your svc email');
  });

  it('a password reset while mail is down is a 503, not a 500; an email without an account still answers ok', async () => {
    const b = await browser();
    const email = `reset${Date.now()}@example.com`;
    assert.equal((await b.call('POST', '/sign-up', { email, password: 'a long passphrase' })).status, 201);
    const other = await browser();
    mail.down = true;
    try {
      const r = await other.call('POST', '/password-reset', { email });
      assert.equal(r.status, 503);
      assert.deepEqual(r.json, { error: 'the email could not be sent - try again in a few minutes' });
      const unknown = await other.call('POST', '/password-reset', { email: `nobody${Date.now()}@example.com` });
      assert.deepEqual([unknown.status, unknown.json], [200, { ok: true }]);
    } finally {
      mail.down = false;
    }
  });
});
