/**
 * PostgreSQL array literals (`{1,2,NULL}`, `{"a","b\"c"}`) for batch statements that pass each
 * column as one array parameter (`unnest($1::int[], $2::text[], ...)`). node-postgres would turn a
 * JavaScript array into the same text, escaping every element with two regular expressions; a
 * loaded gateway's charge batch spent several microseconds a request there
 * (docs/bench-gateway.md, "Session 21"). Numbers need no escaping, and a batch's text columns
 * repeat a few values (model, endpoint, provider), so each distinct one is escaped once.
 */

export function intArrayLiteral(values: readonly (number | bigint | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += v === null || v === undefined ? 'NULL' : String(v);
  }
  return out + '}';
}

export function textArrayLiteral(values: readonly (string | null)[]): string {
  const quoted = new Map<string, string>();
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) {
      out += 'NULL';
      continue;
    }
    let q = quoted.get(v);
    if (q === undefined) {
      q = `"${v.replace(/[\\"]/g, '\\$&')}"`;
      quoted.set(v, q);
    }
    out += q;
  }
  return out + '}';
}
