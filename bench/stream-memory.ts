/**
 * The memory of the service started by `npm start` (compiled JavaScript, as users run it) with
 * BENCH_STREAMS (1,000) streamed chat completions held open at once, and whether each of them is
 * billed exactly once released: `npx tsx bench/stream-memory.ts`.
 *
 * The upstream runs in this process (bench/lib/slow-upstream.ts: one chunk at once, then one per
 * second until released), so its sockets are not counted in the service's memory. The service
 * runs on the embedded database in a temp folder, or on DATABASE_URL (and REDIS_URL) when set.
 * RSS is read from /proc/<pid>/status (VmRSS, and VmHWM for the peak) of the node process that
 * `npm start` execs. Aims (issue #11): under 450 MB on the embedded database, under 200 MB on
 * PostgreSQL. BENCH_STREAMS sets the number of streams; BENCH_HEAP_SNAPSHOT=1 (with NODE_OPTIONS
 * "--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<dir>") writes a heap snapshot while they are open.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startNpm } from '../test/helpers/service-process.ts';
import { startSlowUpstream } from './lib/slow-upstream.ts';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const ADMIN = `bench-admin-${process.pid}-0123456789abcdef`;
const onPostgres = Boolean(process.env.DATABASE_URL);
const AIM_MB = onPostgres ? 200 : 450;

const megabytes = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const upstream = await startSlowUpstream(1000);
const dir = mkdtempSync(join(tmpdir(), 'svc-stream-memory-'));
const configFile = join(dir, 'catalog.yaml');
writeFileSync(
  configFile,
  `
providers:
  - { id: bench-slow, type: openai, base_url: "${upstream.url}/v1", api_key: bench-key, connections: ${STREAMS + 100} }
models:
  - id: svc-slow
    type: chat
    pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }
    deployments: [{ provider: bench-slow, model: upstream-model }]
`,
);

console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`database: ${onPostgres ? 'PostgreSQL (DATABASE_URL)' : 'embedded (PGlite)'}${process.env.REDIS_URL ? ' + Redis' : ''}`);
const service = await startNpm({
  dataDir: join(dir, 'data'),
  env: {
    CONFIG_FILE: configFile,
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_INFERENCE_PER_MINUTE: '1000000',
    DATABASE_URL: process.env.DATABASE_URL ?? '',
    REDIS_URL: process.env.REDIS_URL ?? '',
  },
});
try {
  if (!service.up) throw new Error(`npm start did not answer /healthz:\n${service.output()}`);
  // `npm start` execs node dist/main.js: the service is npm's only child.
  const pid = Number(execFileSync('pgrep', ['-P', String(service.npm.pid)]).toString().trim().split('\n')[0]);

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const account = await admin('POST', '/accounts', { email: `bench-${Date.now()}@example.com`, email_verified: true });
  await admin('POST', `/accounts/${account.id}/credits`, { credits: 900_000_000 });
  const key = (await admin('POST', `/accounts/${account.id}/keys`, { name: 'bench' })).key as string;
  const creditsBefore = BigInt((await admin('GET', `/accounts/${account.id}`)).credits_micro as string);

  // One request first, so the idle figure includes the request path's code and pools.
  await fetch(`${service.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'svc-slow', messages: [{ role: 'user', content: 'warm' }], stream: true, max_tokens: 50 }),
  }).then(async (r) => {
    const reader = r.body!.getReader();
    await reader.read();
    upstream.release();
    while (!(await reader.read()).done);
  });
  await sleep(3000);
  const idle = megabytes(pid, 'VmRSS');

  const pool = new Pool(service.url, { connections: STREAMS, pipelining: 1 });
  const started = performance.now();
  const bodies = await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const res = await pool.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-slow', messages: [{ role: 'user', content: 'hold this stream open' }], stream: true, max_tokens: 1000 }),
      });
      if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode}: ${await res.body.text()}`);
      const it = res.body[Symbol.asyncIterator]();
      await it.next();
      return { res, it };
    }),
  );
  const openedMs = performance.now() - started;
  await sleep(3000);
  const held = megabytes(pid, 'VmRSS');
  const peak = megabytes(pid, 'VmHWM');
  if (process.env.BENCH_HEAP_SNAPSHOT) {
    // With NODE_OPTIONS="--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<dir>": a snapshot of the streams' heap.
    process.kill(pid, 'SIGUSR2');
    await sleep(20_000);
  }
  console.log(`${STREAMS} streams opened in ${openedMs.toFixed(0)} ms; ${upstream.open()} open at the upstream`);

  upstream.release();
  await Promise.all(bodies.map(async ({ it }) => { while (!(await it.next()).done); }));
  await pool.close();
  const creditsAfter = BigInt((await admin('GET', `/accounts/${account.id}`)).credits_micro as string);
  let recorded = 0n;
  let records = 0;
  for (let before: string | null = null; ; ) {
    const page = (await admin('GET', `/accounts/${account.id}/usage?limit=500${before ? `&before=${before}` : ''}`)) as { data: { cost_micro: string }[]; next_before: string | null };
    // The warm-up request ran after creditsBefore was read: it is in both sums.
    for (const u of page.data) recorded += BigInt(u.cost_micro);
    records += page.data.length;
    before = page.next_before;
    if (!before) break;
  }
  const billed = creditsBefore - creditsAfter;

  console.log(`service RSS idle ${idle} MB; with ${STREAMS} streams open ${held} MB (peak ${peak} MB); +${(((held - idle) * 1024) / STREAMS).toFixed(1)} KB per stream`);
  console.log(`aim: under ${AIM_MB} MB on ${onPostgres ? 'PostgreSQL' : 'the embedded database'}: ${held < AIM_MB ? 'met' : 'missed'}`);
  console.log(`billed exactly: ${billed === recorded && records === STREAMS + 1 ? 'yes' : 'NO'} (${records} usage records cost ${recorded} micro-credits, the balance moved by ${billed})`);
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (billed !== recorded || records !== STREAMS + 1) process.exitCode = 1;
} finally {
  service.npm.kill('SIGTERM');
  await service.exited;
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
}
