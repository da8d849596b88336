import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEmailAddress } from './email-address.ts';

describe('account email addresses', () => {
  it('takes the addresses people have, non-ASCII ones included', () => {
    for (const email of ['name@example.com', "o'brien+tag@mail.example.co.uk", 'first.last@example.com', 'a@b.c', 'ΟΔΥΣΣΕΥΣ@example.com', 'josé@müller.de', 'x_y-z@sub-domain.example', `${'a'.repeat(242)}@example.com`]) {
      assert.equal(isEmailAddress(email), true, email);
    }
  });

  it('refuses what no mail server delivers to, so no account is made that its link can never reach', () => {
    for (const email of [
      'x@y..com', // an empty domain label
      '<script>@x.com', // < and > are not address characters outside quotes
      'a..b@example.com',
      '.a@example.com',
      'a.@example.com',
      'a@-example.com',
      'a@example-.com',
      'a@.example.com',
      'a@example.com.',
      'a@b@example.com',
      'a b@example.com',
      'a@exam ple.com',
      'a,b@example.com',
      '"quoted"@example.com',
      'a@[127.0.0.1]',
      'a@localhost',
      `a@${'b'.repeat(64)}.com`,
      'notanemail',
      '',
    ]) {
      assert.equal(isEmailAddress(email), false, email);
    }
  });
});
