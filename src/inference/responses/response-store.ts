import { createBatchWriter, type BatchWriter } from '../../storage/batch-writes.ts';
import type { Db } from '../../storage/database.ts';
import { saveResponses, type StoredResponse } from './responses.repository.ts';

/**
 * Writes stored responses in group-committed batches: the responses finished while the previous
 * batch was being written (or in the same turn of the event loop) go in one statement
 * (saveResponses). Each caller's promise still resolves only once its own response is committed,
 * so an answer sent after it can be retrieved and continued at once, from any instance; when a
 * batch fails, its responses are written one by one and only the bad one fails. No delay: the
 * answer waits for the write. Shutdown waits for `idle()`.
 */
export type ResponseStore = BatchWriter<StoredResponse, void>;

/** Largest batch: bodies and conversations can be large; the statement stays bounded. */
const MAX_BATCH = 64;

export function createResponseStore(db: Db): ResponseStore {
  return createBatchWriter<StoredResponse, void>({
    single: (r) => saveResponses(db, [r]),
    many: async (rs) => {
      await saveResponses(db, rs);
      return rs.map(() => undefined);
    },
    maxBatch: MAX_BATCH,
  });
}
