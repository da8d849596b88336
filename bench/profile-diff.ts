import { readFileSync } from 'node:fs';

/**
 * What one server spends per request beyond another, function by function:
 * `npx tsx bench/profile-diff.ts <base.cpuprofile> <other.cpuprofile> [n] [--lines]`. Both files
 * as BENCH_PROFILE=1 writes them (with `requests`), typically the Fastify floor (h) and the
 * gateway (c) of one run (`BENCH_PROFILE_TARGETS=h,c`). Prints the total difference in µs of
 * self time per request, then the n (40) functions whose self time per request grew most, with
 * both figures. With --lines, the n source lines of the other profile's own code (dist/) that
 * took most self time: where inside a function the time goes (a spread, a parse, a literal).
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  positionTicks?: { line: number; ticks: number }[];
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
  requests?: number;
}

const args = process.argv.slice(2);
const lines = args.includes('--lines');
const [baseFile, otherFile, n = '40'] = args.filter((a) => a !== '--lines');
if (!baseFile || !otherFile) throw new Error('usage: bench/profile-diff.ts <base.cpuprofile> <other.cpuprofile> [n] [--lines]');
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Profile;
const short = (url: string) => url.replace(/.*\/(dist|node_modules)\//, '$1/');
const name = (node: Node) => `${node.callFrame.functionName || '(anonymous)'} ${short(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
/**
 * A nameless frame without a script is native code (a V8 builtin or a C++ binding): named by the
 * JavaScript function that called it, since all such frames would otherwise add up under one name
 * (session 27: `Buffer.byteLength` inside `res.end`, 12 µs a stream, showed as "(anonymous)").
 */
const keyOf = (node: Node, parent: Node | undefined) =>
  node.callFrame.functionName === '' && node.callFrame.url === '' && parent ? `(native, called by ${name(parent)})` : name(node);

/** Self time in µs per request, by function (idle excluded). */
function selfPerRequest(p: Profile): Map<string, number> {
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, Node>();
  for (const node of p.nodes) for (const c of node.children ?? []) parentOf.set(c, node);
  const requests = Math.max(1, p.requests ?? 1);
  const out = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i]!)!;
    if (node.callFrame.functionName === '(idle)') continue;
    const k = keyOf(node, parentOf.get(node.id));
    out.set(k, (out.get(k) ?? 0) + (p.timeDeltas[i + 1] ?? 0) / requests);
  }
  return out;
}

const base = load(baseFile);
const other = load(otherFile);
const a = selfPerRequest(base);
const b = selfPerRequest(other);
const rows = [...new Set([...a.keys(), ...b.keys()])].map((k) => ({ k, base: a.get(k) ?? 0, other: b.get(k) ?? 0 }));
const total = rows.reduce((s, r) => s + r.other - r.base, 0);
console.log(`${otherFile} spends ${total.toFixed(1)} µs of self time per request more than ${baseFile}`);
console.log('  +µs/req    base   other  function');
for (const r of rows.sort((x, y) => y.other - y.base - (x.other - x.base)).slice(0, Number(n))) {
  console.log(`${(r.other - r.base).toFixed(2).padStart(9)} ${r.base.toFixed(2).padStart(7)} ${r.other.toFixed(2).padStart(7)}  ${r.k}`);
}

if (lines) {
  const tickUs = (other.endTime - other.startTime) / other.samples.length / Math.max(1, other.requests ?? 1);
  const ticks = new Map<string, number>();
  for (const node of other.nodes) {
    if (!node.callFrame.url.includes('/dist/')) continue;
    for (const t of node.positionTicks ?? []) ticks.set(`${node.callFrame.url}:${t.line}`, (ticks.get(`${node.callFrame.url}:${t.line}`) ?? 0) + t.ticks);
  }
  const sources = new Map<string, string[]>();
  console.log('\n  µs/req  line of our own code');
  for (const [k, t] of [...ticks].sort((x, y) => y[1] - x[1]).slice(0, Number(n))) {
    const at = k.lastIndexOf(':');
    const url = k.slice(0, at);
    const line = Number(k.slice(at + 1));
    if (!sources.has(url)) sources.set(url, readFileSync(new URL(url), 'utf8').split('\n'));
    console.log(`${(t * tickUs).toFixed(2).padStart(8)}  ${short(url)}:${line}  ${(sources.get(url)![line - 1] ?? '').trim().slice(0, 100)}`);
  }
}
