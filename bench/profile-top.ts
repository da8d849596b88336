import { readFileSync } from 'node:fs';

/**
 * Sums a CPU profile (`.cpuprofile`, as BENCH_PROFILE=1 or `--cpu-prof` write them) by function: `npx tsx bench/profile-top.ts <file.cpuprofile> [n]`
 * prints the n (30) functions with the most self time, and the share of each source area (our
 * src/ folders, node_modules packages, node internals), so two profiles compare by proportion
 * even when the machine's load made their req/s incomparable.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  /** Requests the gateway answered while profiling (bench/children/gateway.ts adds it). */
  requests?: number;
}

const [file, n = '30'] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/profile-top.ts <file.cpuprofile> [n]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// Stopping the profiler (node:inspector's post) is sampled too: not the gateway's work.
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const c of node.children ?? []) parentOf.set(c, node.id);
const underInspector = (id: number): boolean => {
  for (let p: number | undefined = id; p !== undefined; p = parentOf.get(p)) if (byId.get(p)!.callFrame.url === 'node:inspector') return true;
  return false;
};
const self = new Map<number, number>();
profile.samples.forEach((id, i) => {
  if (!underInspector(id)) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

const area = (url: string): string => {
  if (url === '') return '(native/vm)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const src = /\/((?:src|dist)\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (src) return src[1]!;
  if (url.startsWith('node:')) return 'node internals';
  return url.replace(/^.*\//, '');
};

const functions = new Map<string, number>();
const areas = new Map<string, number>();
let total = 0;
for (const [id, micros] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules|src|dist|bench)\//, '$1/')}:${lineNumber + 1}`;
  // A nameless frame without a script is native (a builtin or a C++ binding): named by its caller.
  const caller = functionName === '' && url === '' ? byId.get(parentOf.get(id) ?? -1)?.callFrame : undefined;
  const key = caller ? `(native, called by ${caller.functionName || '(anonymous)'} ${caller.url.replace(/^.*\//, '')}:${caller.lineNumber + 1})` : `${functionName || '(anonymous)'}${where}`;
  functions.set(key, (functions.get(key) ?? 0) + micros);
  if (functionName !== '(idle)') areas.set(area(url), (areas.get(area(url)) ?? 0) + micros);
  total += micros;
}
const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((s, [, m]) => s + m, 0);
const busy = total - idle;
const perRequest = (m: number) => (profile.requests ? `${(m / profile.requests).toFixed(1).padStart(7)} µs/req ` : '');
const pct = (m: number) => `${((m / busy) * 100).toFixed(1).padStart(5)}% ${perRequest(m)}`;
console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy` +
    (profile.requests ? `, ${profile.requests} requests, ${(busy / profile.requests).toFixed(0)} µs busy per request` : '') +
    ' (shares are of busy time)\n',
);
console.log('top functions by self time');
for (const [key, m] of [...functions].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  console.log(`  ${pct(m)}  ${key}`);
}
console.log('\nby area');
for (const [key, m] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`  ${pct(m)}  ${key}`);
}

// `--stacks NAME`: where the self time of the functions named NAME comes from (their callers, 6 deep).
const stacksOf = process.argv.indexOf('--stacks');
if (stacksOf !== -1) {
  const name = process.argv[stacksOf + 1]!;
  const stacks = new Map<string, number>();
  for (const [id, micros] of self) {
    if (byId.get(id)!.callFrame.functionName !== name) continue;
    const chain: string[] = [];
    for (let p = parentOf.get(id); p !== undefined && chain.length < Number(process.env.STACK_DEPTH ?? 6); p = parentOf.get(p)) {
      const f = byId.get(p)!.callFrame;
      chain.push(`${f.functionName || '(anonymous)'}@${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}`);
    }
    const key = chain.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + micros);
  }
  console.log(`\nstacks of ${name}`);
  for (const [key, m] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${pct(m)}  ${key}`);
}
