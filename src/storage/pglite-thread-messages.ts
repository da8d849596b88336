/** What the embedded database's thread and the service exchange (pglite-thread.ts, pglite-worker.ts). */

export interface ThreadOptions {
  /** PGlite's folder; null keeps the database in memory. */
  readonly dir: string | null;
  readonly sharedBuffers: string;
}

export type ToThread =
  | { readonly type: 'query'; readonly id: number; readonly sql: string; readonly params: readonly unknown[] }
  | { readonly type: 'close' };

export type FromThread =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly error: SerializedError }
  | { readonly type: 'result'; readonly id: number; readonly rows: unknown[]; readonly affectedRows: number | null }
  | { readonly type: 'error'; readonly id: number; readonly error: SerializedError }
  | { readonly type: 'notify'; readonly channel: string; readonly payload: string }
  | { readonly type: 'closed' };

/** An error's message, name and own fields (PostgreSQL's `code`, `constraint`, `detail`, ...). */
export interface SerializedError {
  readonly message: string;
  readonly name: string;
  readonly fields: Record<string, unknown>;
}

export function serializeError(e: unknown): SerializedError {
  if (!(e instanceof Error)) return { message: String(e), name: 'Error', fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (v === null || ['string', 'number', 'boolean', 'bigint'].includes(typeof v)) fields[k] = v;
  }
  return { message: e.message, name: e.name, fields };
}

/** The error again, with the same message and fields, so callers test `code` as before. */
export function deserializeError(s: SerializedError): Error {
  const e = Object.assign(new Error(s.message), s.fields);
  e.name = s.name;
  return e;
}
