import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ReasoningBlock } from '../canonical/chat.ts';
import { createReasoningSealers } from '../reasoning-sealer.ts';
import { decodeReasoningContent, encodeReasoningContent } from './reasoning-content.ts';

describe('reasoning tokens', () => {
  const secret = randomBytes(32);
  const sealers = createReasoningSealers(secret);
  const sealer = sealers(1);
  const blocks: ReasoningBlock[] = [
    { type: 'thinking', thinking: 'First, the city. Ünïcode ✓', signature: 'EqQBupstreamsignature==' },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
    { type: 'thinking', thinking: 'Then the weather.', signature: 'EqQBsecond' },
  ];

  it('round-trips signed thinking and redacted blocks, in order, exactly', () => {
    const content = encodeReasoningContent(blocks, sealer)!;
    assert.match(content, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeReasoningContent(content, sealer), blocks);
  });

  it("does not show the upstream's signature, data or forms, not even base64-decoded", () => {
    const content = encodeReasoningContent(blocks, sealer)!;
    const decoded = Buffer.from(content, 'base64url').toString('latin1');
    for (const s of ['EqQB', 'thinking', 'redacted', 'signature', 'EmwKAhgB', 'First, the city']) {
      assert.ok(!content.includes(s), s);
      assert.ok(!decoded.includes(s), `${s} (decoded)`);
    }
  });

  it('leaves out thinking without a signature (reasoning of an upstream that signs nothing); none left is null', () => {
    assert.equal(encodeReasoningContent([{ type: 'thinking', thinking: 'plain', signature: '' }, { type: 'thinking', thinking: 'plain too' }], sealer), null);
    assert.deepEqual(decodeReasoningContent(encodeReasoningContent([{ type: 'thinking', thinking: 'x' }, blocks[1]!], sealer)!, sealer), [blocks[1]]);
  });

  it('refuses a tampered token', () => {
    const content = encodeReasoningContent(blocks, sealer)!;
    const bytes = Buffer.from(content, 'base64url');
    for (const i of [0, 5, 20, bytes.length - 20, bytes.length - 1]) {
      const changed = Buffer.from(bytes);
      changed[i] = changed[i]! ^ 0x80;
      assert.equal(decodeReasoningContent(changed.toString('base64url'), sealer), null, `byte ${i}`);
    }
  });

  it("refuses another account's token, and one sealed under another key; another instance with the same secret opens it", () => {
    const content = encodeReasoningContent(blocks, sealer)!;
    assert.equal(decodeReasoningContent(content, sealers(2)), null, 'another account');
    assert.equal(decodeReasoningContent(content, createReasoningSealers(randomBytes(32))(1)), null, 'another key');
    assert.deepEqual(decodeReasoningContent(content, createReasoningSealers(Buffer.from(secret))(1)), blocks, 'another instance');
  });

  it('refuses what it did not issue: the unsealed form of before, and sealed documents it would not write', () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of ['', 'gAAAAABo-not-ours', 'a b', b64({ v: 1, b: [{ t: 'x', s: 'y' }] })]) {
      assert.equal(decodeReasoningContent(bad, sealer), null, bad);
    }
    for (const doc of [{ v: 2, b: [{ r: 'x' }] }, { v: 1, b: [] }, { v: 1, b: [{ t: 'x' }] }, { v: 1, b: [{ t: 'x', s: '' }] }, { v: 1, b: [{ r: 1 }] }, [1], 'text']) {
      assert.equal(decodeReasoningContent(sealer.seal(JSON.stringify(doc)), sealer), null, JSON.stringify(doc));
    }
    assert.equal(decodeReasoningContent(sealer.seal('not json'), sealer), null);
  });
});
