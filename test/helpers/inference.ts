import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppDeps } from '../../src/deps.ts';
import { estimateCharge, estimateTokensFromText } from '../../src/inference/billing/estimate.ts';
import { createInferenceContext } from '../../src/inference/inference-context.ts';
import { principalOf } from '../../src/inference/http/principal.ts';
import { HttpError } from '../../src/shared/errors.ts';
import type { TestApp } from './app.ts';

export interface TestAccount {
  readonly id: number;
  readonly key: string;
  readonly keyId: number;
}

/** An account (verified unless told otherwise) with credits and one key, through the admin API. */
export async function createTestAccount(
  t: TestApp,
  opts: { credits?: number; verified?: boolean; email?: string } = {},
): Promise<TestAccount> {
  const email = opts.email ?? `u${Math.random().toString(36).slice(2)}@example.com`;
  const created = await t.app.inject({
    method: 'POST',
    url: '/admin/accounts',
    headers: t.admin,
    payload: { email, email_verified: opts.verified ?? true },
  });
  if (created.statusCode !== 201) throw new Error(`create account: ${created.statusCode} ${created.body}`);
  const id = created.json().id as number;
  if (opts.credits) {
    const g = await t.app.inject({ method: 'POST', url: `/admin/accounts/${id}/credits`, headers: t.admin, payload: { credits: opts.credits } });
    if (g.statusCode !== 200) throw new Error(`grant: ${g.statusCode} ${g.body}`);
  }
  const k = await t.app.inject({ method: 'POST', url: `/admin/accounts/${id}/keys`, headers: t.admin, payload: { name: 'test' } });
  if (k.statusCode !== 201) throw new Error(`issue key: ${k.statusCode} ${k.body}`);
  return { id, key: k.json().key as string, keyId: k.json().id as number };
}

export interface ProbeBody {
  model?: string;
  prompt?: string;
  max_tokens?: number;
  usage?: { input_tokens: number; cached_input_tokens?: number; output_tokens?: number };
  /** Release instead of settling, answering this status. */
  fail?: number;
}

/**
 * Probe routes standing in for the chat routes (built later): the checks in contract order
 * and reserve-then-settle. /v1/_probe/ping only runs the guards.
 */
export function mountInferenceProbes(app: FastifyInstance, deps: AppDeps): void {
  const ctx = createInferenceContext({ ...deps, catalog: deps.config.catalog });
  for (const prefix of ['/v1', '/inference/v1']) {
    app.post(`${prefix}/_probe/ping`, { onRequest: ctx.guard('inference') }, async () => ({ ok: true }));
    app.post(`${prefix}/_probe/messages`, { onRequest: ctx.guard('inference', { allowXApiKey: true }) }, async () => ({ ok: true }));
    app.post(`${prefix}/_probe/images`, { onRequest: ctx.guard('images') }, async () => ({ ok: true }));
  }
  app.post<{ Body: ProbeBody }>(
    '/v1/_probe/chat',
    {
      onRequest: ctx.guard('inference'),
      schema: {
        body: {
          type: 'object',
          required: ['model', 'prompt'],
          properties: {
            model: { type: 'string' },
            prompt: { type: 'string' },
            max_tokens: { type: 'integer', minimum: 1 },
            usage: { type: 'object' },
            fail: { type: 'integer' },
          },
        },
      },
    },
    async (request) => {
      const body = request.body;
      const model = ctx.resolveModel(body.model!, 'chat.completions');
      const charge = estimateCharge(model, { inputTokens: estimateTokensFromText(body.prompt!), maxOutputTokens: body.max_tokens });
      const r = await ctx.billing.reserve({ principal: principalOf(request), model, endpoint: 'chat.completions', requestId: request.id, charge });
      const servedBy = { providerId: 'openai-main', upstreamModel: 'upstream-secret-model' };
      if (body.fail) {
        await ctx.billing.release(r, { status: body.fail, servedBy });
        throw new HttpError(body.fail, 'upstream failed');
      }
      const u = body.usage ?? { input_tokens: 0 };
      const s = await ctx.billing.settle(r, {
        usage: { inputTokens: u.input_tokens, cachedInputTokens: u.cached_input_tokens, outputTokens: u.output_tokens },
        usageSource: 'upstream',
        servedBy,
      });
      return { held: r.amount.toString(), cost: s.cost.toString(), credits: s.credits.toString() };
    },
  );
}

/** A clock the test moves by hand (the key cache's TTL runs on it). */
export function manualClock(): { now(): number; advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms) };
}

/**
 * An account's credit books, checked: the ledger sums to the balance and the open leases to
 * `reserved`. One statement, one snapshot (leases go back and charges land concurrently).
 */
export async function creditBooks(t: TestApp, accountId: number): Promise<{ credits: bigint; reserved: bigint }> {
  const r = await sql<{ credits: bigint; reserved: bigint; ledger: bigint; leased: bigint }>`
    select a.credits, a.reserved,
      (select coalesce(sum(amount), 0)::bigint from credit_ledger where account_id = a.id) as ledger,
      (select coalesce(sum(amount), 0)::bigint from credit_reservations where account_id = a.id) as leased
    from accounts a where a.id = ${accountId}`.execute(t.deps.db);
  const b = r.rows[0]!;
  assert.equal(b.ledger, b.credits, 'the ledger sums to the balance');
  assert.equal(b.leased, b.reserved, 'the open leases sum to reserved');
  return { credits: b.credits, reserved: b.reserved };
}
