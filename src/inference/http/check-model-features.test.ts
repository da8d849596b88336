import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { HttpError } from '../../shared/errors.ts';
import { checkModelFeatures } from './check-model-features.ts';

const catalog = buildCatalog(
  {
    providers: [{ id: 'a', type: 'openai', base_url: 'https://a.example/v1', api_key: 'k' }],
    models: [
      { id: 'svc-text', type: 'chat', max_output: 100, capabilities: { tools: false, json_output: false, streaming: false }, deployments: [{ provider: 'a', model: 'm' }] },
      { id: 'svc-eyes', type: 'chat', capabilities: { vision: true }, deployments: [{ provider: 'a', model: 'm' }] },
    ],
  },
  {},
);
const text = catalog.models.get('svc-text')!;
const eyes = catalog.models.get('svc-eyes')!;

const base: CanonicalChatRequest = {
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', url: 'https://x.example/a.png' }] },
  ],
  tools: [],
  stop: [],
  stream: false,
};

const refuses = (fn: () => void, message: string) =>
  assert.throws(fn, (e: unknown) => e instanceof HttpError && e.status === 400 && e.message === message);

describe('checkModelFeatures', () => {
  it('refuses image parts on a model without vision, naming the part', () => {
    refuses(() => checkModelFeatures(text, base, { maxTokens: 'max_tokens' }), 'messages[1].content[1]: model svc-text does not accept images');
    checkModelFeatures(eyes, base, { maxTokens: 'max_tokens' });
  });

  it('bounds max_tokens by the model max output, naming the field the client used', () => {
    const req = { ...base, messages: [base.messages[0]!], maxTokens: 101 };
    refuses(() => checkModelFeatures(text, req, { maxTokens: 'max_completion_tokens' }), 'max_completion_tokens: must be <= 100 for model svc-text');
    checkModelFeatures(text, { ...req, maxTokens: 100 }, { maxTokens: 'max_tokens' });
    checkModelFeatures(eyes, { ...req, maxTokens: 10_000_000 }, { maxTokens: 'max_tokens' });
  });

  it('refuses tools, structured output and streaming on a model without them', () => {
    const plain = { ...base, messages: [base.messages[0]!] };
    refuses(() => checkModelFeatures(text, { ...plain, tools: [{ name: 'f', parameters: {} }] }, { maxTokens: 'max_tokens' }), 'tools: model svc-text does not support tools');
    refuses(() => checkModelFeatures(text, { ...plain, responseFormat: { type: 'json_object' } }, { maxTokens: 'max_tokens' }), 'response_format: model svc-text does not support structured output');
    refuses(() => checkModelFeatures(text, { ...plain, stream: true }, { maxTokens: 'max_tokens' }), 'stream: model svc-text does not support streaming');
  });
});
