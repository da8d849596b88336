import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mentionsJson } from './json-mode.ts';

describe('JSON mode word', () => {
  it('finds "json" in any case, inside a word too, in any of the texts', () => {
    assert.equal(mentionsJson(['Answer in JSON.']), true);
    assert.equal(mentionsJson(['weather?', 'a jsonl line']), true);
    assert.equal(mentionsJson(['Json']), true);
    assert.equal(mentionsJson(['J S O N', 'jso n']), false);
    assert.equal(mentionsJson([]), false);
  });
});
