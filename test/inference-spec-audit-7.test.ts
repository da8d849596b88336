import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * Findings of a seventh audit of the inference API, tried as a new user would with the official
 * `openai` and `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference:
 * seventh audit").
 */
describe('inference API, seventh audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const CHAT_MODELS = ['svc-shiplow', 'svc-fast', 'svc-vision', 'svc-pro', 'svc-ultra', 'svc-auto'];
  const CREATED_AT = '2026-11-25T00:00:00Z';

  describe('the model list through the Anthropic SDK at {base_url}/inference', () => {
    it('lists every chat model with the fields of Anthropic\'s model objects: type, display_name, created_at', async () => {
      const seen: Anthropic.ModelInfo[] = [];
      for await (const m of anthropic.models.list()) seen.push(m);
      assert.deepEqual(seen.map((m) => m.id), CHAT_MODELS);
      for (const m of seen) {
        assert.equal(m.type, 'model', JSON.stringify(m));
        assert.equal(m.display_name, m.id, JSON.stringify(m));
        assert.equal(m.created_at, CREATED_AT, JSON.stringify(m));
        assert.equal(new Date(m.created_at).getTime() / 1000, (m as unknown as { created: number }).created);
      }
      const one = await anthropic.models.retrieve('svc-pro');
      assert.deepEqual({ id: one.id, type: one.type, display_name: one.display_name, created_at: one.created_at }, { id: 'svc-pro', type: 'model', display_name: 'svc-pro', created_at: CREATED_AT });
    });

    it('the list is one page, as Anthropic\'s list says it: has_more false, first_id and last_id', async () => {
      const page = await anthropic.models.list();
      assert.equal(page.has_more, false);
      assert.equal(page.first_id, 'svc-shiplow');
      assert.equal(page.last_id, 'svc-auto');
      assert.equal(page.hasNextPage(), false);
    });

    it('/v1 and /inference/v1 answer the same list, which the OpenAI SDK still reads as its own', async () => {
      const get = async (path: string) => (await fetch(`${g.t.url}${path}`, { headers: { authorization: `Bearer ${acct.key}` } })).json();
      const v1 = (await get('/v1/models')) as { object: string; data: Record<string, unknown>[]; has_more: boolean };
      assert.deepEqual(await get('/inference/v1/models'), v1);
      assert.equal(v1.object, 'list');
      assert.deepEqual(v1.data[1], {
        id: 'svc-fast',
        object: 'model',
        created: 1795564800,
        owned_by: 'svc',
        type: 'model',
        display_name: 'svc-fast',
        created_at: CREATED_AT,
      });
      assert.deepEqual(await get('/v1/models/svc-fast'), v1.data[1]);
      assert.deepEqual(await get('/inference/v1/models/svc-fast'), v1.data[1]);
      const ids: string[] = [];
      for await (const m of openai.models.list()) ids.push(m.id);
      assert.deepEqual(ids, CHAT_MODELS);
    });
  });
});
