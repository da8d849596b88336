/**
 * Trains the text lane model (`npm run lanes:train`): multinomial logistic regression over the
 * hashed features of lanes/features.ts, fitted with AdaGrad on the `train` split of
 * lanes/data/lanes.jsonl, written to lanes/model.json (int8 weights). Then it loads the written
 * model through classifyLane and prints per-lane precision and recall on the held-out `test` split.
 * Deterministic and independent of the order of the data file: each epoch visits the records in
 * the order of a hash of their id and the epoch, so the same records give the same model however
 * they are listed, and a record added or removed leaves the others' order as it was.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDataSet, toCanonical, type LaneRecord } from '../src/inference/routing/lanes/data-set.ts';
import { BUCKET_BITS, FeatureBuffer, extractFeatures, textLaneInput } from '../src/inference/routing/lanes/features.ts';
import { FOLLOW_UP_CONFIDENCE, MODEL_FILE, TEXT_LANES, type LaneModelFile, type TextLane } from '../src/inference/routing/lanes/model-format.ts';

const EPOCHS = 10;
const LEARNING_RATE = 0.4;
const L2 = 1e-3;
const RUNS = Number(process.env.LANES_RUNS ?? 5);
const K = TEXT_LANES.length;

interface Example {
  /** Where the record falls in each epoch's order: a hash of its id. */
  readonly id: string;
  readonly index: Int32Array;
  readonly value: Float64Array;
  /** The lane's index, or -1 for a vague follow-up, trained towards equal probabilities. */
  readonly label: number;
}

function featurize(r: LaneRecord): Example | undefined {
  const input = textLaneInput(toCanonical(r));
  if (!input) return undefined;
  const buffer = new FeatureBuffer();
  extractFeatures(input.text, buffer);
  const merged = new Map<number, number>();
  for (let i = 0; i < buffer.length; i++) {
    const b = buffer.index[i] as number;
    merged.set(b, (merged.get(b) ?? 0) + (buffer.value[i] as number));
  }
  return {
    id: r.id,
    index: Int32Array.from(merged.keys()),
    value: Float64Array.from(merged.values()),
    label: r.vague ? -1 : TEXT_LANES.indexOf(r.lane as TextLane),
  };
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The indices of `examples` in the order epoch `epoch` of run `run` visits them (ids are unique, so no ties). */
function epochOrder(examples: readonly Example[], run: number, epoch: number): number[] {
  const keys = examples.map((ex) => fnv1a(`${run}:${epoch}:${ex.id}`));
  return examples.map((_, i) => i).sort((a, b) => (keys[a] as number) - (keys[b] as number) || ((examples[a] as Example).id < (examples[b] as Example).id ? -1 : 1));
}

const records = loadDataSet();
const isText = (r: LaneRecord) => (TEXT_LANES as readonly string[]).includes(r.lane);
const train = records.filter((r) => r.split === 'train' && isText(r));
const examples = train.map(featurize).filter((e): e is Example => e !== undefined);

interface Fitted {
  readonly weights: Float64Array;
  readonly bias: Float64Array;
}

/**
 * The mean of RUNS fits that visit the records in different orders: one fit's weights on a
 * borderline record depend on the order it happened to draw (a record added elsewhere in the data
 * moved others by half a point of held-out accuracy), the mean much less.
 */
function fit(examples: readonly Example[], epochs: number, l2: number, log = false): Fitted {
  const weights = new Float64Array((1 << BUCKET_BITS) * K);
  const bias = new Float64Array(K);
  for (let run = 0; run < RUNS; run++) {
    const one = fitOnce(examples, run, epochs, l2, log);
    for (let i = 0; i < weights.length; i++) weights[i] = (weights[i] as number) + (one.weights[i] as number) / RUNS;
    for (let c = 0; c < K; c++) bias[c] = (bias[c] as number) + (one.bias[c] as number) / RUNS;
  }
  return { weights, bias };
}

function fitOnce(examples: readonly Example[], run: number, epochs: number, l2: number, log: boolean): Fitted {
  const weights = new Float64Array((1 << BUCKET_BITS) * K);
  const grad2 = new Float64Array((1 << BUCKET_BITS) * K).fill(1e-8);
  const bias = new Float64Array(K);
  const bias2 = new Float64Array(K).fill(1e-8);
  const p = new Float64Array(K);
  for (let epoch = 0; epoch < epochs; epoch++) {
    const order = epochOrder(examples, run, epoch);
    let loss = 0;
    for (const at of order) {
      const ex = examples[at] as Example;
      probabilities({ weights, bias }, ex, p);
      for (let c = 0; c < K; c++) {
        const target = ex.label === -1 ? 1 / K : c === ex.label ? 1 : 0;
        if (target > 0) loss -= target * Math.log(Math.max(1e-12, p[c] as number));
        const g = (p[c] as number) - target;
        bias2[c] = (bias2[c] as number) + g * g;
        bias[c] = (bias[c] as number) - (LEARNING_RATE * g) / Math.sqrt(bias2[c] as number);
        for (let f = 0; f < ex.index.length; f++) {
          const k = (ex.index[f] as number) * K + c;
          const gw = g * (ex.value[f] as number) + l2 * (weights[k] as number);
          grad2[k] = (grad2[k] as number) + gw * gw;
          weights[k] = (weights[k] as number) - (LEARNING_RATE * gw) / Math.sqrt(grad2[k] as number);
        }
      }
    }
    if (log && (epoch % 10 === 9 || epoch === epochs - 1)) console.log(`run ${run + 1}, epoch ${epoch + 1}: mean loss ${(loss / order.length).toFixed(4)}`);
  }
  return { weights, bias };
}

function probabilities(m: Fitted, ex: Example, p: Float64Array): void {
  for (let c = 0; c < K; c++) p[c] = m.bias[c] as number;
  for (let f = 0; f < ex.index.length; f++) {
    const base = (ex.index[f] as number) * K;
    const v = ex.value[f] as number;
    for (let c = 0; c < K; c++) p[c] = (p[c] as number) + v * (m.weights[base + c] as number);
  }
  const max = Math.max(...p);
  let sum = 0;
  for (let c = 0; c < K; c++) sum += p[c] = Math.exp((p[c] as number) - max);
  for (let c = 0; c < K; c++) p[c] = (p[c] as number) / sum;
}

// LANES_TUNE=1: 4-fold cross-validation on the train split only (the held-out split stays unseen).
if (process.env.LANES_TUNE === '1') {
  const p = new Float64Array(K);
  for (const epochs of (process.env.LANES_TUNE_EPOCHS ?? '10,30').split(',').map(Number)) {
    for (const l2 of (process.env.LANES_TUNE_L2 ?? '1e-6,1e-5,1e-4,1e-3').split(',').map(Number)) {
      let correct = 0;
      // Folds by a hash of the id, like the order, so that they do not depend on the file's order.
      const foldOf = (ex: Example) => fnv1a(`fold:${ex.id}`) % 4;
      for (let fold = 0; fold < 4; fold++) {
        const m = fit(examples.filter((ex) => foldOf(ex) !== fold), epochs, l2);
        for (const ex of examples.filter((ex) => foldOf(ex) === fold)) {
          probabilities(m, ex, p);
          if (p.indexOf(Math.max(...p)) === ex.label || (ex.label === -1 && Math.max(...p) < FOLLOW_UP_CONFIDENCE)) correct++;
        }
      }
      console.log(`epochs ${epochs}, l2 ${l2}: cross-validated accuracy ${((correct / examples.length) * 100).toFixed(1)}%`);
    }
  }
  process.exit(0);
}

const { weights, bias } = fit(examples, EPOCHS, L2, true);

// Quantise to int8 and keep the buckets with a non-zero weight.
let maxAbs = 0;
for (const w of weights) maxAbs = Math.max(maxAbs, Math.abs(w));
const scale = maxAbs / 127;
const gaps: number[] = [];
const packed: number[] = [];
let last = 0;
for (let b = 0; b < 1 << BUCKET_BITS; b++) {
  const q = Array.from({ length: K }, (_, c) => Math.round((weights[b * K + c] as number) / scale));
  if (q.every((x) => x === 0)) continue;
  let gap = b - last;
  last = b;
  do {
    gaps.push((gap & 0x7f) | (gap > 0x7f ? 0x80 : 0));
    gap >>>= 7;
  } while (gap > 0);
  packed.push(...q);
}
const model: LaneModelFile = {
  format: 'svc-lane-model/1',
  bucketBits: BUCKET_BITS,
  lanes: TEXT_LANES,
  scale,
  bias: Array.from(bias, (b) => Number(b.toFixed(6))),
  buckets: Buffer.from(gaps).toString('base64'),
  weights: Buffer.from(Int8Array.from(packed).buffer).toString('base64'),
  trainedOn: { records: examples.length, epochs: EPOCHS, l2: L2 },
};
writeFileSync(MODEL_FILE, JSON.stringify(model) + '\n');
console.log(`wrote ${fileURLToPath(MODEL_FILE)}: ${packed.length / K} buckets, trained on ${examples.length} records`);

// Evaluate the written model the way the gateway uses it, in a process that loads the new file.
const evaluation = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./eval-lanes.ts', import.meta.url))], { stdio: 'inherit' });
process.exitCode = evaluation.status ?? 1;
