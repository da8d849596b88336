import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { connectRedis } from '../src/deps.ts';
import { createApiKeyLookup, type ApiKeyLookup } from '../src/market/auth/api-key.lookup.ts';
import { issueApiKey, type IssuedApiKey } from '../src/market/auth/api-key.repository.ts';
import { sha256Hex } from '../src/market/auth/digest.ts';
import { signHmacHex } from '../src/market/auth/hmac.signature.ts';
import { withIdempotency } from '../src/market/auth/idempotency.ts';
import {
  idempotentRequestOf,
  installRawJsonParser,
  requireMarketAuth,
  sendStoredAnswer,
} from '../src/market/auth/market-auth.fastify.ts';
import { createReplayCache } from '../src/market/auth/create-replay-cache.ts';
import { buildWalletMessage } from '../src/market/auth/wallet-message.ts';
import type { Db, DatabaseHandle } from '../src/storage/database.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase, openSameDatabase } from './helpers/database.ts';

const PROBE = '/api/_authprobe';
/** The same probe with the replay record forced into PostgreSQL, whatever REDIS_URL says. */
const PROBE_PG = '/api/_authprobe_pg';

const clock = { t: Date.UTC(2026, 10, 25, 12, 0, 0), now: () => clock.t };
const nowSeconds = () => Math.floor(clock.now() / 1000);

interface Instance {
  readonly t: TestApp;
  readonly keys: ApiKeyLookup;
  readonly redis: Redis | null;
}

/** The probe: authenticates, then moves "money" (a row in probe_effects) once per Idempotency-Key. */
function mountProbe(app: FastifyInstance, db: Db, redis: Redis | null, keys: ApiKeyLookup, redisPrefix: string): void {
  void app.register(async (scope) => {
    installRawJsonParser(scope);
    const routes: [string, ReturnType<typeof requireMarketAuth>][] = [
      [PROBE, requireMarketAuth({ db, redis, clock, keys, redisPrefix })],
      [PROBE_PG, requireMarketAuth({ db, redis, clock, keys, replay: createReplayCache({ db, redis: null, clock }) })],
    ];
    for (const [path, auth] of routes) {
      scope.post(path, { preHandler: auth }, async (request, reply) => {
        const who = request.marketAuth!;
        const idem = idempotentRequestOf(request, 'probe');
        const answer = await db.transaction().execute((trx) =>
          withIdempotency(trx, idem, new Date(clock.now()), async () => {
            const res = await sql<{ id: number }>`insert into probe_effects (wallet) values (${who.wallet}) returning id`.execute(trx);
            // Widens the race window: a second request with the same key arrives while this one holds its claim.
            if (request.headers['x-probe-slow']) await new Promise((r) => setTimeout(r, 150));
            return {
              status: 200,
              body: {
                success: true,
                data: { wallet: who.wallet, method: who.method, api_key_id: who.apiKeyId?.toString() ?? null, effect: res.rows[0]!.id, body: request.body ?? null },
              },
            };
          }),
        );
        return sendStoredAnswer(reply, answer);
      });
    }
  });
}

async function startInstance(database: DatabaseHandle & { url: string | null }, secretsKey: Buffer, redisPrefix: string): Promise<Instance> {
  const redis = process.env.REDIS_URL ? connectRedis(process.env.REDIS_URL) : null;
  const keys = createApiKeyLookup({ db: database.db, keys: { current: secretsKey, previous: [] }, clock, ttlMs: 5000 });
  const t = await startTestApp({ database, clock, redisPrefix, beforeReady: (app) => mountProbe(app, database.db, redis, keys, redisPrefix) });
  return { t, keys, redis };
}

interface Req {
  readonly path?: string;
  readonly url?: string;
  readonly body?: string | null;
  readonly ts?: number;
  readonly headers?: Record<string, string>;
}

function hmacHeaders(creds: IssuedApiKey, r: Req & { signedPath?: string; signedBody?: string }): Record<string, string> {
  const ts = String(r.ts ?? nowSeconds());
  const signature = signHmacHex(creds.api_secret, {
    timestamp: ts,
    method: 'POST',
    path: r.signedPath ?? r.path ?? PROBE,
    rawBody: Buffer.from(r.signedBody ?? r.body ?? ''),
  });
  return { 'x-api-key': creds.api_key, 'x-api-timestamp': ts, 'x-api-signature': signature };
}

async function walletHeaders(
  account: PrivateKeyAccount,
  r: Req & { signedPath?: string; signedBody?: string; claimedWallet?: string },
): Promise<Record<string, string>> {
  const message = buildWalletMessage({
    wallet: r.claimedWallet ?? account.address,
    timestamp: r.ts ?? nowSeconds(),
    method: 'POST',
    path: r.signedPath ?? r.path ?? PROBE,
    bodySha256: sha256Hex(r.signedBody ?? r.body ?? ''),
  });
  return { 'x-wallet-message': message, 'x-wallet-signature': await account.signMessage({ message }) };
}

function send(inst: Instance, r: Req, auth: Record<string, string>) {
  const body = r.body === undefined ? null : r.body;
  return inst.t.app.inject({
    method: 'POST',
    url: r.url ?? r.path ?? PROBE,
    headers: { ...(body !== null ? { 'content-type': 'application/json' } : {}), ...auth, ...r.headers },
    ...(body !== null ? { payload: body } : {}),
  });
}

const bodyFor = (wallet: string, extra: Record<string, unknown> = {}) => JSON.stringify({ wallet_addr: wallet, amount: '1.5', ...extra });
const errorOf = (status: number, error: string) => ({ status, body: { success: false, error } });
const outcome = (res: { statusCode: number; json(): unknown }) => ({ status: res.statusCode, body: res.json() });

describe('market authentication over HTTP (probe route)', () => {
  const secretsKey = randomBytes(32);
  const redisPrefix = `t${randomBytes(6).toString('hex')}`;
  let database: DatabaseHandle & { url: string | null };
  let second: DatabaseHandle | null = null;
  let a: Instance;
  let b: Instance;

  before(async () => {
    database = await freshDatabase();
    a = await startInstance(database, secretsKey, redisPrefix);
    // A second instance: its own connection pool to the same server database when there is one.
    second = database.url ? await openSameDatabase(database.url) : null;
    b = await startInstance(second ? { ...second, url: database.url } : database, secretsKey, redisPrefix);
    await sql`create table probe_effects (id serial primary key, wallet text not null)`.execute(database.db);
  });

  after(async () => {
    for (const inst of [a, b]) {
      if (!inst) continue;
      await inst.t.close();
      inst.redis?.disconnect();
    }
    if (second) await second.close();
    await database.close();
  });

  const newWallet = () => privateKeyToAccount(generatePrivateKey());
  const issue = (account: PrivateKeyAccount) => issueApiKey(database.db, secretsKey, account.address, new Date(clock.now()));
  const effects = async (wallet: string) =>
    Number((await sql<{ n: bigint }>`select count(*) as n from probe_effects where wallet = ${wallet.toLowerCase()}`.execute(database.db)).rows[0]!.n);

  it('accepts an API-key HMAC and a wallet signature, and names the wallet', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(acct.address);
    const viaKey = await send(a, { body }, hmacHeaders(creds, { body }));
    assert.equal(viaKey.statusCode, 200, viaKey.body);
    const data = viaKey.json().data;
    assert.equal(data.wallet, acct.address.toLowerCase());
    assert.equal(data.method, 'hmac');
    assert.match(data.api_key_id, /^\d+$/);
    assert.deepEqual(data.body, JSON.parse(body));

    const viaWallet = await send(a, { body }, await walletHeaders(acct, { body }));
    assert.equal(viaWallet.statusCode, 200, viaWallet.body);
    assert.deepEqual({ ...viaWallet.json().data, effect: 0 }, { wallet: acct.address.toLowerCase(), method: 'wallet', api_key_id: null, effect: 0, body: JSON.parse(body) });
    assert.equal(await effects(acct.address), 2);
  });

  it('signs the exact bytes sent, the path without its query, and an empty body', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const odd = `{ "wallet_addr" :"${acct.address.toUpperCase().replace('0X', '0x')}",\n "note": "caf\u00e9 \u2713" }`;
    const exact = await send(
      a,
      { body: odd, url: `${PROBE}?x=1&y=2`, headers: { 'content-type': 'application/json; charset=utf-8' } },
      hmacHeaders(creds, { body: odd, ts: nowSeconds() - 1 }),
    );
    assert.equal(exact.statusCode, 200, exact.body);
    assert.equal(exact.json().data.body.note, 'caf\u00e9 \u2713');

    const reserialised = JSON.stringify(JSON.parse(odd));
    const res = await send(a, { body: odd }, hmacHeaders(creds, { body: odd, signedBody: reserialised, ts: nowSeconds() - 2 }));
    assert.deepEqual(outcome(res), errorOf(401, 'Invalid signature'));

    const noBody = await send(a, { body: null }, hmacHeaders(creds, { body: null, ts: nowSeconds() - 3 }));
    assert.equal(noBody.statusCode, 200, noBody.body);
    const walletNoBody = await send(a, { body: null }, await walletHeaders(acct, { body: null }));
    assert.equal(walletNoBody.statusCode, 200, walletNoBody.body);

    // Another content type is read as JSON with its bytes kept, so the signature still covers
    // them: a body signed as empty is refused, the same body signed as sent is accepted.
    const plain = await send(a, { body: odd, headers: { 'content-type': 'text/plain' } }, hmacHeaders(creds, { body: null, ts: nowSeconds() - 4 }));
    assert.deepEqual(outcome(plain), errorOf(401, 'Invalid signature'));
    assert.equal(await effects(acct.address), 3);
    const signedPlain = await send(a, { body: odd, headers: { 'content-type': 'text/plain' } }, hmacHeaders(creds, { body: odd, ts: nowSeconds() - 5 }));
    assert.equal(signedPlain.statusCode, 200, signedPlain.body);
    assert.equal(signedPlain.json().data.body.note, 'caf\u00e9 \u2713');
    assert.equal(await effects(acct.address), 4);
  });

  it('refuses a request without complete authentication headers: 401 Signature required', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(acct.address);
    const full = hmacHeaders(creds, { body });
    const wallet = await walletHeaders(acct, { body });
    const partials: Record<string, string>[] = [
      {},
      { 'x-api-key': creds.api_key },
      { 'x-api-key': creds.api_key, 'x-api-signature': full['x-api-signature']! },
      { 'x-api-timestamp': full['x-api-timestamp']!, 'x-api-signature': full['x-api-signature']! },
      { 'x-wallet-signature': wallet['x-wallet-signature']! },
      { 'x-wallet-message': wallet['x-wallet-message']! },
      { ...full, 'x-api-signature': '' },
    ];
    for (const h of partials) assert.deepEqual(outcome(await send(a, { body }, h)), errorOf(401, 'Signature required'), JSON.stringify(Object.keys(h)));
    assert.equal(await effects(acct.address), 0);
  });

  it('accepts timestamps up to 30 seconds either way and refuses beyond: 401 Timestamp out of range', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(acct.address);
    const now = nowSeconds();
    for (const ts of [now - 31, now + 31, now - 3600, now + 3600]) {
      assert.deepEqual(outcome(await send(a, { body }, hmacHeaders(creds, { body, ts }))), errorOf(401, 'Timestamp out of range'), `hmac ${ts - now}`);
      assert.deepEqual(outcome(await send(a, { body }, await walletHeaders(acct, { body, ts }))), errorOf(401, 'Timestamp out of range'), `wallet ${ts - now}`);
    }
    const garbled = { ...hmacHeaders(creds, { body }), 'x-api-timestamp': 'yesterday' };
    assert.deepEqual(outcome(await send(a, { body }, garbled)), errorOf(401, 'Timestamp out of range'));
    for (const ts of [now - 30, now + 30]) {
      assert.equal((await send(a, { body }, hmacHeaders(creds, { body, ts }))).statusCode, 200, `hmac ${ts - now}`);
      assert.equal((await send(a, { body }, await walletHeaders(acct, { body, ts }))).statusCode, 200, `wallet ${ts - now}`);
    }
  });

  it('accepts a signature once, on any instance: 401 Signature already used', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(acct.address);
    for (const probe of [PROBE, PROBE_PG]) {
      const h = hmacHeaders(creds, { body, path: probe });
      const w = await walletHeaders(acct, { body, path: probe });
      assert.equal((await send(a, { body, path: probe }, h)).statusCode, 200);
      assert.deepEqual(outcome(await send(a, { body, path: probe }, h)), errorOf(401, 'Signature already used'), `${probe} same instance`);
      assert.deepEqual(outcome(await send(b, { body, path: probe }, h)), errorOf(401, 'Signature already used'), `${probe} other instance`);
      assert.equal((await send(b, { body, path: probe }, w)).statusCode, 200);
      assert.deepEqual(outcome(await send(a, { body, path: probe }, w)), errorOf(401, 'Signature already used'), `${probe} wallet, other instance`);
      // Same content and wallet, the signature re-encoded with s' = n - s: still the same signed request.
      const twin = { ...w, 'x-wallet-signature': malleate(w['x-wallet-signature']!) };
      assert.deepEqual(outcome(await send(a, { body, path: probe }, twin)), errorOf(401, 'Signature already used'), `${probe} malleated`);
    }
    assert.equal(await effects(acct.address), 4);
  });

  it('refuses a signature over another body, path, method or signer: 401 Invalid signature', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(acct.address);
    const otherBody = bodyFor(acct.address, { amount: '1000' });
    const cases: [string, Record<string, string>][] = [
      ['hmac other body', hmacHeaders(creds, { body, signedBody: otherBody })],
      ['hmac other path', hmacHeaders(creds, { body, signedPath: '/api/pool/withdraw' })],
      ['hmac other secret', hmacHeaders({ ...creds, api_secret: 'mks_guess' }, { body })],
      ['hmac garbage', { ...hmacHeaders(creds, { body }), 'x-api-signature': 'zz' }],
      ['wallet other body', await walletHeaders(acct, { body, signedBody: otherBody })],
      ['wallet other path', await walletHeaders(acct, { body, signedPath: '/api/pool/withdraw' })],
      ['wallet signed by another key', await walletHeaders(newWallet(), { body, claimedWallet: acct.address })],
      ['wallet garbage signature', { ...(await walletHeaders(acct, { body })), 'x-wallet-signature': '0x1234' }],
      ['wallet message not in the format', { ...(await walletHeaders(acct, { body })), 'x-wallet-message': 'hello' }],
    ];
    const w = await walletHeaders(acct, { body });
    cases.push(['wallet other method', { ...w, 'x-wallet-message': w['x-wallet-message']!.replace(' POST ', ' PUT ') }]);
    for (const [name, h] of cases) assert.deepEqual(outcome(await send(a, { body }, h)), errorOf(401, 'Invalid signature'), name);
    assert.equal(await effects(acct.address), 0);
  });

  it("refuses a body naming another wallet: 403 API key wallet mismatch / 403 Wallet mismatch", async () => {
    const acct = newWallet();
    const victim = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(victim.address);
    assert.deepEqual(outcome(await send(a, { body }, hmacHeaders(creds, { body }))), errorOf(403, 'API key wallet mismatch'));
    assert.deepEqual(outcome(await send(a, { body }, await walletHeaders(acct, { body }))), errorOf(403, 'Wallet mismatch'));
    // Not a wallet address at all is a malformed request (docs/decisions-market-auth.md), not another wallet.
    const notString = JSON.stringify({ wallet_addr: 7 });
    assert.deepEqual(
      outcome(await send(a, { body: notString }, hmacHeaders(creds, { body: notString }))),
      errorOf(400, 'invalid wallet_addr: must be 0x followed by 40 hex digits'),
    );
    assert.equal(await effects(victim.address), 0);
    assert.equal(await effects(acct.address), 0);
  });

  it('refuses an unknown or revoked key: 401 Invalid API key, on other instances within the cache time', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(acct.address);
    const unknown = hmacHeaders({ ...creds, api_key: 'mk_0000' }, { body });
    assert.deepEqual(outcome(await send(a, { body }, unknown)), errorOf(401, 'Invalid API key'));

    assert.equal((await send(b, { body }, hmacHeaders(creds, { body, ts: nowSeconds() - 1 }))).statusCode, 200, 'b caches the key');
    assert.equal(await a.keys.revoke(creds.api_key, newWallet().address), false, "another wallet cannot revoke it");
    assert.equal(await a.keys.revoke(creds.api_key, acct.address.toUpperCase().replace('0X', '0x')), true);
    assert.deepEqual(outcome(await send(a, { body }, hmacHeaders(creds, { body }))), errorOf(401, 'Invalid API key'), 'at once where revoked');
    clock.t += 6000;
    try {
      assert.deepEqual(outcome(await send(b, { body }, hmacHeaders(creds, { body }))), errorOf(401, 'Invalid API key'), 'after the cache time elsewhere');
    } finally {
      clock.t -= 6000;
    }
    assert.equal(await a.keys.revoke(creds.api_key, acct.address), false, 'already revoked');
  });

  it('keeps the API secret only in sealed form, and records when a key was last used', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    assert.match(creds.api_key, /^mk_[0-9a-f]{32}$/);
    const rows = await sql<Record<string, unknown>>`select * from market_api_keys where key = ${creds.api_key}`.execute(database.db);
    assert.equal(rows.rows.length, 1);
    const dump = JSON.stringify(rows.rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const secretBytes = Buffer.from(creds.api_secret, 'utf8');
    for (const form of [creds.api_secret, creds.api_secret.slice(4), secretBytes.toString('hex'), secretBytes.toString('base64'), secretBytes.toString('base64url')]) {
      assert.ok(!dump.includes(form), 'the secret is not stored readable');
    }
    assert.equal(rows.rows[0]!.wallet, acct.address.toLowerCase());
    assert.equal(rows.rows[0]!.last_used_at, null);
    const body = bodyFor(acct.address);
    assert.equal((await send(a, { body }, hmacHeaders(creds, { body }))).statusCode, 200);
    const used = await database.db.selectFrom('market_api_keys').select('last_used_at').where('key', '=', creds.api_key).executeTakeFirstOrThrow();
    assert.equal(used.last_used_at?.getTime(), clock.now());
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses another body with 409', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(acct.address);
    const idem = { 'idempotency-key': `trade-${randomBytes(4).toString('hex')}` };
    const first = await send(a, { body, headers: idem }, hmacHeaders(creds, { body, ts: nowSeconds() - 1 }));
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await send(b, { body, headers: idem }, await walletHeaders(acct, { body }));
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json(), 'the first answer, byte for byte in meaning (same api_key_id, same effect)');
    assert.equal(await effects(acct.address), 1);

    const other = bodyFor(acct.address, { amount: '2' });
    assert.deepEqual(
      outcome(await send(a, { body: other, headers: idem }, hmacHeaders(creds, { body: other }))),
      errorOf(409, 'Idempotency-Key reused with a different body'),
    );
    assert.equal(await effects(acct.address), 1);

    // Keys belong to the wallet that used them: another wallet's identical key is its own.
    const stranger = newWallet();
    const sb = bodyFor(stranger.address);
    const theirs = await send(a, { body: sb, headers: idem }, await walletHeaders(stranger, { body: sb }));
    assert.equal(theirs.statusCode, 200);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.equal(await effects(stranger.address), 1);

    const tooLong = { 'idempotency-key': 'k'.repeat(256) };
    assert.deepEqual(outcome(await send(a, { body, headers: tooLong }, hmacHeaders(creds, { body, ts: nowSeconds() - 2 }))), errorOf(400, 'Invalid Idempotency-Key'));
  });

  it('moves money once when two identical requests with one Idempotency-Key race (on two instances)', async () => {
    const acct = newWallet();
    const creds = await issue(acct);
    const body = bodyFor(acct.address);
    for (let round = 0; round < 3; round++) {
      const headers = { 'idempotency-key': `race-${round}-${randomBytes(4).toString('hex')}`, 'x-probe-slow': '1' };
      const [r1, r2] = await Promise.all([
        send(a, { body, headers }, hmacHeaders(creds, { body, ts: nowSeconds() - 1 - round })),
        send(b, { body, headers }, hmacHeaders(creds, { body, ts: nowSeconds() - 10 - round })),
      ]);
      assert.equal(r1.statusCode, 200, r1.body);
      assert.equal(r2.statusCode, 200, r2.body);
      assert.deepEqual(r1.json(), r2.json());
      assert.equal([r1, r2].filter((r) => r.headers['idempotent-replayed'] === 'true').length, 1);
      assert.equal(await effects(acct.address), round + 1);
    }
  });

  it('keeps malformed JSON a 400 and still refuses unauthenticated well-formed bodies', async () => {
    const bad = await a.t.app.inject({ method: 'POST', url: PROBE, headers: { 'content-type': 'application/json' }, payload: '{"wallet_addr":' });
    assert.deepEqual(outcome(bad), errorOf(400, 'malformed JSON body'));
    const empty = await a.t.app.inject({ method: 'POST', url: PROBE, headers: { 'content-type': 'application/json' }, payload: '' });
    assert.deepEqual(outcome(empty), errorOf(400, 'malformed JSON body'));
    const poisoned = await a.t.app.inject({ method: 'POST', url: PROBE, headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1}}' });
    assert.equal(poisoned.statusCode, 400);
  });
});

/** The other valid encoding of an ECDSA signature: s -> n - s, v flipped. */
function malleate(sig: string): string {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const r = sig.slice(2, 66);
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130, 132), 16);
  const s2 = (n - s).toString(16).padStart(64, '0');
  const v2 = v === 27 ? 28 : 27;
  return `0x${r}${s2}${v2.toString(16)}`;
}
