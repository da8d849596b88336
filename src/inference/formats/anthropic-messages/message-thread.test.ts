import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { answerAsMessage, continuedBody, ownMessages, readThreadParam } from './message-thread.ts';

const refused = (f: () => unknown, message: string) =>
  assert.throws(f, (e: unknown) => e instanceof HttpError && e.status === 400 && e.message.startsWith(message));

describe('message threads', () => {
  it('read the thread field', () => {
    assert.equal(readThreadParam({ model: 'm' }), null);
    assert.equal(readThreadParam({ thread: null }), null);
    assert.deepEqual(readThreadParam({ thread: { type: 'create' } }), { type: 'create' });
    assert.deepEqual(readThreadParam({ thread: { type: 'continue', previous_message_id: 'msg_a' } }), { type: 'continue', previousMessageId: 'msg_a' });
    refused(() => readThreadParam({ thread: [] }), 'thread: must be an object');
    refused(() => readThreadParam({ thread: {} }), 'thread.type: is required');
    refused(() => readThreadParam({ thread: { type: 'continue', previous_message_id: '' } }), 'thread.previous_message_id: must not be empty');
  });

  it('make a continuing turn whole: the thread system, tools and messages, then its own', () => {
    const body = { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'b' }], thread: { type: 'continue', previous_message_id: 'msg_a' } };
    const history = { system: 'S', tools: [{ name: 't' }], messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [] }] };
    assert.deepEqual(continuedBody(body, history), {
      model: 'm',
      max_tokens: 5,
      system: 'S',
      tools: [{ name: 't' }],
      messages: [...history.messages, { role: 'user', content: 'b' }],
    });
    assert.deepEqual(continuedBody({ model: 'm' }, { system: undefined, tools: undefined, messages: [] }), { model: 'm', messages: [] });
    refused(() => continuedBody({ system: 'x' }, history), 'system: cannot be set');
    refused(() => continuedBody({ tools: [] }, history), 'tools: cannot be set');
    refused(() => continuedBody({ messages: 'no' }, history), 'messages: must be an array');
  });

  it('keep a turn as its own messages and the answer as an assistant message', () => {
    assert.deepEqual(ownMessages({ messages: [{ role: 'user', content: 'x' }] }), [{ role: 'user', content: 'x' }]);
    assert.deepEqual(ownMessages({}), []);
    assert.deepEqual(answerAsMessage({ id: 'msg_a', content: [{ type: 'text', text: 'hi' }] }), { role: 'assistant', content: [{ type: 'text', text: 'hi' }] });
  });
});
