import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAvatarUrl, checkUsernameRules } from './username-rules.ts';

describe('checkUsernameRules', () => {
  it('accepts 3 to 20 letters, digits and underscores starting with a letter', () => {
    for (const ok of ['abc', 'Alice_99', 'a'.repeat(20), 'Zed_']) assert.deepEqual(checkUsernameRules(ok), { ok: true }, ok);
  });

  it('refuses the wrong length, a leading non-letter, other characters and reserved names', () => {
    const reason = (n: string) => {
      const r = checkUsernameRules(n);
      return r.ok ? null : r.reason;
    };
    assert.equal(reason('ab'), 'must be between 3 and 20 characters');
    assert.equal(reason('a'.repeat(21)), 'must be between 3 and 20 characters');
    assert.equal(reason('1abc'), 'must start with a letter');
    assert.equal(reason('_abc'), 'must start with a letter');
    assert.equal(reason('0xabc'), 'must start with a letter');
    assert.equal(reason('al ice'), 'may contain only letters, digits and underscores');
    assert.equal(reason('alicé'), 'may contain only letters, digits and underscores');
    assert.equal(reason('Admin'), 'is reserved');
  });
});

describe('checkAvatarUrl', () => {
  it('accepts https URLs only, without credentials, up to 500 characters', () => {
    assert.deepEqual(checkAvatarUrl('https://cdn.example.com/a.png'), { ok: true });
    assert.equal(checkAvatarUrl('http://cdn.example.com/a.png').ok, false);
    assert.equal(checkAvatarUrl('javascript:alert(1)').ok, false);
    assert.equal(checkAvatarUrl('/relative.png').ok, false);
    assert.equal(checkAvatarUrl('https://e.com/a\u0000.png').ok, false);
    assert.equal(checkAvatarUrl('https://e.com/a b.png').ok, false);
    assert.equal(checkAvatarUrl('https://u:p@example.com/a.png').ok, false);
    assert.equal(checkAvatarUrl(`https://e.com/${'a'.repeat(500)}`).ok, false);
  });
});
