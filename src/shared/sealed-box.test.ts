import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createSealedBox, deriveKey } from './sealed-box.ts';
import { keyId } from './sealing-keys.ts';

describe('sealed box', () => {
  const secret = randomBytes(32);
  const box = createSealedBox(secret, 'svc test v1');
  const text = 'EqQBupstreamsignature== and Ünïcode ✓ "quoted"';

  it('round-trips a text in its context; every seal is different (random iv)', () => {
    const a = box.seal(text, 'account:1');
    const b = box.seal(text, 'account:1');
    assert.match(a, /^[A-Za-z0-9_-]+$/);
    assert.notEqual(a, b);
    assert.equal(box.open(a, 'account:1'), text);
    assert.equal(box.open(b, 'account:1'), text);
    assert.equal(box.open(box.seal('', 'x'), 'x'), '');
  });

  it('does not show the plaintext', () => {
    const token = box.seal(text, 'account:1');
    assert.ok(!token.includes('EqQB'));
    assert.ok(!Buffer.from(token, 'base64url').toString('latin1').includes('EqQB'));
  });

  it('refuses a token changed anywhere: every byte, and every character', () => {
    const token = box.seal(text, 'account:1');
    const bytes = Buffer.from(token, 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      const changed = Buffer.from(bytes);
      changed[i]! ^= 0x01;
      assert.equal(box.open(changed.toString('base64url'), 'account:1'), null, `byte ${i}`);
    }
    for (let i = 0; i < token.length; i++) {
      const c = token[i] === 'A' ? 'B' : 'A';
      assert.equal(box.open(token.slice(0, i) + c + token.slice(i + 1), 'account:1'), null, `character ${i}`);
    }
    assert.equal(box.open(token.slice(0, -1), 'account:1'), null, 'cut short');
    assert.equal(box.open(`${token}A`, 'account:1'), null, 'longer');
  });

  it('refuses a token of another context, another label or another key', () => {
    const token = box.seal(text, 'account:1');
    assert.equal(box.open(token, 'account:2'), null);
    assert.equal(createSealedBox(secret, 'svc other v1').open(token, 'account:1'), null);
    assert.equal(createSealedBox(randomBytes(32), 'svc test v1').open(token, 'account:1'), null);
    assert.equal(createSealedBox(Buffer.from(secret), 'svc test v1').open(token, 'account:1'), text, 'the same key opens it (another instance)');
  });

  it('refuses what is not a token', () => {
    for (const bad of ['', 'gAAAAABo-not-ours', 'a b', '!!!!', 'A'.repeat(40), Buffer.alloc(40).toString('base64url'), 'eyJ2IjoxfQ']) {
      assert.equal(box.open(bad, 'account:1'), null, bad);
    }
    assert.equal(box.open(7 as never, 'account:1'), null);
  });

  it('derives a distinct 32-byte key per label, never the secret itself', () => {
    const a = deriveKey(secret, 'a');
    assert.equal(a.length, 32);
    assert.ok(!a.equals(secret));
    assert.ok(!a.equals(deriveKey(secret, 'b')));
    assert.ok(a.equals(deriveKey(Buffer.from(secret), 'a')));
  });
});

describe('sealed box across a key rotation', () => {
  const text = 'EqQBsignature';
  const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)];

  /** A token as sealed before key ids (`1 | iv | ct | tag`), byte for byte what that code wrote. */
  function sealV1(secret: Buffer, plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', deriveKey(secret, 'svc test v1'), iv, { authTagLength: 16 });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(1), iv, ct, cipher.getAuthTag()]).toString('base64url');
  }

  it('names the sealing sub-key in the token', () => {
    const bytes = Buffer.from(createSealedBox(a, 'svc test v1').seal(text, 'account:1'), 'base64url');
    assert.equal(bytes[0], 2);
    assert.ok(bytes.subarray(1, 5).equals(keyId(deriveKey(a, 'svc test v1'))));
  });

  it('opens a token of a previous key, and seals with the current one only', () => {
    const fromA = createSealedBox(a, 'svc test v1').seal(text, 'account:1');
    const rotated = createSealedBox(b, 'svc test v1', [c, a]);
    assert.equal(rotated.open(fromA, 'account:1'), text);
    assert.equal(rotated.open(fromA, 'account:2'), null, 'still bound to its context');
    assert.equal(createSealedBox(b, 'svc test v1').open(fromA, 'account:1'), null, 'a key no longer held: like a tampered token');
    const fromB = rotated.seal(text, 'account:1');
    assert.equal(createSealedBox(b, 'svc test v1').open(fromB, 'account:1'), text);
    assert.equal(createSealedBox(a, 'svc test v1').open(fromB, 'account:1'), null);
    assert.equal(createSealedBox(a, 'svc test v1', [b]).open(fromB, 'account:1'), text, 'an instance not yet swapped opens it (rolling restart)');
  });

  it('opens a token sealed before key ids with any key it holds, and nothing changed in it', () => {
    const old = sealV1(a, text, 'account:1');
    assert.equal(createSealedBox(a, 'svc test v1').open(old, 'account:1'), text);
    assert.equal(createSealedBox(b, 'svc test v1', [a]).open(old, 'account:1'), text);
    assert.equal(createSealedBox(b, 'svc test v1').open(old, 'account:1'), null);
    const bytes = Buffer.from(old, 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      const changed = Buffer.from(bytes);
      changed[i]! ^= 0x01;
      assert.equal(createSealedBox(b, 'svc test v1', [a]).open(changed.toString('base64url'), 'account:1'), null, `byte ${i}`);
    }
  });
});
