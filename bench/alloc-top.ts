import { readFileSync } from 'node:fs';

/**
 * Sums a sampling allocation profile (`BENCH_PROFILE=alloc npx tsx bench/gateway.ts` writes them
 * to bench/profiles/*.heapprofile): `npx tsx bench/alloc-top.ts <file.heapprofile> [n]` prints the
 * functions that allocated most, in bytes per request, and where the top ones were called from.
 * Allocation is counted, not timed, so these figures do not move with the machine's load.
 */
interface Node {
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly selfSize: number;
  readonly children: Node[];
}
const [file, n = '30'] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/alloc-top.ts <file.heapprofile> [n]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: Node; requests?: number };
const requests = profile.requests ?? 1;
const bytes = new Map<string, number>();
const callers = new Map<string, Map<string, number>>();
let total = 0;
const name = (f: Node['callFrame']) =>
  `${f.functionName || '(anonymous)'}${f.url ? ` ${f.url.replace(/^.*\/(node_modules|src|dist|bench)\//, '$1/')}:${f.lineNumber + 1}` : ''}`;
const walk = (node: Node, stack: string[]) => {
  const key = name(node.callFrame);
  if (node.selfSize > 0) {
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    const chain = stack.slice(-4).reverse().join(' < ');
    const m = callers.get(key) ?? new Map<string, number>();
    m.set(chain, (m.get(chain) ?? 0) + node.selfSize);
    callers.set(key, m);
    total += node.selfSize;
  }
  for (const c of node.children) walk(c, [...stack, key]);
};
walk(profile.head, []);
console.log(`${file}: ${(total / requests).toFixed(0)} bytes sampled per request over ${requests} requests\n`);
for (const [key, b] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  console.log(`${((b / total) * 100).toFixed(1).padStart(5)}% ${(b / requests).toFixed(0).padStart(7)} B/req  ${key}`);
  const top = [...callers.get(key)!].sort((a, b) => b[1] - a[1])[0];
  if (top && top[0]) console.log(`                      < ${top[0]}`);
}
