/**
 * Group commit for per-request writes. Requests that arrive while a batch is being written, or in
 * the same turn of the event loop, are written together by `many` (one transaction) when they are
 * more than one; a lone request goes through `single` (one statement). Each caller still gets its
 * own result once its batch committed, so a batched write means exactly what a single one does.
 *
 * One batch is written at a time: while it runs the next one fills, so under load the batches
 * grow with the write latency instead of the writes queueing one by one behind each other's
 * commits (on PostgreSQL every request of an account would wait for the previous commit's row
 * lock; on the embedded database every statement is CPU time of the gateway's own thread).
 */
export interface BatchWriter<I, O> {
  (item: I): Promise<O>;
  /** Resolves once everything queued so far is written (or failed): shutdown waits on it. */
  idle(): Promise<void>;
  /** Writes what is queued now, without the delay, and resolves like idle(). */
  flush(): Promise<void>;
}

export interface BatchWriterOptions<I, O> {
  readonly single: (item: I) => Promise<O>;
  readonly many: (items: readonly I[]) => Promise<O[]>;
  /** Largest batch (statement size stays bounded). */
  readonly maxBatch?: number;
  /**
   * Wait this long after the first item of a batch before writing it (0: the next event-loop
   * turn). Writes that nobody waits for (charges written behind the answer) gather into fewer,
   * larger transactions this way.
   */
  readonly delayMs?: number;
}

interface Pending<I, O> {
  readonly item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export function createBatchWriter<I, O>(opts: BatchWriterOptions<I, O>): BatchWriter<I, O> {
  const maxBatch = opts.maxBatch ?? 256;
  const delayMs = opts.delayMs ?? 0;
  let queue: Pending<I, O>[] = [];
  let scheduled = false;
  let timer: NodeJS.Timeout | null = null;
  let writing = false;
  let waiters: (() => void)[] = [];

  const schedule = () => {
    if (scheduled || writing || queue.length === 0) return;
    scheduled = true;
    const run = () => {
      scheduled = false;
      timer = null;
      void writeBatch();
    };
    // After the current I/O callbacks: requests that arrived together are written together.
    if (delayMs > 0) timer = setTimeout(run, delayMs);
    else setImmediate(run);
  };

  const writeBatch = async () => {
    writing = true;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    try {
      if (batch.length === 1) {
        const p = batch[0]!;
        await opts.single(p.item).then(p.resolve, p.reject);
      } else {
        try {
          const results = await opts.many(batch.map((p) => p.item));
          batch.forEach((p, k) => p.resolve(results[k]!));
        } catch {
          // One bad item must not fail the others: write them one by one.
          await Promise.all(batch.map((p) => opts.single(p.item).then(p.resolve, p.reject)));
        }
      }
    } finally {
      writing = false;
      schedule();
      if (queue.length === 0) {
        const w = waiters;
        waiters = [];
        for (const done of w) done();
      }
    }
  };

  const write = (item: I) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
  const idle = () => (queue.length === 0 && !writing ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)));
  return Object.assign(write, {
    idle,
    flush: () => {
      if (timer) {
        clearTimeout(timer);
        timer = null;
        scheduled = false;
        void writeBatch();
      }
      return idle();
    },
  });
}
