import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { ABANDONED_RUNNING_MS } from '../src/inference/responses/prune-responses.job.ts';
import { pruneAbandonedRunning } from '../src/inference/responses/responses.repository.ts';
import { startWithSdks, type SdkSetup } from './helpers/gateway.ts';

describe('stored responses left in progress by a stopped instance', () => {
  let s: SdkSetup;
  before(async () => {
    s = await startWithSdks();
  });
  after(() => s.g.close());

  /** A stored response whose row reads as a stream that started `ageMs` ago and never ended (its instance stopped). */
  const leftRunning = async (ageMs: number): Promise<string> => {
    const r = await s.openai.responses.create({ model: 'svc-fast', input: 'hello' });
    await sql`update responses set body = jsonb_set(body, '{status}', '"in_progress"'), created_at = now() - make_interval(secs => ${ageMs / 1000})
               where id = ${r.id}`.execute(s.g.t.deps.db);
    return r.id;
  };

  it('blocks its conversation until the sweep removes it; a younger running row and ended ones stay', async () => {
    const stale = await leftRunning(ABANDONED_RUNNING_MS + 60_000);
    const young = await leftRunning(60_000);
    const ended = await s.openai.responses.create({ model: 'svc-fast', input: 'done long ago' });
    await sql`update responses set created_at = now() - interval '7 days' where id = ${ended.id}`.execute(s.g.t.deps.db);

    await assert.rejects(
      s.openai.responses.create({ model: 'svc-fast', input: 'next', previous_response_id: stale }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes(`response ${stale} is still in progress`),
    );
    const removed = await pruneAbandonedRunning(s.g.t.deps.db, new Date(Date.now() - ABANDONED_RUNNING_MS));
    assert.equal(removed, 1);
    // As a stream its client left: never completed, so not kept.
    await assert.rejects(s.openai.responses.retrieve(stale), OpenAI.NotFoundError);
    await assert.rejects(
      s.openai.responses.create({ model: 'svc-fast', input: 'next', previous_response_id: stale }),
      (e: unknown) => e instanceof OpenAI.NotFoundError && e.message.includes('response not found'),
    );
    assert.equal((await s.openai.responses.retrieve(young)).status, 'in_progress');
    assert.equal((await s.openai.responses.retrieve(ended.id)).status, 'completed');
    const next = await s.openai.responses.create({ model: 'svc-fast', input: 'and again', previous_response_id: ended.id });
    assert.equal(next.status, 'completed');
  });
});
