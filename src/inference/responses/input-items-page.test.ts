import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConversationItem } from '../formats/openai-responses/response-items.ts';
import { inputItemsPage, readInputItemsQuery } from './input-items-page.ts';

const items: ConversationItem[] = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ type: 'message', id, role: 'user', content: [{ type: 'input_text', text: id }] }));
const ids = (q: Record<string, string>) => inputItemsPage(items, readInputItemsQuery(q, [])).data.map((i) => i.id);

describe('input items page', () => {
  it('desc by default, 20 at most; asc; limit and after', () => {
    assert.deepEqual(ids({}), ['e', 'd', 'c', 'b', 'a']);
    assert.deepEqual(ids({ order: 'asc' }), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(ids({ limit: '2' }), ['e', 'd']);
    assert.deepEqual(ids({ limit: '2', after: 'd' }), ['c', 'b']);
    assert.deepEqual(ids({ order: 'asc', after: 'd' }), ['e']);
    assert.deepEqual(ids({ order: 'asc', after: 'e' }), []);
    assert.equal(readInputItemsQuery({}, []).limit, 20);
  });

  it('first_id, last_id and has_more', () => {
    const page = (q: Record<string, string>) => {
      const { data: _, ...rest } = inputItemsPage(items, readInputItemsQuery(q, []));
      return rest;
    };
    assert.deepEqual(page({ limit: '2' }), { object: 'list', first_id: 'e', last_id: 'd', has_more: true });
    assert.deepEqual(page({ limit: '2', after: 'c' }), { object: 'list', first_id: 'b', last_id: 'a', has_more: false });
    assert.deepEqual(page({ order: 'asc', after: 'e' }), { object: 'list', first_id: null, last_id: null, has_more: false });
  });

  it('400s name the parameter', () => {
    const refused = (q: Record<string, unknown>, message: string) => assert.throws(() => inputItemsPage(items, readInputItemsQuery(q, [])), { message });
    for (const limit of ['0', '101', '1.5', '-1', 'x', '', '0100']) refused({ limit }, 'limit: must be an integer from 1 to 100');
    refused({ order: 'newest' }, 'order: must be asc or desc');
    refused({ after: 'zz' }, 'after: no input item zz in this response');
    refused({ after: '' }, 'after: must not be empty');
  });

  it('reasoning items show encrypted_content only when include asks', () => {
    const r: ConversationItem[] = [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'sealed' }];
    assert.deepEqual(inputItemsPage(r, readInputItemsQuery({}, [])).data, [{ type: 'reasoning', id: 'rs_1', summary: [] }]);
    assert.deepEqual(inputItemsPage(r, readInputItemsQuery({}, ['reasoning.encrypted_content'])).data, [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'sealed' }]);
  });
});
