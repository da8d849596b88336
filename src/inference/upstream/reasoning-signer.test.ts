import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalMessage } from '../canonical/chat.ts';
import type { ProviderStreamEvent, ProviderStreamParser } from '../providers/provider-stream.ts';
import { markResult, markSigned, markingParser, messagesForSigner, readSigned } from './reasoning-signer.ts';

const assistant = (reasoning: NonNullable<Extract<CanonicalMessage, { role: 'assistant' }>['reasoning']>): CanonicalMessage => ({ role: 'assistant', content: 'ok', toolCalls: [], reasoning });

describe('reasoning signer marks', () => {
  it('round-trips a marked value and reads an unmarked one as of no signer; an empty value stays empty', () => {
    assert.deepEqual(readSigned(markSigned('EqQBsig', 'claude-opus-4-1')), { signer: 'claude-opus-4-1', value: 'EqQBsig' });
    assert.deepEqual(readSigned('EqQBsig'), { signer: null, value: 'EqQBsig' });
    assert.equal(markSigned('', 'claude-opus-4-1'), '');
  });

  it('marks a whole answer\'s signed and redacted blocks, not an unsigned one', () => {
    const marked = markResult({ reasoningBlocks: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'thinking', thinking: 'u', signature: '' }, { type: 'redacted_thinking', data: 'd' }] }, 'm1');
    assert.deepEqual(marked.reasoningBlocks, [
      { type: 'thinking', thinking: 't', signature: markSigned('s', 'm1') },
      { type: 'thinking', thinking: 'u', signature: '' },
      { type: 'redacted_thinking', data: markSigned('d', 'm1') },
    ]);
    const none = { reasoningBlocks: undefined };
    assert.equal(markResult(none, 'm1'), none);
  });

  it('marks the signatures and redacted data a stream parser gives, and only those, in push and end', () => {
    const inner: ProviderStreamParser = {
      push(_e, out) {
        out.push({ type: 'reasoning-delta', text: 'think' }, { type: 'reasoning-delta', text: '', signature: 's' }, { type: 'text-delta', text: 'hi' });
        return false;
      },
      end(out) {
        out.push({ type: 'reasoning-delta', text: '', redacted: 'd' });
      },
    };
    const parser = markingParser(inner, 'm1');
    const out: ProviderStreamEvent[] = [{ type: 'reasoning-delta', text: '', signature: 'before' }];
    parser.push({ data: '{}' }, out);
    parser.end(out);
    assert.deepEqual(out, [
      { type: 'reasoning-delta', text: '', signature: 'before' },
      { type: 'reasoning-delta', text: 'think' },
      { type: 'reasoning-delta', text: '', signature: markSigned('s', 'm1') },
      { type: 'text-delta', text: 'hi' },
      { type: 'reasoning-delta', text: '', redacted: markSigned('d', 'm1') },
    ]);
    assert.equal(parser.textTemplate, undefined);
  });

  it('gives a model its own blocks unmarked and the unmarked ones, leaves out another model\'s, and a turn left with none has no reasoning', () => {
    const user: CanonicalMessage = { role: 'user', content: [{ type: 'text', text: 'q' }] };
    const messages: CanonicalMessage[] = [
      user,
      assistant([{ type: 'thinking', thinking: 'a', signature: markSigned('sa', 'opus') }, { type: 'redacted_thinking', data: markSigned('ra', 'sonnet') }]),
      user,
      assistant([{ type: 'thinking', thinking: 'b', signature: markSigned('sb', 'sonnet') }]),
      user,
      assistant([{ type: 'thinking', thinking: 'c', signature: 'old' }]),
    ];
    const sent = messagesForSigner(messages, 'opus');
    assert.deepEqual(sent[1], assistant([{ type: 'thinking', thinking: 'a', signature: 'sa' }]));
    assert.deepEqual(sent[3], { role: 'assistant', content: 'ok', toolCalls: [] });
    assert.deepEqual(sent[5], messages[5]);
    assert.equal(sent[0], user);
    const plain = [user];
    assert.equal(messagesForSigner(plain, 'opus'), plain);
  });
});
