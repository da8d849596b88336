import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

/**
 * What writing a streamed answer costs a server, by how the answer is built
 * (`npx tsx bench/answer-write.ts`): a 100-event chat completion stream answered at once, as the
 * gateway answers the bench upstream's one-read streams, to 32 keep-alive clients. Each mode runs
 * in a server process of its own, in turns (BENCH_ROUNDS, 3), and prints that server's CPU µs per
 * request over BENCH_REQUESTS (20,000) after 2,000 warm-up requests:
 * - `rope`: the gateway's way: the upstream's bytes decoded, each event's text literal sliced out
 *   and written between our head and tail by string concatenation, the string ended as UTF-8;
 * - `rope-latin1`: the same string decoded and written as latin1 (byte for byte, no UTF-8 work);
 * - `join`: the pieces collected in an array and joined into one flat string;
 * - `buffer`: the rope turned into a Buffer before the write;
 * - `copy`: our head and tail and the upstream's literal bytes copied into one Buffer;
 * - `prebuilt`: a ready Buffer of the same answer (no building: the floor of the write itself);
 * - `upstream`: the upstream's bytes as they came (what a proxy that rewrites nothing writes).
 */
const MODES = ['rope', 'rope-latin1', 'join', 'buffer', 'copy', 'prebuilt', 'upstream'] as const;
type Mode = (typeof MODES)[number];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const WARM_UP = 2_000;

const chunk = (delta: object) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 1700000000, model: 'upstream-model', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
const UPSTREAM = Buffer.from(Array.from({ length: 100 }, (_, i) => chunk({ content: `tok${i} ` })).join(''));
const UP_HEAD = chunk({ content: '' }).split('""')[0]! + '"';
const UP_TAIL = '"' + chunk({ content: '' }).split('""')[1]!;
const HEAD = 'data: {"id":"chatcmpl-0123456789abcdefghijklmnopq","object":"chat.completion.chunk","created":1700000000,"model":"svc-fast","choices":[{"index":0,"delta":{"content":"';
const TAIL = UP_TAIL;

/** The [start, end) of each event's text literal in the upstream's text (the same offsets in bytes: ASCII). */
function literals(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (let p = 0; p < text.length; ) {
    const start = p + UP_HEAD.length;
    const end = text.indexOf('"', start);
    out.push([start, end]);
    p = end + UP_TAIL.length;
  }
  return out;
}

function rope(text: string): string {
  let out = '';
  for (const [a, b] of literals(text)) out += HEAD + text.slice(a, b) + TAIL;
  return out;
}

const HEAD_BYTES = Buffer.from(HEAD);
const TAIL_BYTES = Buffer.from(TAIL);
function copy(bytes: Buffer): Buffer {
  const spans = literals(bytes.toString('latin1'));
  const out = Buffer.allocUnsafe(spans.reduce((n, [a, b]) => n + HEAD_BYTES.length + (b - a) + TAIL_BYTES.length, 0));
  let o = 0;
  for (const [a, b] of spans) {
    o += HEAD_BYTES.copy(out, o);
    o += bytes.copy(out, o, a, b);
    o += TAIL_BYTES.copy(out, o);
  }
  return out;
}

function serve(mode: Mode): void {
  const prebuilt = Buffer.from(rope(UPSTREAM.toString()));
  let served = 0;
  let start: NodeJS.CpuUsage;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // A fresh Buffer, as an upstream read gives one.
      const bytes = Buffer.from(UPSTREAM);
      if (mode === 'rope') res.end(rope(bytes.toString('utf8')));
      else if (mode === 'rope-latin1') res.end(rope(bytes.toString('latin1')), 'latin1');
      else if (mode === 'join') {
        const text = bytes.toString('utf8');
        res.end(literals(text).map(([a, b]) => HEAD + text.slice(a, b) + TAIL).join(''));
      } else if (mode === 'buffer') res.end(Buffer.from(rope(bytes.toString('utf8'))));
      else if (mode === 'copy') res.end(copy(bytes));
      else if (mode === 'prebuilt') res.end(prebuilt);
      else res.end(bytes);
      served++;
      if (served === WARM_UP) start = process.cpuUsage();
      if (served === WARM_UP + REQUESTS) {
        const t = process.cpuUsage(start);
        process.send!((t.user + t.system) / REQUESTS);
      }
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
}

async function measure(mode: Mode): Promise<number> {
  const child = fork(new URL(import.meta.url).pathname, [mode], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32 });
  let result: number | undefined;
  const done = new Promise<number>((resolve) => child.once('message', (m) => resolve((result = m as number))));
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (result === undefined) {
        const r = await pool.request({ path: '/', method: 'POST', body: '{}' });
        await r.body.arrayBuffer();
      }
    }),
  );
  await pool.close();
  child.kill();
  return done;
}

const mode = process.argv[2] as Mode | undefined;
if (mode) serve(mode);
else {
  console.log(`answer-write bench: ${UPSTREAM.length} upstream bytes, ${Buffer.byteLength(rope(UPSTREAM.toString()))} answer bytes, ${REQUESTS} requests a mode, ${ROUNDS} round(s); server CPU µs per request`);
  const results = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
  for (let r = 1; r <= ROUNDS; r++) for (const m of MODES) results.get(m)!.push(await measure(m));
  for (const [m, v] of results) console.log(`  ${m.padEnd(12)} ${v.map((x) => x.toFixed(1).padStart(6)).join(' ')}`);
}
