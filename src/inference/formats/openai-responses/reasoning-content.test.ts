import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReasoningBlock } from '../../canonical/chat.ts';
import { decodeReasoningContent, encodeReasoningContent } from './reasoning-content.ts';

describe('reasoning item content', () => {
  const blocks: ReasoningBlock[] = [
    { type: 'thinking', thinking: 'First, the city. Ünïcode ✓', signature: 'EqQBupstreamsignature==' },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
    { type: 'thinking', thinking: 'Then the weather.', signature: 'EqQBsecond' },
  ];

  it('round-trips signed thinking and redacted blocks, in order, exactly', () => {
    const content = encodeReasoningContent(blocks)!;
    assert.match(content, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeReasoningContent(content), blocks);
  });

  it("does not show the upstream's recognisable forms", () => {
    const content = encodeReasoningContent(blocks)!;
    for (const s of ['EqQB', 'thinking', 'redacted', 'signature', 'EmwKAhgB']) assert.ok(!content.includes(s), s);
  });

  it('leaves out thinking without a signature (reasoning of an upstream that signs nothing); none left is null', () => {
    assert.equal(encodeReasoningContent([{ type: 'thinking', thinking: 'plain', signature: '' }, { type: 'thinking', thinking: 'plain too' }]), null);
    assert.deepEqual(decodeReasoningContent(encodeReasoningContent([{ type: 'thinking', thinking: 'x' }, blocks[1]!])!), [blocks[1]]);
  });

  it('refuses what it did not issue', () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of ['', 'gAAAAABo-not-ours', 'a b', b64({ v: 2, b: [{ r: 'x' }] }), b64({ v: 1, b: [] }), b64({ v: 1, b: [{ t: 'x' }] }), b64({ v: 1, b: [{ t: 'x', s: '' }] }), b64({ v: 1, b: [{ r: 1 }] }), b64([1])]) {
      assert.equal(decodeReasoningContent(bad), null, bad);
    }
  });
});
