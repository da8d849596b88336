import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStringFieldTemplate } from './string-field-template.ts';

const chunk = (content: string, extra = '') =>
  `{"id":"up-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]${extra}}`;

describe('createStringFieldTemplate', () => {
  it('reads the value of events that differ from the learned one only in it', () => {
    const t = createStringFieldTemplate('content');
    assert.equal(t.match(chunk('a')), undefined);
    t.learn(chunk('Hello'), 'Hello');
    for (const s of ['x', '', 'quote " and \\ backslash', 'line\nbreak', 'é ✓ \u2028', '"content":"no"}']) assert.equal(t.match(chunk(s)), s);
  });

  it('matches nothing else', () => {
    const t = createStringFieldTemplate('content');
    t.learn(chunk('Hello'), 'Hello');
    assert.equal(t.match(chunk('a', ',"usage":{"prompt_tokens":1}')), undefined);
    assert.equal(t.match(chunk('a').replace('"index":0', '"index":1')), undefined);
    // A value that is not one literal: the rest of another object spliced in where the value was.
    assert.equal(t.match(chunk('a').replace('"a"', '"a"},"finish_reason":"stop","x":{"content":"b"')), undefined);
    assert.equal(t.match(chunk('a').replace('"a"', 'null')), undefined);
    assert.equal(t.match(chunk('a').replace('"a"', '"a" "b"')), undefined);
    assert.equal(t.match('{}'), undefined);
  });

  it('learns only from an event where the key occurs once', () => {
    const t = createStringFieldTemplate('content');
    t.learn(`{"content":"a","x":{"content":"a"}}`, 'a');
    assert.equal(t.match(`{"content":"b","x":{"content":"a"}}`), undefined);
    t.learn(`{"content": "a", "n": 1}`, 'a');
    assert.equal(t.match(`{"content": "b\\u00e9", "n": 1}`), 'bé');
  });
});
