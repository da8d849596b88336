import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { browserAt, signedUp, type DashboardSession } from './helpers/dashboard-session.ts';
import { startGatewayWithMailbox, type Gateway } from './helpers/gateway.ts';
import { mailedToken, type Mailbox } from './helpers/mailbox.ts';

/**
 * The account dashboard's API, second pass, as a new user and a curious second user try it:
 * keys revoked while cached, every account-scoped route with another account's ids, sessions
 * after sign-out, and usage figures of streams, cached input and images
 * (docs/api-decisions.md, "Dashboard and accounts: second audit").
 */

const PASSWORD = 'a long passphrase';

interface Member extends DashboardSession {
  readonly id: number;
  readonly key: string;
  readonly keyId: number;
}

describe('dashboard accounts: second audit', () => {
  let g: Gateway;
  let mail: Mailbox;

  before(async () => void ({ g, mail } = await startGatewayWithMailbox({ env: { TRUST_PROXY: 'true' } })));
  after(() => g?.close());

  /** Signed up, verified by the emailed link, granted credits, with one key: all through the dashboard API but the grant. */
  async function member(email: string, credits = 100): Promise<Member> {
    const b = await signedUp(g.t.url, email, PASSWORD);
    assert.deepEqual((await b.call('POST', '/verify-email', { token: mailedToken(await mail.next(email, 'Verify your svc email')) })).json, { ok: true });
    const { id } = b;
    const grant = await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${id}/credits`, headers: g.t.admin, payload: { credits } });
    assert.equal(grant.statusCode, 200);
    const k = await b.call('POST', '/keys', { name: 'main' });
    assert.equal(k.status, 201);
    return Object.assign(b, { id, key: k.json.key as string, keyId: k.json.id as number });
  }

  it('a key revoked on the Keys page is refused at once on every route, though each had just served it', async () => {
    const m = await member('revoke-everywhere@example.com');
    const anthropic = new Anthropic({ apiKey: m.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
    const calls: [string, () => Promise<unknown>][] = [
      ['chat', () => g.client(m.key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] })],
      ['models', () => g.client(m.key).models.list()],
      ['embeddings', () => g.client(m.key).embeddings.create({ model: 'svc-embed', input: 'x' })],
      ['messages (x-api-key)', () => anthropic.messages.create({ model: 'svc-fast', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })],
    ];
    for (const [, call] of calls) await call();
    assert.equal((await m.call('DELETE', `/keys/${m.keyId}`)).status, 200);
    for (const [name, call] of calls) {
      await assert.rejects(call(), (e: { status?: number }) => e.status === 401, name);
    }
  });

  it("another account's ids get exactly what ids that never existed get, on every account-scoped route", async () => {
    const a = await member('owner@example.com');
    const b = await member('snoop@example.com');
    await g.client(a.key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'private' }] });

    const missing = await b.call('DELETE', '/keys/2147483647');
    const foreign = await b.call('DELETE', `/keys/${a.keyId}`);
    assert.deepEqual([foreign.status, foreign.json], [missing.status, missing.json]);
    assert.deepEqual([foreign.status, foreign.json], [404, { error: 'key not found' }]);
    assert.deepEqual(((await b.call('GET', '/keys')).json.keys as { id: number }[]).map((k) => k.id), [b.keyId]);
    assert.deepEqual((await b.call('GET', '/usage')).json.recent, []);
    const ledger = (await b.call('GET', '/credits')).json.ledger as { kind: string }[];
    assert.deepEqual(ledger.map((l) => l.kind), ['grant']);
    // A ledger cursor from another account's rows pages only one's own.
    const aRows = await g.t.deps.db.selectFrom('credit_ledger').select('id').where('account_id', '=', a.id).execute();
    const paged = await b.call('GET', `/credits?before=${Math.max(...aRows.map((r) => Number(r.id))) + 1}`);
    assert.deepEqual((paged.json.ledger as { kind: string }[]).map((l) => l.kind), ['grant']);
    const csv = await fetch(`${g.t.url}/dashboard/api/usage.csv`, { headers: { cookie: b.cookieHeader() } });
    assert.equal((await csv.text()).trim().split('\r\n').length, 1, 'only the header');

    // An account's session is not an operator's: the admin API refuses it, with its CSRF token or not.
    const csrf = (await b.call('GET', '/session')).json.csrf_token as string;
    for (const [method, url] of [['GET', `/admin/accounts/${a.id}`], ['GET', `/admin/accounts/${a.id}/usage`], ['POST', `/admin/accounts/${b.id}/credits`], ['DELETE', `/admin/keys/${a.keyId}`]] as const) {
      const r = await fetch(`${g.t.url}${url}`, {
        method,
        headers: { cookie: b.cookieHeader(), 'x-csrf-token': csrf, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: JSON.stringify({ credits: 1000 }) } : {}),
      });
      assert.deepEqual([r.status, await r.json()], [401, { error: 'unauthorized' }], `${method} ${url}`);
    }
    const keys = await g.t.deps.db.selectFrom('api_keys').select('revoked_at').where('id', '=', a.keyId).executeTakeFirstOrThrow();
    assert.equal(keys.revoked_at, null);
  });

  it('signing out ends the session: its cookie and its CSRF token open nothing after', async () => {
    const m = await member('leaver@example.com');
    const cookie = m.cookieHeader();
    const csrf = (await m.call('GET', '/session')).json.csrf_token as string;
    assert.equal((await m.call('POST', '/sign-out')).status, 200);
    for (const [method, path] of [['GET', '/keys'], ['GET', '/usage'], ['GET', '/credits'], ['POST', '/keys'], ['POST', '/verify-email/resend']] as const) {
      const r = await fetch(`${g.t.url}/dashboard/api${path}`, {
        method,
        headers: { cookie, 'x-csrf-token': csrf, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: JSON.stringify({ name: 'after sign-out' }) } : {}),
      });
      assert.ok(r.status === 401 || r.status === 403, `${method} ${path}: ${r.status}`);
    }
    const session = await fetch(`${g.t.url}/dashboard/api/session`, { headers: { cookie } });
    assert.equal(((await session.json()) as { signed_in: boolean }).signed_in, false);
    // The key outlives the session: keys are for programs, sessions for people.
    assert.ok((await g.client(m.key).models.list()).data.length > 0);
  });

  it('refuses a password of only spaces, naming the field', async () => {
    const b = await browserAt(g.t.url);
    const r = await b.call('POST', '/sign-up', { email: 'spaces@example.com', password: ' '.repeat(12) });
    assert.deepEqual([r.status, r.json], [400, { error: 'password: must not be only spaces' }]);
  });

  it("shows streams, cached input and images as the usage records and the ledger's charges have them", async () => {
    const m = await member('figures-2@example.com', 1000);
    g.openai.chat.enqueue({ usage: { input: 3000, cached: 1024, output: 40 } });
    const stream = await g.client(m.key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'stream it' }], stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) void chunk;
    await g.client(m.key).images.generate({ model: 'svc-image', prompt: 'a lighthouse', n: 2 });

    const usage = (await m.call('GET', '/usage')).json as {
      total_cost_micro: string;
      daily: { model: string; requests: number; cached_input_tokens: number; images: number; cost_micro: string }[];
      recent: { model: string; input_tokens: number; cached_input_tokens: number; images: number; cost_micro: string; credits: number }[];
    };
    const rows = await g.t.deps.db.selectFrom('usage_records').selectAll().where('account_id', '=', m.id).orderBy('id', 'desc').execute();
    assert.deepEqual(
      usage.recent.map((r) => [r.model, r.input_tokens, r.cached_input_tokens, r.images, r.cost_micro]),
      rows.map((r) => [r.model, r.input_tokens, r.cached_input_tokens, r.image_count, r.cost.toString()]),
    );
    assert.deepEqual(rows.map((r) => [r.cached_input_tokens, r.image_count]), [[0, 2], [1024, 0]]);
    assert.deepEqual(
      usage.daily.map((d) => [d.model, d.requests, d.cached_input_tokens, d.images, d.cost_micro]),
      [...rows].sort((x, y) => (x.model < y.model ? -1 : 1)).map((r) => [r.model, 1, r.cached_input_tokens, r.image_count, r.cost.toString()]),
    );
    const charges = await g.t.deps.db.selectFrom('credit_ledger').select('amount').where('account_id', '=', m.id).where('kind', '=', 'charge').execute();
    const charged = charges.reduce((s, c) => s - c.amount, 0n);
    assert.equal(usage.total_cost_micro, charged.toString());
    const csv = (await (await fetch(`${g.t.url}/dashboard/api/usage.csv`, { headers: { cookie: m.cookieHeader() } })).text()).trim().split('\r\n');
    const header = csv[0]!.split(',');
    assert.ok(header.includes('images'), csv[0]);
    assert.deepEqual(csv.slice(1).map((l) => l.split(',')[header.indexOf('images')]), rows.map((r) => String(r.image_count)));
  });
});

