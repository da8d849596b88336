import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { createCompletionChunkFormatter, formatCompletion } from './format-completion.ts';
import { CONTINUATION_INSTRUCTION, parseCompletionRequest } from './parse-completion-request.ts';

function error400(body: unknown): string {
  try {
    parseCompletionRequest(body);
  } catch (e) {
    assert.ok(e instanceof HttpError && e.status === 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

const identity = { id: 'cmpl-abc', model: 'svc-fast', created: 1700000000 };

describe('completions format', () => {
  it('turns the prompt into a continuation chat turn', () => {
    assert.deepEqual(parseCompletionRequest({ model: 'svc-fast', prompt: 'Once upon', max_tokens: 20, temperature: 0.3, stop: '\n', stream: true, stream_options: { include_usage: true } }), {
      model: 'svc-fast',
      includeUsage: true,
      request: {
        messages: [
          { role: 'system', content: CONTINUATION_INSTRUCTION },
          { role: 'user', content: [{ type: 'text', text: 'Once upon' }] },
        ],
        tools: [],
        stop: ['\n'],
        stream: true,
        maxTokens: 20,
        temperature: 0.3,
      },
    });
    assert.equal(parseCompletionRequest({ model: 'm', prompt: ['one'] }).request.messages.length, 2);
  });

  it('names the invalid field', () => {
    assert.equal(error400({ model: 'm' }), 'prompt: is required');
    assert.equal(error400({ model: 'm', prompt: ['a', 'b'] }), 'prompt: several prompts in one request are not supported; send one request per prompt');
    assert.equal(error400({ model: 'm', prompt: [1, 2] }), 'prompt: token arrays are not supported; send the prompt as text');
    assert.equal(error400({ model: 'm', prompt: [[1], [2, 3]] }), 'prompt: token arrays are not supported; send the prompt as text');
    assert.equal(error400({ model: 'm', prompt: [] }), 'prompt: must not be empty');
    assert.equal(error400({ model: 'm', prompt: [1.5] }), 'prompt: must be a string');
    assert.equal(error400({ model: 'm', prompt: 7 }), 'prompt: must be a string');
    assert.equal(error400({ model: 'm', prompt: '' }), 'prompt: must not be empty');
    assert.equal(error400({ model: 'm', prompt: 'p', echo: true }), 'echo: is not supported');
    assert.equal(error400({ model: 'm', prompt: 'p', suffix: 'end' }), 'suffix: is not supported');
    assert.equal(error400({ model: 'm', prompt: 'p', logprobs: 5 }), 'logprobs: is not supported');
    assert.equal(error400({ model: 'm', prompt: 'p', n: 3 }), 'n: only 1 is supported');
  });

  it('formats a text_completion', () => {
    assert.deepEqual(
      formatCompletion({ text: ' a time', reasoning: '', toolCalls: [], finishReason: 'length', usage: { inputTokens: 5, cachedInputTokens: 0, outputTokens: 2 }, usageEstimated: false }, identity),
      {
        id: 'cmpl-abc',
        object: 'text_completion',
        created: 1700000000,
        model: 'svc-fast',
        choices: [{ text: ' a time', index: 0, logprobs: null, finish_reason: 'length' }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
      },
    );
  });

  it('streams text_completion chunks, a finish chunk and the usage chunk', () => {
    const f = createCompletionChunkFormatter({ ...identity, includeUsage: true });
    const chunks = [
      { type: 'text-delta', text: ' a' },
      { type: 'reasoning-delta', text: 'x' },
      { type: 'text-delta', text: ' time' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { inputTokens: 5, cachedInputTokens: 0, outputTokens: 2 }, estimated: false },
    ].flatMap((p) => f.format(p as never)) as { choices: { text: string; finish_reason: unknown }[]; usage: unknown }[];
    assert.deepEqual(chunks.slice(0, 3).map((c) => [c.choices[0]!.text, c.choices[0]!.finish_reason, c.usage]), [
      [' a', null, null],
      [' time', null, null],
      ['', 'stop', null],
    ]);
    assert.deepEqual(chunks[3]!.choices, []);
    assert.equal((chunks[3]!.usage as { total_tokens: number }).total_tokens, 7);
  });
});
