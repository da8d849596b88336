/**
 * The plain decimal text of a finite number, from its shortest round-trip form (what
 * `String(n)` and JSON give): 0.1 -> "0.1", 1e-7 -> "0.0000001", 1.5e21 -> "1500000000000000000000".
 * Reading that text instead of doing float arithmetic is what keeps 0.1 exactly 100000 units.
 */
export function plainDecimal(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const sign = m[1]!;
  const digits = m[2]! + (m[3] ?? '');
  const point = m[2]!.length + Number(m[4]);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A non-negative decimal text split into integer digits and fraction digits, or null. */
export function splitDecimal(text: string): { readonly whole: string; readonly fraction: string } | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  return m ? { whole: m[1]!, fraction: m[2] ?? '' } : null;
}
