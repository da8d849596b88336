import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../src/config/index.ts';
import { createDeps } from '../src/deps.ts';
import { sealSecret } from '../src/market/auth/secret-box.ts';
import { keyId } from '../src/shared/sealing-keys.ts';
import { runAdmin } from './helpers/admin-cli.ts';
import { TEST_ADMIN_TOKEN } from './helpers/app.ts';
import { freshDatabase } from './helpers/database.ts';
import { catalogYaml, startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { signedRequest, tradeBody, type ApiKeyCredentials } from './helpers/market-client.ts';

/**
 * Rotating SECRETS_KEY on one database (PostgreSQL when DATABASE_URL is set) without reissuing
 * anything (docs/operations.md, "Rotating the sealing key"): instances started with the new key
 * current and the old one in SECRETS_KEY_PREVIOUS open the market API secrets and the reasoning
 * tokens the old one sealed; `admin secrets reseal` seals the stored secrets again with the new
 * key and records it, after which the old key can go. Reasoning tokens in clients' hands are not
 * stored: they open as long as their key is among the previous ones, and after that are the 400 of
 * a tampered token.
 */

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const idOf = (key: string) => keyId(Buffer.from(key, 'base64')).toString('base64url');

const THOUGHT = 'The user asks for the weather in Paris; I should call the weather tool.';
const firstTurn = { reasoning: THOUGHT, toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: { input: 80, cached: 0, output: 60 } };
const secondTurn = { reasoning: 'The tool says sunny.', text: 'Sunny in Paris.', usage: { input: 150, cached: 40, output: 25 } };
const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
const base = { model: 'svc-vision', tools, thinking: { type: 'enabled' as const, budget_tokens: 8192 }, max_tokens: 16000 };
const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };

describe('rotating the sealing key (SECRETS_KEY_PREVIOUS, admin secrets reseal)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const wallet = privateKeyToAccount(generatePrivateKey()).address;
  let marketId: number;
  let marketKey: ApiKeyCredentials;
  let acct: TestAccount;
  /** The first answer's content under key A: its thinking signature is a token sealed with A. */
  let contentFromA: Anthropic.ContentBlock[];
  let trades = 0;
  /**
   * The first instance (key A alone), kept running for its fake upstreams: the fake Anthropic
   * accepts back only the signatures it issued, so every instance here calls the same one.
   */
  let first: Gateway;

  const start = (env: Record<string, string>): Promise<Gateway> =>
    startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000', ...env },
      database,
      ...(first ? { catalog: () => catalogYaml({ openai: first.openai, anthropic: first.anthropic, rerank: first.rerank }) } : {}),
    });
  const anthropic = (g: Gateway) => new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
  const continuation = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam[] => [
    question,
    { role: 'assistant', content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: (content[1] as Anthropic.ToolUseBlock).id, content: '{"sky":"sunny"}' }] },
  ];

  /** A trade signed with the market API key (HMAC), through the official route. */
  async function trade(g: Gateway, key: ApiKeyCredentials = marketKey): Promise<{ statusCode: number; body: string }> {
    // Another amount each time: two trades signed in the same second must not be the same signature.
    trades++;
    const req = await signedRequest({ apiKey: key }, { method: 'POST', url: '/api/pool/trade', body: tradeBody(wallet, marketId, 'yes', trades), headers: { 'idempotency-key': `rot-${trades}` } });
    return g.t.app.inject(req);
  }

  /** Starting an instance with `env` fails with a message matching `message`. */
  async function refusesToStart(env: Record<string, string>, message: RegExp): Promise<void> {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-rotation-'));
    try {
      const config = loadConfig({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
      await assert.rejects(createDeps(config, { database }), (e: Error) => {
        assert.match(e.message, message);
        return true;
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  const sealedTexts = async (): Promise<string[]> =>
    (await sql<{ secret_ciphertext: string }>`select secret_ciphertext from market_api_keys order by id`.execute(database.db)).rows.map((r) => r.secret_ciphertext);

  before(async () => {
    database = await freshDatabase();
    const g = (first = await start({ SECRETS_KEY: keyA }));
    const admin = g.t.admin;
    const end = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const market = await g.t.app.inject({ method: 'POST', url: '/admin/markets', headers: admin, payload: { title: 'Rotation', category: 'test', market_type: 'yesno', end_date: end } });
    assert.equal(market.statusCode, 201, market.body);
    marketId = market.json().id;
    assert.equal((await g.t.app.inject({ method: 'POST', url: `/admin/wallets/${wallet}/deposit`, headers: admin, payload: { amount: '1000' } })).statusCode, 200);
    const issued = await g.t.app.inject({ method: 'POST', url: `/admin/wallets/${wallet}/api-keys`, headers: admin });
    assert.equal(issued.statusCode, 201, issued.body);
    marketKey = issued.json();
    const res = await trade(g);
    assert.equal(res.statusCode, 200, res.body);

    acct = await createTestAccount(g.t, { credits: 10_000 });
    g.anthropic.chat.enqueue(firstTurn);
    const answer = await anthropic(g).messages.create({ ...base, messages: [question] });
    assert.deepEqual(answer.content.map((b) => b.type), ['thinking', 'tool_use']);
    contentFromA = answer.content;
  });
  after(async () => {
    await first?.close();
    await database?.close();
  });

  it('seals with a key id: the stored secret names key A', async () => {
    const [text] = await sealedTexts();
    assert.ok(text!.startsWith(`v2.${idOf(keyA)}.`), text);
  });

  it('an instance with another key still refuses to start, naming SECRETS_KEY and the way to rotate', async () => {
    const other = randomBytes(32).toString('base64');
    const envs: Record<string, string>[] = [{ SECRETS_KEY: other }, { SECRETS_KEY: keyB }, { SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: other }];
    for (const env of envs) {
      await refusesToStart(
        env,
        /^invalid configuration: SECRETS_KEY: differs from the sealing key of the other instances on this database \(recorded [^)]+\); give every instance the same SECRETS_KEY; or, to rotate it, give the recorded key in SECRETS_KEY_PREVIOUS \(docs\/operations.md, "Several instances on one database"\)$/,
      );
    }
  });

  describe('during the rolling restart: old and new instances side by side', () => {
    let oldOne: Gateway;
    let newOne: Gateway;
    before(async () => {
      // Step 1: every instance learns the new key as a previous one; step 2: the swap.
      oldOne = await start({ SECRETS_KEY: keyA, SECRETS_KEY_PREVIOUS: keyB });
      newOne = await start({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA });
    });
    after(async () => {
      await oldOne?.close();
      await newOne?.close();
    });

    it('the market API key issued under A authenticates on the instance whose current key is B', async () => {
      const res = await trade(newOne);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(JSON.parse(res.body).success, true);
    });

    it('a key issued by the new instance (sealed with B) authenticates on the old one', async () => {
      const issued = await newOne.t.app.inject({ method: 'POST', url: `/admin/wallets/${wallet}/api-keys`, headers: newOne.t.admin });
      assert.equal(issued.statusCode, 201, issued.body);
      assert.ok((await sealedTexts()).at(-1)!.startsWith(`v2.${idOf(keyB)}.`));
      const res = await trade(oldOne, issued.json());
      assert.equal(res.statusCode, 200, res.body);
    });

    it('a reasoning token sealed under A continues on the instance whose current key is B: the upstream gets its signature', async () => {
      first.anthropic.chat.enqueue(secondTurn);
      const second = await anthropic(newOne).messages.create({ ...base, messages: continuation(contentFromA) });
      assert.deepEqual(second.content.map((b) => b.type), ['thinking', 'text']);
      const sent = first.anthropic.requests.at(-1)!.body as { messages: { content: { type: string; signature?: string }[] }[] };
      assert.equal(sent.messages[1]!.content[0]!.type, 'thinking');
      assert.notEqual(sent.messages[1]!.content[0]!.signature, (contentFromA[0] as Anthropic.ThinkingBlock).signature, 'the upstream value, not the client token');
    });

    it('the re-seal command seals every stored secret with B, records B, and a second run re-seals nothing', async () => {
      const run = await runAdmin(newOne.t.url, ['secrets', 'reseal']);
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { key_id: idOf(keyB), checked: 2, resealed: 1, already_current: 1, unopened: [] });
      for (const text of await sealedTexts()) assert.ok(text.startsWith(`v2.${idOf(keyB)}.`), text);
      const again = await runAdmin(newOne.t.url, ['secrets', 'reseal']);
      assert.equal(again.status, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout), { key_id: idOf(keyB), checked: 2, resealed: 0, already_current: 2, unopened: [] });
      // Serving went on meanwhile, on both.
      for (const g of [newOne, oldOne]) {
        const res = await trade(g);
        assert.equal(res.statusCode, 200, res.body);
      }
    });
  });

  describe('after the re-seal, with key B alone', () => {
    let g: Gateway;
    before(async () => {
      g = await start({ SECRETS_KEY: keyB });
    });
    after(() => g?.close());

    it('the instance starts, and the market API key issued under A still authenticates (HMAC)', async () => {
      const res = await trade(g);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(JSON.parse(res.body).success, true);
    });

    it('a reasoning token sealed under A is the 400 of a tampered token; nothing reaches the upstream', async () => {
      const requests = first.anthropic.requests.length;
      await assert.rejects(
        anthropic(g).messages.create({ ...base, messages: continuation(contentFromA) }),
        (e: unknown) => e instanceof Anthropic.BadRequestError && (e.error as { error: string }).error === 'messages[1].content[0].signature: is not reasoning content this service issued',
      );
      assert.equal(first.anthropic.requests.length, requests);
    });

    it('the re-seal names a stored secret no key held opens, leaves it as it is, and the command exits 1', async () => {
      const stranger = sealSecret(randomBytes(32), 'mks_lost', 'mk_lost');
      await sql`insert into market_api_keys (key, wallet, secret_ciphertext, created_at) values ('mk_lost', ${wallet.toLowerCase()}, ${stranger}, now())`.execute(database.db);
      try {
        const run = await runAdmin(g.t.url, ['secrets', 'reseal']);
        assert.equal(run.status, 1);
        assert.deepEqual(JSON.parse(run.stdout), { key_id: idOf(keyB), checked: 3, resealed: 0, already_current: 2, unopened: ['mk_lost'] });
        assert.match(run.stderr, /1 secret\(s\) open with no key this instance holds/);
        assert.ok((await sealedTexts()).includes(stranger));
      } finally {
        await sql`delete from market_api_keys where key = 'mk_lost'`.execute(database.db);
      }
    });

    it('an instance given only the old key now refuses to start', async () => {
      await refusesToStart({ SECRETS_KEY: keyA }, /^invalid configuration: SECRETS_KEY: differs from the sealing key of the other instances on this database/);
    });
  });
});
