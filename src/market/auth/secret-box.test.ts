import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { keyId } from '../../shared/sealing-keys.ts';
import { isSealedWith, openSecret, sealSecret } from './secret-box.ts';

/** A secret as sealed before key ids (`v1.<iv>.<ct>.<tag>`), byte for byte what that code wrote. */
function sealV1(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

describe('secret box (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('opens what it sealed, and never shows the plaintext in the sealed text', () => {
    const sealed = sealSecret(key, 'mks_secret-value', 'mk_1');
    // The version, then the id of the key that sealed it.
    assert.ok(sealed.startsWith(`v2.${keyId(key).toString('base64url')}.`));
    assert.equal(sealed.split('.').length, 5);
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
    const ct = Buffer.from(parts[3]!, 'base64url');
    ct[0] = ct[0]! ^ 1;
    assert.throws(() => openSecret(key, [parts[0], parts[1], parts[2], ct.toString('base64url'), parts[4]].join('.'), 'mk_1'));
    assert.throws(() => openSecret(key, 'v2.x.y.z', 'mk_1'));
    assert.throws(() => openSecret(key, 'v3.x.y.z.w', 'mk_1'));
  });

  it('opens with the current or a previous key, and names a key it does not hold', () => {
    const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const underA = sealSecret(a, 'mks_a', 'mk_1');
    assert.equal(openSecret({ current: b, previous: [a] }, underA, 'mk_1'), 'mks_a');
    assert.equal(openSecret({ current: b, previous: [c, a] }, underA, 'mk_1'), 'mks_a');
    assert.throws(() => openSecret({ current: b, previous: [] }, underA, 'mk_1'), new RegExp(`sealed with key ${keyId(a).toString('base64url')}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`));
    assert.throws(() => openSecret({ current: b, previous: [a] }, underA, 'mk_2'), /does not open with SECRETS_KEY or SECRETS_KEY_PREVIOUS/);
  });

  it('opens a text sealed before key ids with any key it holds', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const old = sealV1(a, 'mks_old', 'mk_1');
    assert.equal(openSecret(a, old, 'mk_1'), 'mks_old');
    assert.equal(openSecret({ current: b, previous: [a] }, old, 'mk_1'), 'mks_old');
    assert.throws(() => openSecret(b, old, 'mk_1'), /does not open with SECRETS_KEY/);
    assert.throws(() => openSecret(a, old, 'mk_2'));
    assert.equal(isSealedWith(a, old), false, 'a re-seal writes the key id on it');
  });

  it('tells which key sealed a text', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const sealed = sealSecret(a, 'mks', 'mk_1');
    assert.equal(isSealedWith(a, sealed), true);
    assert.equal(isSealedWith(b, sealed), false);
  });
});
