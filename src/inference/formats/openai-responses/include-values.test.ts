import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkIncludes } from './include-values.ts';

describe('include values', () => {
  it('takes every value OpenAI defines and refuses any other, naming the entry', () => {
    assert.deepEqual(checkIncludes(['reasoning.encrypted_content', 'message.output_text.logprobs']), ['reasoning.encrypted_content', 'message.output_text.logprobs']);
    assert.deepEqual(checkIncludes([]), []);
    assert.throws(() => checkIncludes(['reasoning.encrypted_content', 'reasoning.encrypted_contents']), /include\[1\]: must be one of .*reasoning\.encrypted_content/);
    assert.throws(() => checkIncludes([null]), /include\[0\]/);
  });
});
