import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, passwordProblem, verifyPassword } from './password.ts';

describe('dashboard passwords', () => {
  it('verifies the password it hashed and nothing else', async () => {
    const stored = await hashPassword('correct horse battery');
    assert.match(stored, /^scrypt\$32768\$8\$1\$/);
    assert.equal(await verifyPassword('correct horse battery', stored), true);
    assert.equal(await verifyPassword('correct horse batterY', stored), false);
    assert.equal(await verifyPassword('x', 'not-a-hash'), false);
  });
  it('salts every hash', async () => {
    assert.notEqual(await hashPassword('same password!'), await hashPassword('same password!'));
  });
  it('names what is wrong with a weak password', () => {
    assert.equal(passwordProblem('short'), 'must be at least 10 characters');
    assert.equal(passwordProblem(' '.repeat(12)), 'must not be only spaces');
    assert.equal(passwordProblem('\t \n'.repeat(4)), 'must not be only spaces');
    assert.equal(passwordProblem('long enough now'), null);
  });
});
