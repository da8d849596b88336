import { ConfigError } from './config-error.ts';

/**
 * Parses a non-negative decimal (YAML number or string) into integer units of 10^-scale,
 * without passing through float arithmetic: "0.1125" at scale 6 is 112500n.
 */
export function parseDecimalUnits(value: unknown, scale: number, key: string): bigint {
  const text = typeof value === 'number' ? numberToPlain(value) : typeof value === 'string' ? value.trim() : '';
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new ConfigError(key, `expected a non-negative decimal number, got ${JSON.stringify(value)}`);
  const frac = m[2] ?? '';
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) {
    throw new ConfigError(key, `at most ${scale} decimal places are supported`);
  }
  return BigInt(m[1]!) * 10n ** BigInt(scale) + BigInt((frac + '0'.repeat(scale)).slice(0, scale) || '0');
}

function numberToPlain(n: number): string {
  if (!Number.isFinite(n) || n < 0) return String(n);
  // toString gives the shortest round-trip form; only exponent forms need expanding.
  const s = n.toString();
  if (!s.includes('e')) return s;
  return n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}
