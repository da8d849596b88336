import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pruneIdempotencyKeys } from '../src/market/auth/idempotency.ts';
import { createPostgresReplayCache, pruneUsedSignatures } from '../src/market/auth/replay-cache.postgres.ts';
import { migrateToLatest } from '../src/storage/database.ts';
import { freshDatabase } from './helpers/database.ts';

/** The upkeep jobs src/app.ts schedules: expired idempotency keys and used signatures go, live ones stay. */
describe('market upkeep', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  before(async () => {
    database = await freshDatabase();
    await migrateToLatest(database.db);
  });
  after(async () => database?.close());

  it('prunes idempotency keys created before the cut-off and keeps the newer ones', async () => {
    const at = (iso: string) => new Date(iso);
    const row = (key: string, created: string) => ({ principal: 'wallet:0xabc', route: 'POST /api/pool/trade', key, request_sha256: 'x'.repeat(64), created_at: at(created) });
    await database.db.insertInto('idempotency_keys').values([row('old-1', '2026-11-24T00:00:00Z'), row('old-2', '2026-11-24T23:59:59Z'), row('new', '2026-11-25T00:00:01Z')]).execute();
    assert.equal(await pruneIdempotencyKeys(database.db, at('2026-11-25T00:00:00Z')), 2);
    const left = await database.db.selectFrom('idempotency_keys').select('key').execute();
    assert.deepEqual(left.map((r) => r.key), ['new']);
  });

  it('prunes used signatures past their window; a live one is still refused as used', async () => {
    let now = Date.parse('2026-11-26T12:00:00Z');
    const cache = createPostgresReplayCache(database.db, { now: () => now });
    assert.equal(await cache.claim('sig-short', 1_000), true);
    assert.equal(await cache.claim('sig-long', 600_000), true);
    now += 60_000;
    assert.equal(await pruneUsedSignatures(database.db, new Date(now)), 1);
    assert.equal(await cache.claim('sig-long', 600_000), false, 'still inside its window: used');
    assert.equal(await cache.claim('sig-short', 1_000), true, 'its record was pruned with its window');
  });
});
