import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { OutputItem } from '../src/inference/formats/openai-responses/response-items.ts';
import { createResponseStore } from '../src/inference/responses/response-store.ts';
import { loadChain, loadResponse, saveResponses, type StoredResponse } from '../src/inference/responses/responses.repository.ts';
import { migrateToLatest, type DatabaseHandle, type Db } from '../src/storage/database.ts';
import { freshDatabase } from './helpers/database.ts';

async function account(db: Db): Promise<number> {
  const a = await sql<{ id: number }>`
    insert into accounts (email, email_verified) values (${`r${Math.random().toString(36).slice(2)}@example.com`}, true) returning id`.execute(db);
  return a.rows[0]!.id;
}

let n = 0;
/** A stored response as serve-response makes them: output items with ids, one without and one with an empty id (not kept by id), nested JSON. */
function stored(accountId: number, opts: { previous?: string | null; body?: Record<string, unknown>; id?: string } = {}): StoredResponse {
  const k = ++n;
  const id = opts.id ?? `resp_store_test_${process.pid}_${k}`;
  const output: OutputItem[] = [
    { type: 'reasoning', id: `rs_${id}`, summary: [{ type: 'summary_text', text: 'thinking "quoted" \\ back\nslash' }] },
    { type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `answer ${k} ünïcödé 🚀`, annotations: [] }] },
    { type: 'function_call', id: `fc_${id}`, status: 'completed', call_id: `call_${k}`, name: 'f', arguments: '{"a":[1,2.5,null]}' },
    { type: 'function_call', call_id: `call_${k}b`, name: 'g', arguments: '{}' },
    { type: 'function_call', id: '', call_id: `call_${k}c`, name: 'h', arguments: '{}' },
  ];
  const now = new Date(Date.UTC(2030, 0, 1, 12, 0, 0, k));
  return {
    id,
    accountId,
    previousResponseId: opts.previous ?? null,
    model: 'svc-fast',
    inputItems: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: `question ${k}` }] }],
    outputItems: output,
    body: opts.body ?? { id, object: 'response', output, usage: { input_tokens: k, output_tokens: 2 }, metadata: {}, temperature: 0.7, skipped: undefined },
    createdAt: now,
    expiresAt: new Date(now.getTime() + 86_400_000),
  };
}

/** The row as the service stored it before batching: a transaction of two inserts, JSON columns from JSON.stringify. */
async function saveTheOldWay(db: Db, r: StoredResponse): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .insertInto('responses')
      .values({
        id: r.id,
        account_id: r.accountId,
        previous_response_id: r.previousResponseId,
        model: r.model,
        input_items: JSON.stringify(r.inputItems),
        output_items: JSON.stringify(r.outputItems),
        body: JSON.stringify(r.body),
        created_at: r.createdAt,
        expires_at: r.expiresAt,
      })
      .execute();
    const items = r.outputItems.filter((i) => typeof i.id === 'string' && i.id !== '');
    await tx
      .insertInto('response_items')
      .values(items.map((i) => ({ item_id: `old_${i.id!}`, response_id: r.id, account_id: r.accountId, item: JSON.stringify(i) })))
      .execute();
  });
}

describe('stored responses, written in batches', () => {
  let database: DatabaseHandle;
  let db: Db;
  let acct: number;
  const now = new Date(Date.UTC(2030, 0, 1, 13));
  before(async () => {
    database = await freshDatabase();
    db = database.db;
    await migrateToLatest(db);
    acct = await account(db);
  });
  after(() => database.close());

  it('one statement stores several responses and their items, JSON columns as the old two inserts stored them', async () => {
    const batch = [stored(acct), stored(acct), stored(acct)];
    await saveResponses(db, batch);
    for (const r of batch) {
      const got = await loadResponse(db, acct, r.id, now);
      assert.ok(got, r.id);
      assert.deepEqual(got.body, JSON.parse(JSON.stringify(r.body)));
      assert.deepEqual(got.outputItems, JSON.parse(JSON.stringify(r.outputItems)));
      assert.deepEqual(got.inputItems, r.inputItems);
      assert.equal(got.createdAt.getTime(), r.createdAt.getTime());
      assert.equal(got.expiresAt.getTime(), r.expiresAt.getTime());
      const items = await db.selectFrom('response_items').select(['item_id', 'account_id']).where('response_id', '=', r.id).orderBy('item_id').execute();
      assert.deepEqual(items, [`fc_${r.id}`, `msg_${r.id}`, `rs_${r.id}`].map((item_id) => ({ item_id, account_id: acct })));
    }
    // The same response written the old way: every JSON column is equal, as jsonb and as text.
    const r = batch[1]!;
    const twin = { ...r, id: `${r.id}_old` };
    await saveTheOldWay(db, twin);
    const same = await sql<{ same: boolean }>`
      select a.input_items::text = b.input_items::text and a.output_items::text = b.output_items::text and a.body::text = b.body::text
             and a.created_at = b.created_at and a.expires_at = b.expires_at and a.previous_response_id is not distinct from b.previous_response_id as same
        from responses a, responses b where a.id = ${r.id} and b.id = ${twin.id}`.execute(db);
    assert.equal(same.rows[0]!.same, true);
    const items = await sql<{ same: boolean }>`
      select bool_and(a.item::text = b.item::text) and count(*) = 3 as same
        from response_items a join response_items b on b.item_id = 'old_' || a.item_id
       where a.response_id = ${r.id} and b.response_id = ${twin.id}`.execute(db);
    assert.equal(items.rows[0]!.same, true);
  });

  it('a batch chains: a response and the one continuing it may be written in the same batch', async () => {
    const first = stored(acct);
    const second = stored(acct, { previous: first.id });
    await saveResponses(db, [first, second]);
    const chain = await loadChain(db, acct, second.id, now);
    assert.equal(chain.kind, 'found');
    assert.equal(chain.kind === 'found' && chain.items.length, 2 * (1 + 5));
  });

  it('a failing row fails its whole statement, and the store then writes the others one by one: only the bad one fails', async () => {
    const existing = stored(acct);
    await saveResponses(db, [existing]);
    const duplicate = stored(acct, { id: existing.id });
    // No such account: the row breaks its foreign key.
    const unstorable = stored(2_000_000_000);
    const good = [stored(acct), stored(acct), stored(acct)];
    await assert.rejects(saveResponses(db, [good[0]!, unstorable]));
    assert.equal(await loadResponse(db, acct, good[0]!.id, now), null, 'a failed statement wrote nothing');

    const store = createResponseStore(db);
    const results = await Promise.allSettled([store(good[0]!), store(duplicate), store(good[1]!), store(unstorable), store(good[2]!)]);
    assert.deepEqual(results.map((x) => x.status), ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    for (const r of good) assert.ok(await loadResponse(db, acct, r.id, now), r.id);
    assert.equal(await loadResponse(db, acct, unstorable.id, now), null);
    const kept = await loadResponse(db, acct, existing.id, now);
    assert.deepEqual(kept?.body, JSON.parse(JSON.stringify(existing.body)), 'the duplicate did not overwrite the response stored first');
    await store.idle();
  });

  it("stores text jsonb cannot hold (NUL, a lone surrogate) as U+FFFD, with the rest of the batch", async () => {
    const odd = stored(acct, { body: { text: 'nul \u0000 inside', cut: 'half \uD83D', pair: '\uD83D\uDE00' } });
    const plain = stored(acct);
    await saveResponses(db, [odd, plain]);
    assert.deepEqual((await loadResponse(db, acct, odd.id, now))?.body, { text: 'nul \uFFFD inside', cut: 'half \uFFFD', pair: '\uD83D\uDE00' });
    assert.ok(await loadResponse(db, acct, plain.id, now));
  });

  it('idle() resolves once every queued response is committed (what closing the app waits for)', async () => {
    const store = createResponseStore(db);
    const batch = [stored(acct), stored(acct), stored(acct), stored(acct)];
    const writes = batch.map((r) => store(r));
    await store.idle();
    for (const r of batch) assert.ok(await loadResponse(db, acct, r.id, now), r.id);
    await Promise.all(writes);
  });
});
