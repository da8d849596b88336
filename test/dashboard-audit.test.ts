import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Command } from 'commander';
import type { AdminClient } from '../src/cli/admin/admin-client.ts';
import { buildAdminProgram } from '../src/cli/admin/program.ts';
import { browserAt, signedUp } from './helpers/dashboard-session.ts';
import { startGatewayWithMailbox, type Gateway } from './helpers/gateway.ts';
import { mailedToken, type Mailbox } from './helpers/mailbox.ts';
import { manualClock } from './helpers/market.ts';

/**
 * The account dashboard's API as a new user tries it: odd emails, sessions and their cookies,
 * links that expire, and figures that must be the usage records' and the ledger's exactly
 * (docs/dashboard.md; docs/api-decisions.md, "Dashboard and accounts audit").
 */

const PASSWORD = 'a long passphrase';

/** The `name=value` of a Set-Cookie header and its attributes, lower-cased. */
function cookie(headers: Headers, name: string): { value: string; attributes: string[] } {
  const line = headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  assert.ok(line, `a ${name} cookie in ${JSON.stringify(headers.getSetCookie())}`);
  const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
  return { value: pair.slice(name.length + 1), attributes: attributes.map((a) => a.toLowerCase()) };
}

describe('dashboard accounts: emails, sessions and links', () => {
  const clock = manualClock(Date.now());
  let g: Gateway;
  let mail: Mailbox;

  before(async () => void ({ g, mail } = await startGatewayWithMailbox({ env: { TRUST_PROXY: 'true' }, clock })));
  after(() => g?.close());

  it('an email with capitals outside ASCII signs in and gets its reset link with exactly the address it signed up with', async () => {
    // JavaScript lower-cases a final capital sigma to ς, PostgreSQL's lower() to σ: the address
    // must be compared by one function on both sides, the one of the unique index.
    const email = 'ΟΔΥΣΣΕΥΣ@example.com';
    await signedUp(g.t.url, email, PASSWORD);
    const signIn = await (await browserAt(g.t.url)).call('POST', '/sign-in', { email, password: PASSWORD });
    assert.equal(signIn.status, 200, JSON.stringify(signIn.json));
    assert.equal(signIn.json.email, email);
    const reset = await (await browserAt(g.t.url)).call('POST', '/password-reset', { email });
    assert.deepEqual([reset.status, reset.json], [200, { ok: true }]);
    await mail.next(email, 'Reset your svc password');
    const duplicate = await (await browserAt(g.t.url)).call('POST', '/sign-up', { email: 'οδυσσευσ@example.com', password: PASSWORD });
    assert.deepEqual([duplicate.status, duplicate.json], [409, { error: 'an account with this email already exists' }]);
  });

  it('takes long, unicode and padded emails as documented, one account per address whatever its case, even racing', async () => {
    const b = await browserAt(g.t.url);
    const long = `${'a'.repeat(242)}@example.com`;
    assert.equal(long.length, 254);
    const tooLong = await b.call('POST', '/sign-up', { email: `a${long}`, password: PASSWORD });
    assert.deepEqual([tooLong.status, tooLong.json], [400, { error: 'invalid email: expected an address like name@example.com' }]);
    assert.equal((await signedUp(g.t.url, long, PASSWORD)).id > 0, true);
    const unicode = await signedUp(g.t.url, '  Jürgen.Groß@Exämple.com ', PASSWORD);
    const me = await unicode.call('GET', '/session');
    assert.equal((me.json.account as { email: string }).email, 'Jürgen.Groß@Exämple.com', 'stored as typed, trimmed');
    const other = await (await browserAt(g.t.url)).call('POST', '/sign-in', { email: 'JÜRGEN.GROß@EXÄMPLE.COM', password: PASSWORD });
    assert.equal(other.status, 200, JSON.stringify(other.json));

    const racers = await Promise.all(Array.from({ length: 6 }, () => browserAt(g.t.url)));
    const answers = await Promise.all(racers.map((r, i) => r.call('POST', '/sign-up', { email: i % 2 ? 'RACE@example.com' : 'race@example.com', password: PASSWORD })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) assert.deepEqual(a.json, { error: 'an account with this email already exists' });

    for (const [body, error] of [
      [{ email: 'no-at-sign', password: PASSWORD }, 'invalid email: expected an address like name@example.com'],
      [{ email: 'x@example.com', password: 'short' }, 'password: must be at least 10 characters'],
      [{ email: 'x@example.com' }, 'missing required field: password'],
      [{ email: 'x\u0000@example.com', password: PASSWORD }, 'invalid email: must not contain NUL characters'],
    ] as const) {
      const r = await (await browserAt(g.t.url)).call('POST', '/sign-up', body);
      assert.deepEqual([r.status, r.json], [400, { error: error }], JSON.stringify(body));
    }
  });

  it('sets the session cookie HttpOnly and SameSite=Lax (Secure over HTTPS), and the CSRF cookie SameSite=Strict', async () => {
    const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' };
    const first = await fetch(`${g.t.url}/dashboard/api/session`, { headers: https });
    const csrf = cookie(first.headers, 'svc_csrf');
    assert.deepEqual(csrf.attributes.filter((a) => !a.startsWith('path')).sort(), ['samesite=strict', 'secure']);
    const signUp = await fetch(`${g.t.url}/dashboard/api/sign-up`, {
      method: 'POST',
      headers: { ...https, 'content-type': 'application/json', 'x-csrf-token': csrf.value, cookie: `svc_csrf=${csrf.value}` },
      body: JSON.stringify({ email: 'cookies@example.com', password: PASSWORD }),
    });
    assert.equal(signUp.status, 201);
    const session = cookie(signUp.headers, 'svc_session');
    assert.ok(session.attributes.includes('httponly'));
    assert.ok(session.attributes.includes('samesite=lax'));
    assert.ok(session.attributes.includes('secure'));
    assert.ok(session.attributes.includes(`max-age=${30 * 86_400}`));
    const plain = await (await browserAt(g.t.url)).call('POST', '/sign-up', { email: 'plain-http@example.com', password: PASSWORD });
    assert.equal(cookie(plain.headers, 'svc_session').attributes.includes('secure'), false, 'no Secure over plain HTTP (a local npm start)');
  });

  it('a signed-out session cookie, sent again, is refused; a password reset ends every session of the account', async () => {
    const a = await signedUp(g.t.url, 'replay@example.com', PASSWORD);
    const signIn = await (await browserAt(g.t.url)).call('POST', '/sign-in', { email: 'replay@example.com', password: PASSWORD });
    const stolen = cookie(signIn.headers, 'svc_session').value;
    const asStolen = () => fetch(`${g.t.url}/dashboard/api/keys`, { headers: { cookie: `svc_session=${stolen}` } });
    assert.equal((await asStolen()).status, 200);
    const out = await a.call('POST', '/sign-out');
    assert.deepEqual([out.status, out.json], [200, { ok: true }]);
    assert.deepEqual((await a.call('GET', '/keys')).json, { error: 'sign in first' });
    assert.equal((await asStolen()).status, 200, 'signing out one browser leaves the other signed in');

    const forgot = await (await browserAt(g.t.url)).call('POST', '/password-reset', { email: 'REPLAY@example.com' });
    assert.equal(forgot.status, 200);
    const token = mailedToken(await mail.next('replay@example.com', 'Reset your svc password'));
    const done = await (await browserAt(g.t.url)).call('POST', '/password-reset/confirm', { token, password: 'a new passphrase' });
    assert.deepEqual([done.status, done.json], [200, { ok: true }]);
    const refused = await asStolen();
    assert.deepEqual([refused.status, await refused.json()], [401, { error: 'sign in first' }]);
    const again = await (await browserAt(g.t.url)).call('POST', '/password-reset/confirm', { token, password: 'a third passphrase' });
    assert.deepEqual([again.status, again.json], [400, { error: 'this link is invalid, expired or already used' }]);
    assert.equal((await (await browserAt(g.t.url)).call('POST', '/sign-in', { email: 'replay@example.com', password: PASSWORD })).status, 401);
    assert.equal((await (await browserAt(g.t.url)).call('POST', '/sign-in', { email: 'replay@example.com', password: 'a new passphrase' })).status, 200);
  });

  it('limits sign-in and reset attempts per account, however its address is spelled, and per unknown address alike', async () => {
    // JavaScript lower-cases the capital final sigma to ς and PostgreSQL to σ: both spellings
    // below find the one account, so they must share one bucket of 10 attempts per 10 minutes.
    await signedUp(g.t.url, 'ΣΙΣΥΦΟΣ@example.com', PASSWORD);
    const spellings = ['ΣΙΣΥΦΟΣ@example.com', 'σισυφοσ@example.com'];
    const attempt = async (path: string, email: string) =>
      (await (await browserAt(g.t.url)).call('POST', path, path === '/sign-in' ? { email, password: 'not the password' } : { email })).status;
    for (const [path, allowed] of [['/sign-in', 401], ['/password-reset', 200]] as const) {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push(await attempt(path, spellings[i % 2]!));
      assert.deepEqual(statuses, [...Array<number>(10).fill(allowed), 429, 429], path);
      // An address without an account is limited the same way, so the limit tells nothing of which exist.
      const unknown: number[] = [];
      for (let i = 0; i < 11; i++) unknown.push(await attempt(path, i % 2 ? 'ΝΟΒΟΔΥΣ@example.com' : 'νοβοδυσ@example.com'));
      assert.deepEqual(unknown, [...Array<number>(10).fill(allowed), 429], `${path} (no account)`);
    }
    for (let i = 0; i < 10; i++) await mail.next('ΣΙΣΥΦΟΣ@example.com', 'Reset your svc password');
  });

  it('limits guesses at reset links per address as docs/dashboard.md lists', async () => {
    const b = await browserAt(g.t.url);
    const guess = () => b.call('POST', '/password-reset/confirm', { token: 'x'.repeat(43), password: 'a new passphrase' });
    for (let i = 0; i < 10; i++) assert.deepEqual((await guess()).json, { error: 'this link is invalid, expired or already used' });
    const limited = await guess();
    assert.equal(limited.status, 429);
    assert.match(limited.json.error as string, /^too many attempts - try again in \d+ minutes?$/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });

  it("an operator account's console session loses the admin API as soon as the account is no longer marked operator", async () => {
    const op = await signedUp(g.t.url, 'operator@example.com', PASSWORD);
    await g.t.deps.db.updateTable('accounts').set({ is_operator: true }).where('id', '=', op.id).execute();
    const b = await browserAt(g.t.url);
    assert.equal((await b.call('POST', '/sign-in', { email: 'operator@example.com', password: PASSWORD })).json.operator, true);
    await b.refresh();
    const session = (await b.call('GET', '/session')).json;
    assert.equal(session.operator, true);
    const signInAgain = await (await browserAt(g.t.url)).call('POST', '/sign-in', { email: 'operator@example.com', password: PASSWORD });
    const cookieHeader = `svc_session=${cookie(signInAgain.headers, 'svc_session').value}`;
    const csrf = ((await (await fetch(`${g.t.url}/dashboard/api/session`, { headers: { cookie: cookieHeader } })).json()) as { csrf_token: string }).csrf_token;
    const grant = () =>
      fetch(`${g.t.url}/admin/accounts/${op.id}/credits`, { method: 'POST', headers: { cookie: cookieHeader, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify({ credits: 5 }) });
    assert.equal((await grant()).status, 200);

    await g.t.deps.db.updateTable('accounts').set({ is_operator: false }).where('id', '=', op.id).execute();
    const refused = await grant();
    assert.deepEqual([refused.status, await refused.json()], [401, { error: 'unauthorized' }]);
    assert.equal((await b.call('GET', '/session')).json.operator, false);
    assert.equal((await b.call('GET', '/keys')).status, 200, 'still signed in to the account');
  });

  it('a verification link expires after 48 hours, a reset link after 60 minutes, a session after 30 days', async () => {
    const a = await signedUp(g.t.url, 'expiry@example.com', PASSWORD);
    const verify = mailedToken(await mail.next('expiry@example.com', 'Verify your svc email'));
    assert.equal((await (await browserAt(g.t.url)).call('POST', '/password-reset', { email: 'expiry@example.com' })).status, 200);
    const reset = mailedToken(await mail.next('expiry@example.com', 'Reset your svc password'));
    const expired = { error: 'this link is invalid, expired or already used' };

    clock.advance(60 * 60_000 + 1000);
    assert.deepEqual((await a.call('POST', '/password-reset/confirm', { token: reset, password: 'a new passphrase' })).json, expired);
    clock.advance(47 * 3_600_000);
    assert.deepEqual((await a.call('POST', '/verify-email', { token: verify })).json, expired);
    assert.equal((await a.call('GET', '/keys')).status, 200, 'the session lasts 30 days');
    clock.advance(28 * 86_400_000);
    assert.deepEqual([(await a.call('GET', '/keys')).status, (await a.call('GET', '/keys')).json], [401, { error: 'sign in first' }]);
    assert.equal((await a.call('GET', '/session')).json.signed_in, false);
  });
});

describe('dashboard keys, usage and credits against the records', () => {
  let g: Gateway;
  let mail: Mailbox;

  before(async () => void ({ g, mail } = await startGatewayWithMailbox({ env: { TRUST_PROXY: 'true' } })));
  after(() => g?.close());

  it('names what is wrong with a key name in words, shows the secret once, and a revoked key is refused at once', async () => {
    const a = await signedUp(g.t.url, 'keys@example.com', PASSWORD);
    for (const [name, error] of [
      ['   ', 'name: must not be blank'],
      ['', 'name: must not be blank'],
      ['n'.repeat(101), 'name: must be at most 100 characters'],
    ] as const) {
      const r = await a.call('POST', '/keys', { name });
      assert.deepEqual([r.status, r.json], [400, { error }], JSON.stringify(name));
    }
    const made = await a.call('POST', '/keys', { name: ' ключ 🔑 ' });
    assert.equal(made.status, 201);
    assert.equal(made.json.name, 'ключ 🔑');
    assert.match(made.json.key as string, /^svk_[A-Za-z0-9]{43}$/);
    assert.equal((made.json.key as string).slice(0, 10), made.json.prefix);
    const listed = (await a.call('GET', '/keys')).json.keys as Record<string, unknown>[];
    assert.equal(JSON.stringify(listed).includes(made.json.key as string), false, 'the secret is in the create answer only');
    assert.deepEqual(Object.keys(listed[0]!).sort(), ['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at']);

    // Unverified: the key is answered 403 with the document's words until the emailed link is followed.
    const key = made.json.key as string;
    await assert.rejects(g.client(key).models.list(), (e: { status?: number; error?: unknown }) => e.status === 403 && JSON.stringify(e.error).includes('please verify your email first'));
    assert.deepEqual((await a.call('POST', '/verify-email', { token: mailedToken(await mail.next('keys@example.com', 'Verify your svc email')) })).json, { ok: true });
    assert.ok((await g.client(key).models.list()).data.length > 0);
    const revoked = await a.call('DELETE', `/keys/${made.json.id}`);
    assert.equal(revoked.status, 200);
    assert.equal(typeof revoked.json.revoked_at, 'string');
    const answer = await fetch(`${g.t.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.deepEqual([answer.status, await answer.json()], [401, { error: 'unauthorized' }]);
  });

  it("shows usage and credits that are the usage records' and the ledger's to the micro-credit", async () => {
    const a = await signedUp(g.t.url, 'figures@example.com', PASSWORD);
    await a.call('POST', '/verify-email', { token: mailedToken(await mail.next('figures@example.com', 'Verify your svc email')) });
    const grant = await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${a.id}/credits`, headers: g.t.admin, payload: { credits: 12.345678, note: 'welcome' } });
    assert.equal(grant.statusCode, 200);
    const key = (await a.call('POST', '/keys', { name: 'figures' })).json.key as string;
    const client = g.client(key);
    await client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'Say hi' }] });
    await client.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: 'Say hi again' }] });
    await client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'Once more' }], max_tokens: 50 });
    await client.embeddings.create({ model: 'svc-embed', input: 'embed me' });
    await assert.rejects(client.chat.completions.create({ model: 'svc-nope', messages: [{ role: 'user', content: 'x' }] }));

    const usage = (await a.call('GET', '/usage')).json as {
      total_cost_micro: string;
      daily: { day: string; model: string; requests: number; input_tokens: number; cached_input_tokens: number; output_tokens: number; cost_micro: string; credits: number }[];
      recent: { model: string; served_model: string | null; input_tokens: number; output_tokens: number; cost_micro: string; credits: number; status: number }[];
    };
    const rows = await g.t.deps.db.selectFrom('usage_records').selectAll().where('account_id', '=', a.id).orderBy('id', 'desc').execute();
    assert.equal(rows.length, 4, 'one record per answered call');
    assert.deepEqual(
      usage.recent.map((r) => [r.model, r.served_model, r.input_tokens, r.output_tokens, r.cost_micro, r.status]),
      rows.map((r) => [r.model, r.served_model, r.input_tokens, r.output_tokens, r.cost.toString(), r.status]),
    );
    for (const r of usage.recent) assert.equal(Math.round(r.credits * 1e6).toString(), r.cost_micro);
    const byModel = new Map<string, { requests: number; input: number; output: number; cost: bigint }>();
    for (const r of rows) {
      const m = byModel.get(r.model) ?? { requests: 0, input: 0, output: 0, cost: 0n };
      byModel.set(r.model, { requests: m.requests + 1, input: m.input + r.input_tokens, output: m.output + r.output_tokens, cost: m.cost + r.cost });
    }
    assert.deepEqual(
      usage.daily.map((d) => [d.model, d.requests, d.input_tokens, d.output_tokens, d.cost_micro]),
      [...byModel].sort(([x], [y]) => (x < y ? -1 : 1)).map(([model, m]) => [model, m.requests, m.input, m.output, m.cost.toString()]),
    );
    const total = rows.reduce((s, r) => s + r.cost, 0n);
    assert.equal(usage.total_cost_micro, total.toString());

    const credits = (await a.call('GET', '/credits')).json as { account: { credits_micro: string }; ledger: { kind: string; amount_micro: string; balance_after: number; note: string | null }[] };
    const ledger = await g.t.deps.db.selectFrom('credit_ledger').selectAll().where('account_id', '=', a.id).orderBy('id', 'desc').execute();
    assert.deepEqual(
      credits.ledger.map((l) => [l.kind, l.amount_micro, Math.round(l.balance_after * 1e6).toString(), l.note]),
      ledger.map((l) => [l.kind, l.amount.toString(), l.balance_after.toString(), l.note]),
    );
    const charges = ledger.filter((l) => l.kind === 'charge').reduce((s, l) => s - l.amount, 0n);
    assert.equal(charges, total, 'the charges are the usage costs');
    assert.equal(credits.account.credits_micro, ledger.reduce((s, l) => s + l.amount, 0n).toString());
    assert.equal(BigInt(credits.account.credits_micro), 12_345_678n - total);
    const csv = await fetch(`${g.t.url}/dashboard/api/usage.csv`, { headers: { cookie: '' } });
    assert.equal(csv.status, 401);
  });
});

/** Backticked names in the first cell of the tables of docs/configuration.md. */
function documentedSettings(): Set<string> {
  const names = new Set<string>();
  for (const line of readFileSync('docs/configuration.md', 'utf8').split('\n')) {
    const first = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
  }
  return names;
}

/** The settings src/config reads: every `(env, 'NAME'` and `env.NAME` there. */
function settingsRead(): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync('src/config').filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const text = readFileSync(`src/config/${file}`, 'utf8');
    for (const m of text.matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]!);
  }
  return names;
}

/** Operator command lines the README and docs show: `npm run admin -- ...` and backticked `accounts ...`-style ones. */
function documentedCommands(): { file: string; line: string }[] {
  const files = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const found: { file: string; line: string }[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/npm run admin -- ([^`#|)'\n]+)/g)) found.push({ file, line: m[1]!.trim() });
    for (const m of text.matchAll(/`((?:accounts|keys|market|event|wallet|withdrawal) (?:[a-z-]+)(?: [^`$]*)?)`/g)) found.push({ file, line: m[1]!.trim() });
  }
  return found;
}

/** A command line's words: quoted text and `<placeholders>` (`<account id>`) are one word each. */
const words = (line: string) => [...line.matchAll(/"([^"]*)"|(<[^>]*>|\S+)/g)].map((m) => m[1] ?? m[2]!);

describe("operator docs describe what exists", () => {
  it('every setting in docs/configuration.md is read by src/config, and every one read is documented', () => {
    const documented = documentedSettings();
    const read = settingsRead();
    assert.ok(read.size > 40, `found the settings read (${read.size})`);
    assert.deepEqual([...documented].filter((n) => !read.has(n)).sort(), [], 'documented but never read');
    assert.deepEqual([...read].filter((n) => !documented.has(n)).sort(), [], 'read but not documented');
  });

  it('every admin command line the docs show is a command with those arguments and options, and the concrete ones run', async () => {
    const calls: string[] = [];
    // Answers as a healthy service would where a command reads the answer (audit's `balanced`).
    const client: AdminClient = { call: async (method: string, path: string) => (calls.push(`${method} ${path}`), { balanced: true }) } as unknown as AdminClient;
    const program = () => buildAdminProgram(() => client, () => {});
    const lines = documentedCommands();
    assert.ok(lines.length >= 15, `found the documented commands (${lines.length})`);
    for (const { file, line } of lines) {
      const where = `${file}: ${line}`;
      const tokens = words(line).filter((t) => t !== '...' && t !== '<command>');
      let cmd: Command = program();
      for (let sub = cmd.commands.find((c) => c.name() === tokens[0]); sub; sub = cmd.commands.find((c) => c.name() === tokens[0])) {
        cmd = sub;
        tokens.shift();
      }
      if (line.includes('...') || line.includes('<command>') || line === '--help') continue;
      assert.notEqual(cmd.name(), 'admin', `${where}: names a command`);
      const positional: string[] = [];
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i]!.replace(/^\[|\]$/g, '');
        if (!t.startsWith('--')) {
          positional.push(t);
          continue;
        }
        const option = cmd.options.find((o) => o.long === t);
        assert.ok(option, `${where}: ${cmd.name()} has ${t}`);
        if (option.required && !tokens[i]!.startsWith('[')) i++;
      }
      const args = cmd.registeredArguments;
      assert.ok(positional.length >= args.filter((a) => a.required).length && positional.length <= args.length, `${where}: ${args.length} arguments`);
      if (/[<[]/.test(line)) continue;
      const before = calls.length;
      await program().parseAsync(['node', 'admin', ...words(line)]);
      assert.equal(calls.length, before + 1, `${where}: runs and calls the admin API`);
    }
    assert.ok(calls.includes('POST /accounts/7/credits'), 'a negative grant (accounts credit 7 -2.5) parses');
  });
});
