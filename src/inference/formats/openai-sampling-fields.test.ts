import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../shared/errors.ts';
import { checkChatLogprobs, checkOpenAISamplingFields } from './openai-sampling-fields.ts';

function error400(check: () => void): string {
  try {
    check();
  } catch (e) {
    assert.ok(e instanceof HttpError && e.status === 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

describe('OpenAI sampling fields', () => {
  it('takes OpenAI ranges, edges included, and null as none', () => {
    checkOpenAISamplingFields({});
    checkOpenAISamplingFields({ presence_penalty: -2, frequency_penalty: 2, seed: -1, logit_bias: { '0': -100, '100257': 100 } });
    checkOpenAISamplingFields({ presence_penalty: null, frequency_penalty: null, seed: null, logit_bias: null });
    checkOpenAISamplingFields({ seed: 2 ** 63, logit_bias: {} });
    checkChatLogprobs({ logprobs: true, top_logprobs: 20 });
    checkChatLogprobs({ logprobs: false, top_logprobs: null });
  });

  it('names the field out of range', () => {
    const sampling = (body: Record<string, unknown>) => error400(() => checkOpenAISamplingFields(body));
    assert.equal(sampling({ presence_penalty: 2.01 }), 'presence_penalty: must be <= 2');
    assert.equal(sampling({ frequency_penalty: -3 }), 'frequency_penalty: must be >= -2');
    assert.equal(sampling({ seed: 0.1 }), 'seed: must be an integer');
    assert.equal(sampling({ seed: true }), 'seed: must be an integer');
    assert.equal(sampling({ logit_bias: 'x' }), 'logit_bias: must be an object of token ids to numbers');
    assert.equal(sampling({ logit_bias: { '1.5': 1 } }), 'logit_bias: key "1.5" is not a token id; keys must be non-negative integers');
    assert.equal(sampling({ logit_bias: { '7': 100.1 } }), 'logit_bias.7: must be <= 100');
    const logprobs = (body: Record<string, unknown>) => error400(() => checkChatLogprobs(body));
    assert.equal(logprobs({ logprobs: 1 }), 'logprobs: must be a boolean');
    assert.equal(logprobs({ logprobs: true, top_logprobs: 21 }), 'top_logprobs: must be <= 20');
    assert.equal(logprobs({ top_logprobs: 0 }), 'top_logprobs: is only allowed when logprobs is true');
  });
});
