/**
 * The lane classifier benchmark (`npx tsx bench/lane-classifier.ts`, or `npm run bench --
 * lane-classifier`): the cost of classifyLane, per request, for requests of about 20, 500, 4,000
 * and 32,000 tokens (counted with the gateway's tokenizer) built from the labelled data set's code,
 * prose, mathematics and other-language messages, single- and multi-turn. Prints p50/p99/max per
 * size and the p99 as a share of the 1 ms budget, and the time to load the model at start.
 *
 * Settings (environment): BENCH_LANE_ITERATIONS (requests timed per size, 5000).
 */
import { countTokens } from 'gpt-tokenizer';
import type { CanonicalChatRequest } from '../src/inference/canonical/chat.ts';
import { loadDataSet, toCanonical } from '../src/inference/routing/lanes/data-set.ts';

const ITERATIONS = Number(process.env.BENCH_LANE_ITERATIONS ?? 5000);
const BUDGET_MS = 1;

const loadStart = performance.now();
const { classifyLane } = await import('../src/inference/routing/classify-lane.ts');
const loadMs = performance.now() - loadStart;

const records = loadDataSet().filter((r) => r.lane !== 'vision' && r.lane !== 'agent');
const texts = records.map((r) => r.messages[r.messages.length - 1]?.content ?? '');

/** A user message of about `tokens` tokens: data set messages appended until the size is reached. */
function messageOf(tokens: number, offset: number): string {
  const parts: string[] = [];
  let count = 0;
  for (let i = offset; count < tokens; i++) {
    const t = texts[i % texts.length] as string;
    parts.push(t);
    count += countTokens(t) + 1;
  }
  return parts.join('\n');
}

function requestsOf(tokens: number): CanonicalChatRequest[] {
  const out: CanonicalChatRequest[] = [];
  for (let i = 0; i < 64; i++) {
    const text = tokens <= 30 ? (texts[(i * 37) % texts.length] as string) : messageOf(tokens, i * 53);
    const base = toCanonical(records[(i * 11) % records.length] as (typeof records)[number]);
    // Half single-turn, half with the data set record's history before the long message.
    const history = i % 2 === 0 ? [] : base.messages.slice(0, -1);
    out.push({ ...base, messages: [...history, { role: 'user', content: [{ type: 'text', text }] }] });
  }
  return out;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

console.log(`model load (import of classify-lane, includes eld): ${loadMs.toFixed(0)} ms`);
console.log(`iterations per size: ${ITERATIONS}\n`);
console.log('size (tokens)  p50 ms   p99 ms   max ms   p99 / 1 ms budget');
for (const tokens of [20, 500, 4000, 32000]) {
  const requests = requestsOf(tokens);
  const mean = Math.round(requests.reduce((s, r) => {
    const last = r.messages[r.messages.length - 1];
    return s + (last?.role === 'user' && last.content[0]?.type === 'text' ? countTokens(last.content[0].text) : 0);
  }, 0) / requests.length);
  for (let i = 0; i < 500; i++) classifyLane(requests[i % requests.length] as CanonicalChatRequest);
  const times = new Float64Array(ITERATIONS);
  for (let i = 0; i < ITERATIONS; i++) {
    const request = requests[i % requests.length] as CanonicalChatRequest;
    const t0 = process.hrtime.bigint();
    classifyLane(request);
    times[i] = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  times.sort();
  const p99 = percentile(times, 0.99);
  console.log(
    `${String(mean).padStart(13)}  ${percentile(times, 0.5).toFixed(3).padStart(6)}   ${p99.toFixed(3).padStart(6)}   ${(times[times.length - 1] as number).toFixed(3).padStart(6)}   ${(p99 / BUDGET_MS).toFixed(2)}`,
  );
}
