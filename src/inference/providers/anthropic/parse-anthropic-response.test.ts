import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureJson } from '../../../../test/fixtures/load-fixture.ts';
import { ProviderFailure } from '../provider-failure.ts';
import { parseAnthropicResponse } from './parse-anthropic-response.ts';

const ids = () => {
  let n = 0;
  return () => `call_svc${++n}`;
};

describe('parseAnthropicResponse', () => {
  it('reads text and usage with cache reads as cached input', () => {
    assert.deepEqual(parseAnthropicResponse(fixtureJson('anthropic-messages-text.json'), null, ids()), {
      text: 'Paris is the capital of France.',
      reasoning: '',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 2048, cachedInputTokens: 1920, outputTokens: 8 },
    });
  });

  it('reads text and several tool_use blocks as tool calls with fresh ids', () => {
    const r = parseAnthropicResponse(fixtureJson('anthropic-messages-tool-use.json'), null, ids());
    assert.equal(r.text, "I'll check both.");
    assert.equal(r.finishReason, 'tool_calls');
    assert.deepEqual(r.toolCalls, [
      { id: 'call_svc1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_svc2', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
    ]);
  });

  it('turns the structured-output tool into a JSON text answer that stopped', () => {
    const r = parseAnthropicResponse(fixtureJson('anthropic-messages-json-tool.json'), 'json_response', ids());
    assert.deepEqual(JSON.parse(r.text), { city: 'Paris', country: 'France' });
    assert.deepEqual(r.toolCalls, []);
    assert.equal(r.finishReason, 'stop');
  });

  it('keeps the text blocks with their citations when the upstream cited, and only then', () => {
    const citation = { type: 'page_location', cited_text: 'x', document_index: 0, start_page_number: 1, end_page_number: 2 };
    const cited = parseAnthropicResponse(
      { content: [{ type: 'text', text: 'A ', citations: null }, { type: 'text', text: 'b', citations: [citation] }], stop_reason: 'end_turn' },
      null,
    );
    assert.equal(cited.text, 'A b');
    assert.deepEqual(cited.textBlocks, [{ text: 'A ' }, { text: 'b', citations: [citation] }]);
    const plain = parseAnthropicResponse({ content: [{ type: 'text', text: 'A ', citations: null }, { type: 'text', text: 'b' }], stop_reason: 'end_turn' }, null);
    assert.equal(plain.textBlocks, undefined);
  });

  describe('cut at stop sequences the upstream was not sent', () => {
    const usage = { input_tokens: 3, output_tokens: 7 };
    const call = { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} };

    it('text and its blocks up to the first sequence, nothing after it, finish stop, the reported usage kept', () => {
      const citation = { cited_text: 'c' };
      const r = parseAnthropicResponse(
        { content: [{ type: 'text', text: 'Cited.', citations: [citation] }, { type: 'text', text: ' Then\nmore' }, call], stop_reason: 'tool_use', usage },
        null,
        ids(),
        ['\n', 'END'],
      );
      assert.deepEqual(r, {
        text: 'Cited. Then',
        textBlocks: [{ text: 'Cited.', citations: [citation] }, { text: ' Then' }],
        reasoning: '',
        toolCalls: [],
        finishReason: 'stop',
        stopSequence: '\n',
        usage: { inputTokens: 3, cachedInputTokens: 0, outputTokens: 7 },
      });
    });

    it('matches within text written without other content between, as a stream is cut: the calls before the match are kept', () => {
      const r = parseAnthropicResponse(
        { content: [{ type: 'text', text: 'Look.\n' }, call, { type: 'text', text: '\nFound.\n\nMore' }], stop_reason: 'end_turn', usage },
        null,
        ids(),
        ['\n\n'],
      );
      assert.deepEqual([r.text, r.toolCalls.map((c) => c.name), r.finishReason, r.stopSequence], ['Look.\n\nFound.', ['f'], 'stop', '\n\n']);
    });

    it('adjacent text blocks are one text; an answer without a match is the answer as it came', () => {
      const joined = parseAnthropicResponse({ content: [{ type: 'text', text: 'a\n' }, { type: 'text', text: '\nb' }], stop_reason: 'end_turn' }, null, ids(), ['\n\n']);
      assert.deepEqual([joined.text, joined.finishReason], ['a', 'stop']);
      const body = { content: [{ type: 'text', text: 'a\n' }, call], stop_reason: 'tool_use', usage };
      assert.deepEqual(parseAnthropicResponse(body, null, ids(), ['\n\n']), parseAnthropicResponse(body, null, ids()));
    });
  });

  it('fails on an error body or a body without content', () => {
    assert.throws(
      () => parseAnthropicResponse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, null),
      (e) => e instanceof ProviderFailure && e.status === 529,
    );
    assert.throws(() => parseAnthropicResponse({ type: 'message' }, null), (e) => e instanceof ProviderFailure && e.status === 502);
  });
});
