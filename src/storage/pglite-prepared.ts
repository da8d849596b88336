import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import { PREPARED_MARK } from './prepared-mark.ts';

const { serialize } = protocol;

export interface QueryResult {
  readonly rows: unknown[];
  readonly affectedRows: number | null;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Runs statements on PGlite; those whose text starts with PREPARED_MARK as named prepared
 * statements, one per distinct text. PGlite's own query() parses, analyses and plans every
 * statement each time, in six calls into the WebAssembly backend; a prepared statement is parsed
 * once, then each run is one call (bind, describe, execute, sync) with the plan cached by
 * PostgreSQL (custom plans for the first five runs, then a generic one unless it costs more).
 * The charge batch's statement, planned per batch, cost about four times as much unprepared.
 * Parameters are serialized and rows parsed exactly as query() does (PGlite's own serializers,
 * parsers and result parser). Calls must not overlap (the thread runs one at a time).
 */
export function createPgliteRunner(pg: PGlite): (sql: string, params: readonly unknown[]) => Promise<QueryResult> {
  const statements = new Map<string, { readonly name: string; readonly paramTypes: number[] }>();

  const prepare = async (text: string) => {
    let s = statements.get(text);
    if (s === undefined) {
      const name = `svc_${statements.size + 1}`;
      const r = await pg.execProtocol(concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]), {
        syncToFs: false,
      });
      s = { name, paramTypes: parse.parseDescribeStatementResults(r.messages) };
      statements.set(text, s);
    }
    return s;
  };

  return async (sql, params) => {
    if (!sql.startsWith(PREPARED_MARK)) {
      const r = await pg.query(sql, [...params], { rowMode: 'object' });
      return { rows: r.rows ?? [], affectedRows: r.affectedRows ?? null };
    }
    const s = await prepare(sql);
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = pg.serializers[s.paramTypes[i]!];
      return serializer ? serializer(v) : String(v);
    });
    // One call: after an error the backend skips to the sync, so the connection stays usable.
    const r = await pg.execProtocol(
      concat([serialize.bind({ statement: s.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
      { syncToFs: false },
    );
    const result = parse.parseResults(r.messages, pg.parsers, { rowMode: 'object' })[0];
    return { rows: result?.rows ?? [], affectedRows: result?.affectedRows ?? null };
  };
}
