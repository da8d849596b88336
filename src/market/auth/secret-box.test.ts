import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { openSecret, sealSecret } from './secret-box.ts';

describe('secret box (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and never shows the plaintext in the sealed text', () => {
    const sealed = sealSecret(key, 'mks_secret-value', 'mk_1');
    assert.ok(sealed.startsWith('v1.'));
    assert.ok(!sealed.includes('mks_secret-value'));
    assert.ok(!sealed.includes(Buffer.from('mks_secret-value').toString('base64url')));
    assert.equal(openSecret(key, sealed, 'mk_1'), 'mks_secret-value');
    assert.notEqual(sealSecret(key, 'mks_secret-value', 'mk_1'), sealed, 'a fresh IV each time');
  });

  it('refuses another key, another context, and any changed byte', () => {
    const sealed = sealSecret(key, 'mks_secret-value', 'mk_1');
    assert.throws(() => openSecret(randomBytes(32), sealed, 'mk_1'));
    assert.throws(() => openSecret(key, sealed, 'mk_2'));
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[2]!, 'base64url');
    ct[0] = ct[0]! ^ 1;
    assert.throws(() => openSecret(key, [parts[0], parts[1], ct.toString('base64url'), parts[3]].join('.'), 'mk_1'));
    assert.throws(() => openSecret(key, 'v2.x.y.z', 'mk_1'));
  });
});
