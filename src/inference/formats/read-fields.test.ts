import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../shared/errors.ts';
import { at, readBody, readEnum, readInteger, readNumber, readString, readStringOrList } from './read-fields.ts';

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof HttpError);
    assert.equal(e.status, 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

describe('read-fields', () => {
  it('builds paths', () => {
    assert.equal(at('', 'model'), 'model');
    assert.equal(at(at('messages', 0), 'content'), 'messages[0].content');
  });

  it('rejects a body that is not an object', () => {
    assert.equal(message(() => readBody([])), 'body: must be a JSON object');
  });

  it('names the field in every message', () => {
    assert.equal(message(() => readString({}, 'model', '', { required: true })), 'model: is required');
    assert.equal(message(() => readString({ model: 1 }, 'model', '')), 'model: must be a string');
    assert.equal(message(() => readString({ q: '' }, 'q', 'x', { nonEmpty: true })), 'x.q: must not be empty');
    assert.equal(message(() => readInteger({ n: 1.5 }, 'n', '')), 'n: must be an integer');
    assert.equal(message(() => readNumber({ t: 3 }, 't', '', { max: 2 })), 't: must be <= 2');
    assert.equal(message(() => readNumber({ t: '1' }, 't', '')), 't: must be a number');
    assert.equal(message(() => readEnum({ e: 'x' }, 'e', '', ['a', 'b'])), 'e: must be one of a, b');
    assert.equal(message(() => readStringOrList({ s: [1] }, 's', '')), 's: must be a string or an array of strings');
    assert.equal(message(() => readStringOrList({ s: ['a', 'b'] }, 's', '', { maxItems: 1 })), 's: must have at most 1 items');
  });

  it('reads absent and null as undefined', () => {
    assert.equal(readString({ a: null }, 'a', ''), undefined);
    assert.equal(readInteger({}, 'a', ''), undefined);
    assert.deepEqual(readStringOrList({}, 's', ''), []);
    assert.deepEqual(readStringOrList({ s: 'x' }, 's', ''), ['x']);
  });
});
