import { Worker } from 'node:worker_threads';
import { deserializeError, type FromThread, type ThreadOptions, type ToThread } from './pglite-thread-messages.ts';

/** What the PGlite dialect and the listeners need of the embedded database. */
export interface EmbeddedPostgres {
  query<R>(sql: string, params: readonly unknown[]): Promise<{ rows: R[]; affectedRows: number | null }>;
  /** Every notification of every statement; returns the unsubscribe. */
  onNotification(listener: (channel: string, payload: string) => void): () => void;
  close(): Promise<void>;
  readonly closed: boolean;
}

/**
 * Runs PGlite in a worker thread (pglite-worker.ts). In the service's own thread every statement
 * of the embedded database was CPU time taken from answering requests (about a fifth of a
 * gateway request's, measured: the usage records written behind each answer); on a thread of
 * its own it runs on another core. Statements still run one at a time, in the order sent; a
 * notification reaches the listeners before the result of the statement that caused it, as
 * in-process. The thread holds the process open only while a statement is in flight, like the
 * in-process database did.
 */
export async function startPgliteThread(opts: ThreadOptions): Promise<EmbeddedPostgres> {
  const worker = createWorker(opts);
  const pending = new Map<number, { resolve(r: { rows: unknown[]; affectedRows: number | null }): void; reject(e: Error): void }>();
  const listeners = new Set<(channel: string, payload: string) => void>();
  let nextId = 1;
  let closed = false;
  let closing = false;
  let onClosed: (() => void) | null = null;
  // The thread keeps the process alive only while a statement is in flight or it is closing.
  const holdOpen = () => (pending.size > 0 || closing ? worker.ref() : worker.unref());

  const failAll = (e: Error) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
    worker.unref();
  };

  await new Promise<void>((resolve, reject) => {
    const first = (m: FromThread) => {
      worker.off('message', first);
      if (m.type === 'ready') resolve();
      else if (m.type === 'failed') reject(deserializeError(m.error));
      else reject(new Error(`the embedded database's thread sent ${m.type} before it was ready`));
    };
    worker.on('message', first);
    worker.once('error', reject);
  });

  worker.on('message', (m: FromThread) => {
    switch (m.type) {
      case 'result':
      case 'error': {
        const p = pending.get(m.id);
        pending.delete(m.id);
        holdOpen();
        if (m.type === 'result') p?.resolve({ rows: m.rows, affectedRows: m.affectedRows });
        else p?.reject(deserializeError(m.error));
        break;
      }
      case 'notify':
        for (const l of listeners) l(m.channel, m.payload);
        break;
      case 'closed':
        onClosed?.();
        break;
    }
  });
  worker.on('error', (e) => failAll(e));
  worker.on('exit', (code) => {
    closed = true;
    failAll(new Error(`the embedded database's thread exited (${code})`));
  });
  worker.unref();

  const send = (m: ToThread) => worker.postMessage(m);
  return {
    query<R>(sql: string, params: readonly unknown[]) {
      if (closed) return Promise.reject(new Error('the embedded database is closed'));
      const id = nextId++;
      return new Promise<{ rows: R[]; affectedRows: number | null }>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (r: { rows: unknown[]; affectedRows: number | null }) => void, reject });
        holdOpen();
        send({ type: 'query', id, sql, params });
      });
    },
    onNotification(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      closing = true;
      holdOpen();
      await new Promise<void>((resolve) => {
        onClosed = resolve;
        worker.once('exit', () => resolve());
        send({ type: 'close' });
      });
      await worker.terminate();
    },
    get closed() {
      return closed;
    },
  };
}

/**
 * The worker from the compiled `pglite-worker.js`; under tsx (tests, `npm run start:dev`) from the
 * TypeScript source, with tsx registered in the thread first (workers do not inherit its hooks).
 */
function createWorker(opts: ThreadOptions): Worker {
  if (import.meta.url.endsWith('.js')) return new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData: opts });
  const source = new URL('./pglite-worker.ts', import.meta.url).href;
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`, {
    eval: true,
    workerData: opts,
  });
}
