import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../shared/errors.ts';
import { checkCacheMarkers, countCacheMarkers, withRoomForMarkers } from './cache-markers.ts';

const m = { type: 'ephemeral' };
const text = (t: string, marked = true) => ({ type: 'text', text: t, ...(marked ? { cache_control: m } : {}) });

describe('cache_control markers', () => {
  it('are counted on tools, system blocks, content blocks and inside tool results', () => {
    const body = {
      tools: [{ name: 't', cache_control: m }],
      system: [text('s')],
      messages: [
        { role: 'user', content: [text('a'), text('b', false)] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', cache_control: m, content: [text('r')] }] },
        { role: 'user', content: 'plain' },
      ],
    };
    assert.equal(countCacheMarkers(body), 5);
    assert.equal(countCacheMarkers({ ...body, tools: [{ name: 't', cache_control: null }] }), 4);
    assert.throws(() => checkCacheMarkers(body), (e: unknown) => e instanceof HttpError && e.status === 400 && e.message === 'A maximum of 4 blocks with cache_control may be provided. Found 5.');
    checkCacheMarkers({ ...body, tools: [] });
  });

  it('a thread keeps the latest carried markers the turn leaves room for, without changing the stored one', () => {
    const history = {
      tools: [{ name: 't', cache_control: m }],
      system: [text('s')],
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [text('r')] }, text('a')] }],
    };
    const frozen = JSON.stringify(history);
    assert.equal(countCacheMarkers(history), 4);
    assert.equal(withRoomForMarkers(history, 0), history);
    const one = withRoomForMarkers(history, 1);
    assert.equal(countCacheMarkers(one), 3);
    assert.equal(one.tools[0]!.cache_control, undefined);
    const two = withRoomForMarkers(history, 2);
    assert.equal(countCacheMarkers(two), 2);
    assert.equal(two.tools[0]!.cache_control, undefined);
    assert.equal(two.system[0]!.cache_control, undefined);
    const three = withRoomForMarkers(history, 3);
    assert.deepEqual(three.messages, [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [text('r', false)] }, text('a')] }]);
    assert.equal(countCacheMarkers(withRoomForMarkers(history, 4)), 0);
    assert.equal(countCacheMarkers(withRoomForMarkers(history, 9)), 0);
    assert.equal(JSON.stringify(history), frozen);
    const noTools = { system: 'plain', tools: undefined, messages: [{ role: 'user', content: [text('a'), text('b')] }] };
    assert.deepEqual(withRoomForMarkers(noTools, 3).messages, [{ role: 'user', content: [text('a', false), text('b')] }]);
  });
});
