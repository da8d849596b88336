/**
 * Instructions per request, counted by valgrind's callgrind: the same figure from run to run
 * whatever else the machine does, unlike req/s and CPU time on this shared two-core machine
 * (docs/bench-gateway.md, "Session 9"). Each target server of bench/gateway.ts runs under
 * callgrind with instrumentation off through start-up and a warm-up of BENCH_WARMUP requests,
 * then on for BENCH_REQUESTS requests from BENCH_CONCURRENCY keep-alive clients; the counts are
 * per thread, so the main thread (what limits throughput) shows apart from PGlite's thread and
 * V8's helpers. System calls are not counted: the kernel's side of a socket write is the same for
 * every target. Slow (a target runs some 30-50 times slower under valgrind); a comparison, not a
 * throughput.
 *
 *   npx tsx bench/instructions.ts            # BENCH_TARGETS=h,c by default
 *   BENCH_TARGETS=b,h,c,e BENCH_STREAM=1 npx tsx bench/instructions.ts
 *   BENCH_NODE_FLAGS=--single-threaded-gc BENCH_TARGETS=c npx tsx bench/instructions.ts
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';

const TARGETS = (process.env.BENCH_TARGETS ?? 'h,c').split(',').map((s) => s.trim());
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const STREAM = process.env.BENCH_STREAM === '1';
/** Node flags for the counted targets, e.g. `--single-threaded-gc`. */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

interface Child {
  readonly process: ChildProcess;
  readonly ready: Record<string, unknown>;
}

function start(name: string, args: string[], valgrindArgs: string[] | null): Promise<Child> {
  const nodeArgs = [...(valgrindArgs ? NODE_FLAGS : []), '--import', 'tsx'];
  const child = fork(new URL(`./children/${name}.ts`, import.meta.url), args, valgrindArgs
    ? { execPath: 'valgrind', execArgv: [...valgrindArgs, process.execPath, ...nodeArgs], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }
    : { execArgv: nodeArgs, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready`)));
    child.on('message', (m: { type: string }) => {
      if (m.type === 'ready') resolve({ process: child, ready: m as Record<string, unknown> });
    });
  });
}

/** `count` requests from `concurrency` keep-alive clients; throws on any non-2xx answer. */
async function send(url: string, headers: Record<string, string>, body: string, count: number): Promise<void> {
  const u = new URL(url);
  const pool = new Pool(u.origin, { connections: CONCURRENCY, pipelining: 1, headersTimeout: 600_000, bodyTimeout: 600_000 });
  let left = count;
  const client = async () => {
    while (left > 0) {
      left--;
      const res = await pool.request({ path: u.pathname, method: 'POST', headers, body });
      let text = '';
      for await (const chunk of res.body) text += String(chunk);
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  await pool.close();
}

/** Callgrind's totals per thread from the dump files of one process, main thread first. */
function readTotals(dir: string, prefix: string): number[] {
  const files = readdirSync(dir).filter((f) => f.startsWith(prefix)).sort();
  const totals: number[] = [];
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    const m = /^(?:totals|summary): (\d+)/m.exec(text);
    if (m) totals.push(Number(m[1]));
  }
  return totals;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'svc-callgrind-'));
  const upstream = await start('upstream', [], null);
  const instantUrl = upstream.ready.instantUrl as string;
  const slowUrl = upstream.ready.slowUrl as string;
  const json = { 'content-type': 'application/json' };
  const message = { model: 'svc-fast', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 256, stream: STREAM };
  const body = JSON.stringify(message);
  console.log(`instructions per request (callgrind), ${STREAM ? 'streamed (100 chunks)' : 'non-streamed'}, ` +
    `${REQUESTS} requests after ${WARMUP}, concurrency ${CONCURRENCY}, node ${process.version}, LOG_LEVEL ${process.env.LOG_LEVEL ?? 'info'}`);
  for (const target of TARGETS) {
    const spec = {
      b: { child: 'bare-proxy', args: [instantUrl], path: '/v1/chat/completions', headers: (): Record<string, string> => json, name: '(b) bare proxy' },
      h: { child: 'fastify-floor', args: [instantUrl], path: '/v1/chat/completions', headers: (): Record<string, string> => json, name: '(h) fastify floor' },
      c: { child: 'gateway', args: [instantUrl, slowUrl], path: '/v1/chat/completions', headers: (key: string) => ({ ...json, authorization: `Bearer ${key}` }), name: '(c) gateway chat' },
      e: { child: 'gateway', args: [instantUrl, slowUrl], path: '/v1/messages', headers: (key: string) => ({ ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' }), name: '(e) gateway messages' },
    }[target];
    if (!spec) throw new Error(`unknown target ${target} (b, h, c, e)`);
    const prefix = `${target}.out`;
    const server = await start(spec.child, spec.args, [
      '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${join(out, prefix)}`,
    ]);
    const url = `${server.ready.url as string}${spec.path}`;
    const headers = spec.headers(server.ready.key as string);
    await send(url, headers, body, WARMUP);
    const pid = String(server.process.pid);
    execFileSync('callgrind_control', ['-i', 'on', pid], { stdio: 'ignore' });
    await send(url, headers, body, REQUESTS);
    execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-i', 'off', pid], { stdio: 'ignore' });
    const totals = readTotals(out, `${prefix}.1-`);
    server.process.kill('SIGKILL');
    const all = totals.reduce((a, b) => a + b, 0);
    console.log(`  ${spec.name.padEnd(24)} main thread ${fmt(totals[0]! / REQUESTS).padStart(9)}  all threads ${fmt(all / REQUESTS).padStart(9)}  (${totals.length} threads: ${totals.map((t) => fmt(t / REQUESTS)).join(' ')})`);
  }
  upstream.process.kill();
  if (process.env.BENCH_KEEP !== "1") rmSync(out, { recursive: true, force: true }); else console.log(out);
}

await main();
