import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forbiddenKeyPath } from './json-body.ts';

describe('forbiddenKeyPath', () => {
  it('names a __proto__ key wherever it is, as JSON.parse keeps it (an own field)', () => {
    assert.equal(forbiddenKeyPath(JSON.parse('{"__proto__":{"x":1}}')), '__proto__');
    assert.equal(forbiddenKeyPath(JSON.parse('{"a":[{"b":1},{"c":{"__proto__":null}}]}')), 'a[1].c.__proto__');
    assert.equal(forbiddenKeyPath(JSON.parse('[{"__proto__":1}]')), '[0].__proto__');
  });

  it('names a constructor holding prototype, not an ordinary constructor field', () => {
    assert.equal(forbiddenKeyPath(JSON.parse('{"m":{"constructor":{"prototype":{}}}}')), 'm.constructor.prototype');
    assert.equal(forbiddenKeyPath(JSON.parse('{"constructor":"x","n":{"constructor":{"name":"y"}}}')), null);
    assert.equal(forbiddenKeyPath({ a: 1, b: [1, 'x', null] }), null);
  });
});
