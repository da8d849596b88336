import { fork, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { formatResult, runLoad, type LoadResult } from './lib/load.ts';

/**
 * The routing benchmark (`npx tsx bench/routing.ts`): what a pipeline (svc-lanes: lane
 * classification, executor list, x-svc headers) and svc-auto (classification, needs, model choice,
 * billing at the chosen model's prices) add over svc-fast, all three executing on the same instant
 * upstream through the same gateway process. Requests/s and p50/p99 at concurrency 1 and
 * BENCH_CONCURRENCY, non-streamed and streamed; then the ratios against svc-fast (aim: throughput
 * within 5%). Rounds alternate the models so drift of a shared machine hits them alike.
 *
 * Settings: BENCH_DURATION_MS (3000 per run), BENCH_CONCURRENCY (32), BENCH_ROUNDS (2),
 * BENCH_PROMPT (the user message, `Say hello.`: a longer one shows the
 * classifier's cost on it, which is bounded whatever the length; see docs/routing.md).
 */

const DURATION = Number(process.env.BENCH_DURATION_MS ?? 3000);
const PROMPT = process.env.BENCH_PROMPT ?? 'Say hello.';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MODELS = ['svc-fast', 'svc-lanes', 'svc-auto'] as const;

async function start(name: string, args: string[]): Promise<{ process: ChildProcess; ready: Record<string, unknown> }> {
  const child = fork(new URL(`./children/${name}.ts`, import.meta.url), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once('message', (m: Record<string, unknown>) => resolve(m));
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
  });
  return { process: child, ready };
}

async function main(): Promise<void> {
  const upstream = await start('upstream', []);
  const gateway = await start('gateway', [upstream.ready.instantUrl as string, upstream.ready.slowUrl as string]);
  const url = `${gateway.ready.url as string}/v1/chat/completions`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${gateway.ready.key as string}` };
  console.log(`routing bench: ${cpus().length} CPUs (shared), node ${process.version}, ${DURATION} ms per run, ${ROUNDS} rounds, a prompt of ${PROMPT.length} characters\n`);

  const modes = [
    { name: 'non-streaming', stream: false },
    { name: 'streaming (100 chunks)', stream: true },
  ];
  const bodyOf = (model: string, stream: boolean) => JSON.stringify({ model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 256, stream });
  const totals = new Map<string, { rps: number; p50: number; n: number }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      for (const concurrency of [1, CONCURRENCY]) {
        const order = round % 2 === 0 ? MODELS : [...MODELS].reverse();
        for (const model of order) {
          const r: LoadResult = await runLoad({ url, method: 'POST', headers, body: bodyOf(model, mode.stream), concurrency, durationMs: DURATION });
          if (r.errors > 0 || Object.keys(r.statuses).some((s) => s !== '200')) throw new Error(`${model}: ${JSON.stringify(r.statuses)}`);
          console.log(`  round ${round + 1} ${mode.name}, concurrency ${concurrency}: ${formatResult(model, r)}`);
          const key = `${mode.name}|${concurrency}|${model}`;
          const t = totals.get(key) ?? { rps: 0, p50: 0, n: 0 };
          totals.set(key, { rps: t.rps + r.rps, p50: t.p50 + r.p50Ms, n: t.n + 1 });
        }
      }
    }
  }

  console.log('\nratios against svc-fast (mean of rounds)');
  for (const mode of modes) {
    for (const model of MODELS.slice(1)) {
      const at = (c: number, m: string) => totals.get(`${mode.name}|${c}|${m}`)!;
      const [f1, m1, fN, mN] = [at(1, 'svc-fast'), at(1, model), at(CONCURRENCY, 'svc-fast'), at(CONCURRENCY, model)];
      console.log(
        `  ${mode.name.padEnd(24)} ${model.padEnd(10)} throughput at ${CONCURRENCY}: ${((mN.rps / fN.rps) * 100).toFixed(1)}% (aim >= 95%)   ` +
          `median difference at 1: ${(m1.p50 / m1.n - f1.p50 / f1.n).toFixed(3)} ms`,
      );
    }
  }
  gateway.process.send({ type: 'close' });
  await new Promise((r) => gateway.process.once('exit', r));
  upstream.process.kill();
}

await main();
