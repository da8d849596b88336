/**
 * The embedded database's thread (see pglite-thread.ts): PGlite runs here, so PostgreSQL's work
 * (every statement's parsing, planning and execution in WebAssembly) uses a core of its own
 * instead of the event loop that answers requests. Messages in: `query`, `close`. Messages out:
 * `ready` or `failed` once, then `result`/`error` per query (in order) and `notify` for every
 * notification, posted before the result of the statement that delivered it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { createPgliteRunner } from './pglite-prepared.ts';
import { serializeError, type ToThread, type FromThread, type ThreadOptions } from './pglite-thread-messages.ts';

const port = parentPort!;
const post = (m: FromThread) => port.postMessage(m);
const opts = workerData as ThreadOptions;
const INT8_OID = 20;

let pg: PGlite;
try {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')]);
  pg = await PGlite.create(opts.dir ?? undefined, {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${opts.sharedBuffers}`],
    extensions: { pg_trgm },
    parsers: { [INT8_OID]: (v: string) => BigInt(v) },
  });
} catch (e) {
  post({ type: 'failed', error: serializeError(e) });
  port.close();
  process.exit(1);
}
pg.onNotification((channel, payload) => post({ type: 'notify', channel, payload }));
const run = createPgliteRunner(pg);
// One statement at a time, in the order sent: a prepared statement's first run takes two calls.
let turn: Promise<void> = Promise.resolve();
port.on('message', (m: ToThread) => {
  if (m.type === 'query') {
    turn = turn.then(() =>
      run(m.sql, m.params).then(
        (r) => post({ type: 'result', id: m.id, rows: r.rows, affectedRows: r.affectedRows }),
        (e: unknown) => post({ type: 'error', id: m.id, error: serializeError(e) }),
      ),
    );
  } else if (m.type === 'close') {
    pg.close().then(
      () => post({ type: 'closed' }),
      () => post({ type: 'closed' }),
    );
  }
});
post({ type: 'ready' });
