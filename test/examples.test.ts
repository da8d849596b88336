import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestAccount } from './helpers/inference.ts';

interface Run {
  readonly code: number;
  readonly out: string;
}

/** Every example file, as its documented command names it (examples/<dir>/<name>.ts). */
function exampleFiles(): string[] {
  return readdirSync('examples', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join('examples', f))
    .sort();
}

/**
 * Runs an example as a separate process with tsx's loader, as `npx tsx <file>` (examples/README.md)
 * does without npx's own start-up, and with only the SVC_* variables given here (none leaks in
 * from the test's own environment).
 */
function runExample(file: string, env: Record<string, string>, args: string[] = []): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', file, ...args], { env: { ...clean, ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** The examples end to end against a service on the demo upstream (no upstream configured). */
describe('examples/', () => {
  let t: TestApp;
  let key: string;
  const traderKey = generatePrivateKey();
  const trader = privateKeyToAccount(traderKey);
  let marketId: number;
  const ran = new Set<string>();

  const admin = async (method: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${t.url}${path}`, { method, headers: { ...t.admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = (await res.json()) as Record<string, unknown>;
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };

  /** Runs an example, which must succeed; returns its output. */
  const example = async (file: string, env: Record<string, string> = {}, args: string[] = []): Promise<string> => {
    ran.add(file);
    const r = await runExample(file, { SVC_URL: t.url, ...env }, args);
    assert.equal(r.code, 0, `${file} exited ${r.code}:\n${r.out}`);
    return r.out;
  };

  before(async () => {
    t = await startTestApp();
    await t.listen();
    key = (await createTestAccount(t, { credits: 100 })).key;
    await admin('POST', `/admin/wallets/${trader.address}/deposit`, { amount: 100 });
    const market = await admin('POST', '/admin/markets', {
      title: 'Will the examples pass?',
      category: 'software',
      market_type: 'yesno',
      end_date: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    });
    marketId = market.id as number;
  });
  after(async () => t?.close());

  const demo = /\[demo\] This is a demo answer from svc-/;

  it('gateway/openai-chat.ts prints the demo answer and its usage', async () => {
    const out = await example('examples/gateway/openai-chat.ts', { SVC_KEY: key });
    assert.match(out, demo);
    assert.match(out, /You said: "Say hi"/);
    assert.match(out, /completion_tokens: [1-9]/);
  });

  it('gateway/openai-stream.ts prints the streamed answer, then the usage', async () => {
    const out = await example('examples/gateway/openai-stream.ts', { SVC_KEY: key });
    assert.match(out, /You said: "Write a haiku about pools"[^]*usage:[^]*completion_tokens: [1-9]/);
  });

  it('gateway/openai-tools.ts runs the tool the model calls and prints the final text', async () => {
    const out = await example('examples/gateway/openai-tools.ts', { SVC_KEY: key });
    assert.match(out, /called get_weather\(\{"city":"demo"\}\) -> \{"city":"demo","forecast":"sunny","celsius":21\}/);
    assert.match(out, /The tool answered: "\{"city":"demo","forecast":"sunny"/);
  });

  it('gateway/openai-responses.ts prints both turns of a stored conversation', async () => {
    const out = await example('examples/gateway/openai-responses.ts', { SVC_KEY: key });
    assert.match(out, /You said: "Pick a number from 1 to 10"[^]*You said: "Now double it"[^]*output_tokens: [1-9]/);
  });

  it('gateway/anthropic-messages.ts streams an answer through /inference/v1/messages', async () => {
    const out = await example('examples/gateway/anthropic-messages.ts', { SVC_KEY: key });
    assert.match(out, /\[demo\] This is a demo answer from svc-pro[^]*usage:[^]*output_tokens: [1-9]/);
  });

  it('a gateway example exits non-zero and says why when the call fails', async () => {
    const r = await runExample('examples/gateway/openai-chat.ts', { SVC_URL: t.url, SVC_KEY: 'svk_not-a-key' });
    assert.notEqual(r.code, 0);
    assert.match(r.out, /401/);
    const noKey = await runExample('examples/gateway/openai-chat.ts', { SVC_URL: t.url });
    assert.notEqual(noKey.code, 0);
    assert.match(noKey.out, /Set SVC_KEY/);
  });

  it('market/create-api-key.ts mints a key by wallet signature, and market/trade-hmac.ts trades with it', async () => {
    const minted = await example('examples/market/create-api-key.ts', { SVC_PRIVATE_KEY: traderKey });
    const exported = /export SVC_WALLET=(0x[0-9a-f]{40}) SVC_MARKET_KEY=(\S+) SVC_MARKET_SECRET=(\S+)/.exec(minted);
    assert.ok(exported, minted);
    assert.equal(exported[1], trader.address.toLowerCase());
    const [, wallet, apiKey, apiSecret] = exported as unknown as [string, string, string, string];

    const traded = await example('examples/market/trade-hmac.ts', { SVC_WALLET: wallet, SVC_MARKET_KEY: apiKey, SVC_MARKET_SECRET: apiSecret }, [String(marketId)]);
    assert.match(traded, new RegExp(`market_id: ${marketId},\\s+side: 'yes',\\s+amount: 5,`));
    assert.match(traded, /remaining_balance: 95,/);
  });

  it('market/read-prices.ts lists the open market with its prices and volume', async () => {
    const out = await example('examples/market/read-prices.ts');
    assert.match(out, new RegExp(`#${marketId} Will the examples pass\\?: yes 0\\.5\\d\\d, no 0\\.4\\d\\d, volume 5 USDC`));
  });

  it('ran every example in examples/', () => {
    assert.deepEqual([...ran].sort(), exampleFiles());
  });
});
