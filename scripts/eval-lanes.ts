/**
 * Evaluates the shipped lane model (`npm run lanes:eval`): classifyLane on every record of the
 * held-out split of lanes/data/lanes.jsonl, as whole requests, with per-lane precision and recall
 * (the table docs/routing.md shows), then subsets, the errors, the separate fresh set, and the
 * operations set.
 */
import { classifyLane } from '../src/inference/routing/classify-lane.ts';
import { FRESH_FILE, OPS_FILE, loadDataSet } from '../src/inference/routing/lanes/data-set.ts';
import { evaluate, formatEvaluation } from '../src/inference/routing/lanes/evaluate.ts';

const records = loadDataSet();
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const train = evaluate(records.filter((r) => r.split === 'train'), classifyLane);
console.log(`\ntrain split: accuracy ${pct(train.accuracy)} (${train.correct}/${train.total})`);
const test = records.filter((r) => r.split === 'test');
const result = evaluate(test, classifyLane);
console.log('\nheld-out test split:\n');
console.log(formatEvaluation(result));
for (const [name, subset] of [
  ['text lanes only (code, math, multilingual, general)', test.filter((r) => r.lane !== 'vision' && r.lane !== 'agent')],
  ['hand-written cases', test.filter((r) => r.source === 'hand')],
  ['English single-turn', test.filter((r) => r.lang === 'en')],
  ['other languages', test.filter((r) => r.lang !== 'en' && r.lang !== 'multi')],
  ['multi-turn', test.filter((r) => r.messages.length > 1)],
] as const) {
  const e = evaluate(subset, classifyLane);
  console.log(`held-out ${name}: ${pct(e.accuracy)} (${e.correct}/${e.total})`);
}
if (result.errors.length > 0) {
  console.log('\nheld-out errors:');
  for (const e of result.errors) console.log(`  ${e.id}: ${e.lane} -> ${e.predicted}: ${JSON.stringify(e.text.slice(0, 100))}`);
}

// A second held-out set, written once after the model and the lexicon were frozen and never used to
// change either: a check that the held-out figure above is not the product of tuning against it.
const fresh = evaluate(loadDataSet(FRESH_FILE), classifyLane);
console.log('\nfresh set (data/fresh.jsonl):\n');
console.log(formatEvaluation(fresh));
for (const e of fresh.errors) console.log(`  ${e.id}: ${e.lane} -> ${e.predicted}: ${JSON.stringify(e.text.slice(0, 100))}`);

// Operations requests and the everyday requests that share their words (data/ops.jsonl): the part
// written before the features it checks (ops-dev) and the part written after (ops-fresh) apart.
const ops = loadDataSet(OPS_FILE);
for (const [name, prefix] of [['tuned on', 'ops-dev-'], ['written after, never tuned on', 'ops-fresh-']] as const) {
  const e = evaluate(ops.filter((r) => r.id.startsWith(prefix)), classifyLane);
  console.log(`\noperations set (data/ops.jsonl), ${prefix}* (${name}):\n`);
  console.log(formatEvaluation(e));
  for (const x of e.errors) console.log(`  ${x.id}: ${x.lane} -> ${x.predicted}: ${JSON.stringify(x.text.slice(0, 100))}`);
}
