import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FAKE_ANTHROPIC_KEY, startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.ts';
import { FAKE_OPENAI_KEY, startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.ts';
import { FAKE_RERANK_KEY, startFakeRerank, type FakeRerank } from '../fakes/fake-rerank.ts';
import type { Clock } from '../../src/shared/clock.ts';
import { startTestApp, type TestApp } from './app.ts';
import { createTestAccount, type TestAccount } from './inference.ts';
import { startMailbox, type Mailbox } from './mailbox.ts';
import { waitFor } from './wait.ts';

/** Upstream model names of the test catalog: real-looking, so the leak checks mean something. */
export const UPSTREAM_MODELS = {
  fast: 'gpt-4.1-mini',
  vision: 'claude-sonnet-4-5',
  pro: 'claude-opus-4-1',
  proFallback: 'gpt-4.1',
  embed: 'text-embedding-3-small',
  rerank: 'rerank-v3.5',
  image: 'gpt-image-1',
} as const;

/** Micro-credits per 1K tokens (per image for images), as the catalog below sets them. */
export const PRICES = {
  'svc-shiplow': { input: 300_000n, cached: 75_000n, output: 600_000n },
  'svc-fast': { input: 450_000n, cached: 112_500n, output: 900_000n },
  'svc-vision': { input: 1_800_000n, cached: 450_000n, output: 5_500_000n },
  'svc-pro': { input: 3_200_000n, cached: 800_000n, output: 9_800_000n },
  'svc-ultra': { input: 3_500_000n, cached: 875_000n, output: 11_000_000n },
  'svc-embed': { input: 200_000n, cached: 200_000n, output: 0n },
  'svc-rerank': { input: 200_000n, cached: 200_000n, output: 0n },
} as const;
export const IMAGE_PRICE = 40_000_000n;

/**
 * Resilience of the shared gateway tests: no retry on the same deployment and breakers that never
 * open, so a queued failure is seen exactly once and fallbacks go straight to the next deployment.
 * The fault tests (test/inference-resilience.test.ts) set their own.
 */
export const PLAIN_RESILIENCE = 'resilience: { max_retries: 0, breaker: { consecutive_failures: 1000000, min_requests: 1000000 } }';

/**
 * The catalog of the gateway tests: one provider of each type on the fake upstreams. svc-fast is
 * served by the OpenAI-style fake, svc-vision by the Anthropic one, svc-pro by Anthropic with an
 * OpenAI fallback; the two pipelines (one executor per lane, as single ids), svc-auto over
 * svc-fast, svc-vision and svc-pro, svc-shiplow as the budget default, and the embeddings, rerank
 * and image models as shipped. Reasoning: svc-vision and svc-pro have the capability, svc-fast
 * does not but its deployment takes reasoning parameters, and svc-pro's OpenAI fallback does not
 * (as gpt-4.1 does not).
 */
export function catalogYaml(f: { openai: FakeOpenAI; anthropic: FakeAnthropic; rerank: FakeRerank }, resilience = PLAIN_RESILIENCE): string {
  return `
${resilience}
default_model: svc-shiplow
auto:
  candidates: [svc-fast, svc-vision, svc-pro]
  rules:
    - { lanes: [math], use: [svc-pro] }
providers:
  - { id: main-openai, type: openai, base_url: "${f.openai.baseUrl}", api_key: "${FAKE_OPENAI_KEY}" }
  - { id: main-anthropic, type: anthropic, base_url: "${f.anthropic.url}", api_key: "${FAKE_ANTHROPIC_KEY}" }
  - { id: main-rerank, type: rerank, base_url: "${f.rerank.baseUrl}", api_key: "${FAKE_RERANK_KEY}" }
  - { id: main-images, type: images, base_url: "${f.openai.baseUrl}", api_key: "${FAKE_OPENAI_KEY}" }
models:
  - id: svc-shiplow
    type: chat
    context: 131072
    max_output: 32768
    pricing: { input: 0.30, cached_input: 0.075, output: 0.60 }
    pipeline: { code: svc-fast, agent: svc-pro, math: svc-pro, vision: svc-vision, multilingual: svc-fast, general: svc-fast }
  - id: svc-fast
    type: chat
    context: 1000000
    max_output: 900000
    pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }
    deployments: [{ provider: main-openai, model: ${UPSTREAM_MODELS.fast}, reasoning: true }]
  - id: svc-vision
    type: chat
    context: 256000
    max_output: 200000
    pricing: { input: 1.80, cached_input: 0.45, output: 5.50 }
    capabilities: { vision: true, reasoning: true }
    deployments: [{ provider: main-anthropic, model: ${UPSTREAM_MODELS.vision} }]
  - id: svc-pro
    type: chat
    context: 1000000
    max_output: 1040000
    pricing: { input: 3.20, cached_input: 0.80, output: 9.80 }
    capabilities: { reasoning: true }
    deployments:
      - { provider: main-anthropic, model: ${UPSTREAM_MODELS.pro} }
      - { provider: main-openai, model: ${UPSTREAM_MODELS.proFallback}, reasoning: false }
  - id: svc-ultra
    type: chat
    context: 1000000
    max_output: 1040000
    pricing: { input: 3.50, cached_input: 0.875, output: 11.00 }
    capabilities: { vision: true }
    pipeline: { code: svc-pro, agent: svc-pro, math: svc-pro, vision: svc-vision, multilingual: svc-pro, general: svc-pro }
  - id: svc-auto
    type: chat
    capabilities: { vision: true }
  - id: svc-embed
    type: embedding
    context: 8192
    pricing: { input: 0.20 }
    deployments: [{ provider: main-openai, model: ${UPSTREAM_MODELS.embed} }]
  - id: svc-rerank
    type: rerank
    context: 32768
    pricing: { input: 0.20 }
    deployments: [{ provider: main-rerank, model: ${UPSTREAM_MODELS.rerank} }]
  - id: svc-image
    type: image
    pricing: { per_image: 40 }
    deployments: [{ provider: main-images, model: ${UPSTREAM_MODELS.image} }]
`;
}

export interface Gateway {
  readonly t: TestApp;
  readonly openai: FakeOpenAI;
  readonly anthropic: FakeAnthropic;
  readonly rerank: FakeRerank;
  /** The official client at `${t.url}/v1`, no retries. */
  client(key: string): OpenAI;
  close(): Promise<void>;
}

/**
 * A listening app whose catalog (a CONFIG_FILE in a temp dir) points at fake upstreams on loopback.
 * `catalog` replaces the YAML (given the fakes; catalogYaml is the default).
 */
export async function startGateway(
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    catalog?: (f: { openai: FakeOpenAI; anthropic: FakeAnthropic; rerank: FakeRerank }) => string;
    /** Share another gateway's database (a second instance); not closed by this one. */
    database?: TestApp['database'];
  } = {},
): Promise<Gateway> {
  const [openai, anthropic, rerank] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeRerank()]);
  const dir = mkdtempSync(join(tmpdir(), 'svc-gateway-'));
  const configFile = join(dir, 'catalog.yaml');
  writeFileSync(configFile, (opts.catalog ?? catalogYaml)({ openai, anthropic, rerank }));
  // Idle credit leases go back at once, so tests can check that nothing stays reserved.
  const t = await startTestApp({ env: { CONFIG_FILE: configFile, CREDIT_LEASE_IDLE_MS: '100', ...opts.env }, ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.database ? { database: opts.database } : {}) });
  await t.listen();
  return {
    t,
    openai,
    anthropic,
    rerank,
    client: (key) => new OpenAI({ apiKey: key, baseURL: `${t.url}/v1`, maxRetries: 0 }),
    async close() {
      await t.close();
      await Promise.all([openai.close(), anthropic.close(), rerank.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A gateway (startGateway) whose dashboard sends its mail to a loopback mailbox (SMTP_URL); the
 * gateway's `close` closes the mailbox too.
 */
export async function startGatewayWithMailbox(opts: Parameters<typeof startGateway>[0] = {}): Promise<{ g: Gateway; mail: Mailbox }> {
  const mail = await startMailbox();
  let g: Gateway;
  try {
    g = await startGateway({ ...opts, env: { SMTP_URL: mail.url, ...opts.env } });
  } catch (e) {
    await mail.close();
    throw e;
  }
  const closeGateway = g.close.bind(g);
  return {
    mail,
    g: Object.assign(g, {
      async close() {
        await closeGateway();
        await mail.close();
      },
    }),
  };
}

/**
 * The account as the admin API shows it (credits in micro-credits), once settled: charges are
 * written behind the answers and the instance's credit lease goes back when the account is idle
 * (CREDIT_LEASE_IDLE_MS, 100 ms here; a lease is returned only after its pending charges are
 * written), so this waits until nothing is reserved, and fails if credits stay reserved.
 */
export async function accountCredits(t: TestApp, accountId: number): Promise<{ credits: bigint; reserved: bigint }> {
  let last: { credits: bigint; reserved: bigint } | null = null;
  return waitFor(
    async () => {
      const r = await t.app.inject({ url: `/admin/accounts/${accountId}`, headers: t.admin });
      if (r.statusCode !== 200) throw new Error(`account: ${r.statusCode} ${r.body}`);
      const a = r.json();
      last = { credits: BigInt(a.credits_micro), reserved: BigInt(Math.round(a.reserved * 1e6)) };
      return last.reserved === 0n ? last : null;
    },
    { message: () => `account ${accountId} still has ${String(last?.reserved)} micro-credits reserved`, everyMs: 20 },
  );
}

export interface UsageRow {
  id: string;
  model: string;
  served_model: string | null;
  lane: string | null;
  endpoint: string;
  provider: string | null;
  upstream_model: string | null;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  image_count: number;
  cost_micro: string;
  status: number;
  usage_source: 'upstream' | 'estimated' | null;
  request_id: string;
}

/** The account's usage records, newest first, through the admin API. */
export async function usageRows(t: TestApp, accountId: number): Promise<UsageRow[]> {
  const r = await t.app.inject({ url: `/admin/accounts/${accountId}/usage`, headers: t.admin });
  if (r.statusCode !== 200) throw new Error(`usage: ${r.statusCode} ${r.body}`);
  return r.json().data as UsageRow[];
}

/** Polls until the account has `count` usage records (an abandoned stream settles after the client left). */
export async function waitForUsage(t: TestApp, accountId: number, count: number): Promise<UsageRow[]> {
  let seen = 0;
  return waitFor(
    async () => {
      const rows = await usageRows(t, accountId);
      seen = rows.length;
      return rows.length >= count ? rows : null;
    },
    { message: () => `account ${accountId} has ${seen} usage records, not ${count}` },
  );
}

/**
 * Runs `fn`, then returns the one usage record it left, checking that the balance moved by exactly
 * its cost and that nothing stays reserved.
 */
export async function billedOnce(g: Gateway, accountId: number, fn: () => Promise<void>): Promise<UsageRow> {
  const before = await accountCredits(g.t, accountId);
  const seen = (await usageRows(g.t, accountId)).length;
  await fn();
  const [row] = await waitForUsage(g.t, accountId, seen + 1);
  const after = await accountCredits(g.t, accountId);
  assert.equal(after.reserved, 0n, 'nothing reserved after');
  assert.equal(before.credits - after.credits, BigInt(row!.cost_micro), 'the ledger moved what the usage record says');
  return row!;
}

/**
 * The cost of a usage in micro-credits, recomputed here from the catalog's prices:
 * ceil((uncached * in + cached * cachedIn + out * out) / 1000).
 */
export function expectedCost(p: { input: bigint; cached: bigint; output: bigint }, u: { input: number; cached?: number; output?: number }): bigint {
  const cached = BigInt(u.cached ?? 0);
  const sum = (BigInt(u.input) - cached) * p.input + cached * p.cached + BigInt(u.output ?? 0) * p.output;
  return (sum + 999n) / 1000n;
}

/** A gateway, a verified account with credits, and both official SDKs pointed at the gateway. */
export interface SdkSetup {
  readonly g: Gateway;
  readonly acct: TestAccount;
  readonly anthropic: Anthropic;
  readonly openai: OpenAI;
}

/** The set-up of the spec-audit suites: a generous rate limit, 100,000 credits, no SDK retries. */
export async function startWithSdks(): Promise<SdkSetup> {
  const g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
  const acct = await createTestAccount(g.t, { credits: 100_000 });
  const anthropic = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
  return { g, acct, anthropic, openai: g.client(acct.key) };
}

/**
 * The shipped catalog (config/default.yaml), its OpenAI and Anthropic upstreams on the fakes, its
 * resilience replaced by `resilience` (no retry waits unless given).
 */
export function shippedCatalog(f: { openai: { baseUrl: string }; anthropic: { url: string } }, resilience = 'resilience: { max_retries: 0 }'): string {
  return readFileSync(new URL('../../config/default.yaml', import.meta.url), 'utf8')
    .replace('${OPENAI_BASE_URL:-https://api.openai.com/v1}', f.openai.baseUrl)
    .replace('${OPENAI_API_KEY}', FAKE_OPENAI_KEY)
    .replace('${ANTHROPIC_BASE_URL:-https://api.anthropic.com}', f.anthropic.url)
    .replace('${ANTHROPIC_API_KEY}', FAKE_ANTHROPIC_KEY)
    .replace(/^resilience:[\s\S]*$/m, `${resilience}\n`);
}

/** startWithSdks on the shipped catalog (shippedCatalog, with `resilience` when given), for the routing audits. */
export async function startShippedWithSdks(resilience?: string): Promise<SdkSetup> {
  const g = await startGateway({ catalog: (f) => shippedCatalog(f, resilience), env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' } });
  const acct = await createTestAccount(g.t, { credits: 100_000 });
  const anthropic = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
  return { g, acct, anthropic, openai: g.client(acct.key) };
}

/** POSTs `body` as JSON to `path` of the gateway with `key` as the bearer token, plus any `headers`. */
export function postJson(g: Gateway, key: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${g.t.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}
