import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { auditBooks } from '../../src/market/audit/audit-books.ts';
import type { Clock } from '../../src/shared/clock.ts';
import { migrateToLatest, type DatabaseHandle } from '../../src/storage/database.ts';
import type { Database } from '../../src/storage/schema.ts';
import { freshDatabase } from './database.ts';

/** 1 USDC in units. */
export const USDC = 1_000_000n;

/** A clock the test moves by hand. */
export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(startMs = Date.parse('2026-06-01T00:00:00Z')): ManualClock {
  let now = startMs;
  return {
    now: () => now,
    set: (ms) => void (now = ms),
    advance: (ms) => void (now += ms),
  };
}

/** A distinct wallet address per number (lower case). */
export const addr = (n: number): string => '0x' + n.toString(16).padStart(40, '0');

/** A migrated database of this test file's own (PGlite, or a fresh one on DATABASE_URL). */
export async function marketDatabase(): Promise<DatabaseHandle & { url: string | null }> {
  const handle = await freshDatabase();
  await migrateToLatest(handle.db);
  return handle;
}

/** Fails the test with the books' problems unless they balance. */
export async function assertBooksBalanced(db: Kysely<Database>): Promise<void> {
  const report = await auditBooks(db);
  assert.deepEqual(report.problems, [], 'books must balance');
  assert.equal(report.balanced, true);
}

export const onServer = Boolean(process.env.DATABASE_URL);
