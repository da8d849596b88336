import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createId } from './create-id.ts';

describe('createId', () => {
  it('prefixes a base62 random part of the asked length', () => {
    assert.match(createId('chatcmpl-'), /^chatcmpl-[A-Za-z0-9]{24}$/);
    assert.match(createId('call_', 10), /^call_[A-Za-z0-9]{10}$/);
  });

  it('never spells a provider or model family: a random `...MaGpTx...` read as a leak of the upstream', () => {
    // At 24 characters about one id in 1,400 spelled "gpt" by chance (a brand-hiding test caught one).
    for (let i = 0; i < 100_000; i++) {
      const id = createId('rerank-');
      assert.doesNotMatch(id.slice('rerank-'.length), /gpt|claude|openai|anthropic|sonnet|gemini|llama|cohere|jina|qwen|grok|mistral/i, id);
    }
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => createId('x')));
    assert.equal(ids.size, 1000);
  });
});

describe('createId across pool refills', () => {
  it('keeps every character of the alphabet about equally likely', () => {
    // 20,000 ids of 24 characters draw from the 4 KB pool well over a hundred times.
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) for (const c of createId('', 24)) counts.set(c, (counts.get(c) ?? 0) + 1);
    assert.equal(counts.size, 62);
    const expected = (20_000 * 24) / 62;
    for (const [c, n] of counts) assert.ok(Math.abs(n - expected) < expected * 0.1, `${c}: ${n} against ${expected}`);
  });
});
