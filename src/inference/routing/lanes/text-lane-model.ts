import { readFileSync } from 'node:fs';
import { BUCKET_BITS, FeatureBuffer, extractFeatures, type LaneText } from './features.ts';

/** The lanes the text model chooses between, in precedence order (code, then math, then multilingual). */
export const TEXT_LANES = ['code', 'math', 'multilingual', 'general'] as const;
export type TextLane = (typeof TEXT_LANES)[number];

/**
 * The model as stored in model.json: a linear (multinomial logistic regression) model over the
 * hashed features. Weights are quantised to int8 (value = q * scale); only buckets with a non-zero
 * weight are stored, as LEB128 varint gaps between bucket numbers and, per bucket, one int8 per lane.
 */
export interface LaneModelFile {
  readonly format: 'svc-lane-model/1';
  readonly bucketBits: number;
  readonly lanes: readonly string[];
  readonly scale: number;
  readonly bias: readonly number[];
  /** base64 of the varint-encoded gaps between successive stored buckets. */
  readonly buckets: string;
  /** base64 of int8 weights, lanes.length per stored bucket, in bucket order. */
  readonly weights: string;
  /** How the model was trained, for the record. */
  readonly trainedOn: { readonly records: number; readonly epochs: number; readonly l2: number };
}

/** Below this probability the latest message defers to the previous one (see classify). */
export const FOLLOW_UP_CONFIDENCE = 0.6;

export const MODEL_FILE = new URL('./model.json', import.meta.url);

export class TextLaneModel {
  private readonly buffer = new FeatureBuffer();
  private readonly scores = new Float64Array(TEXT_LANES.length);

  private constructor(
    /** Dense int8 weights, TEXT_LANES.length per bucket. */
    private readonly weights: Int8Array,
    private readonly scale: number,
    private readonly bias: readonly number[],
  ) {}

  static fromFile(file: LaneModelFile): TextLaneModel {
    if (file.format !== 'svc-lane-model/1') throw new Error(`lane model: unknown format ${String(file.format)}`);
    if (file.bucketBits !== BUCKET_BITS) throw new Error(`lane model: ${file.bucketBits} bucket bits, the features use ${BUCKET_BITS}`);
    if (file.lanes.join() !== TEXT_LANES.join()) throw new Error(`lane model: lanes ${file.lanes.join()} are not ${TEXT_LANES.join()}`);
    const k = TEXT_LANES.length;
    const gaps = Buffer.from(file.buckets, 'base64');
    const packed = new Int8Array(Buffer.from(file.weights, 'base64'));
    const weights = new Int8Array((1 << BUCKET_BITS) * k);
    let bucket = 0;
    let stored = 0;
    for (let i = 0; i < gaps.length; ) {
      let gap = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = gaps[i++] as number;
        gap |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte & 0x80);
      bucket += gap;
      weights.set(packed.subarray(stored * k, stored * k + k), bucket * k);
      stored++;
    }
    if (stored * k !== packed.length) throw new Error('lane model: bucket and weight counts differ');
    return new TextLaneModel(weights, file.scale, file.bias);
  }

  static load(url: URL = MODEL_FILE): TextLaneModel {
    return TextLaneModel.fromFile(JSON.parse(readFileSync(url, 'utf8')) as LaneModelFile);
  }

  /**
   * The lane of the latest user message. A message the model is unsure about (a follow-up such as
   * "why?" or "make it shorter") takes the lane of the previous user message when the model is
   * surer of that one: the conversation decides what a vague follow-up is about.
   */
  classify(input: LaneText): TextLane {
    const latest = this.classifyText(input.text);
    if (latest.confidence >= FOLLOW_UP_CONFIDENCE || input.previous === '') return latest.lane;
    const before = this.classifyText(input.previous);
    return before.confidence > latest.confidence ? before.lane : latest.lane;
  }

  /**
   * The lane with the highest score and its probability; but a text the model leaves in `general`
   * that is plainly not English is `multilingual`, since that lane is defined by the language and
   * comes before `general`.
   */
  classifyText(text: string): { lane: TextLane; confidence: number } {
    const s = this.score(text);
    let best = 0;
    for (let c = 1; c < s.length; c++) if ((s[c] as number) > (s[best] as number)) best = c;
    let sum = 0;
    for (let c = 0; c < s.length; c++) sum += Math.exp((s[c] as number) - (s[best] as number));
    const lane = TEXT_LANES[best] as TextLane;
    return { lane: lane === 'general' && this.buffer.notEnglish ? 'multilingual' : lane, confidence: 1 / sum };
  }

  /** The raw scores per lane (TEXT_LANES order); the array is reused by the next call. */
  score(text: string): Float64Array {
    const buffer = this.buffer;
    buffer.reset();
    extractFeatures(text, buffer);
    const w = this.weights;
    const s = this.scores;
    s.fill(0);
    for (let i = 0; i < buffer.length; i++) {
      const base = (buffer.index[i] as number) * 4;
      const v = buffer.value[i] as number;
      s[0] = (s[0] as number) + v * (w[base] as number);
      s[1] = (s[1] as number) + v * (w[base + 1] as number);
      s[2] = (s[2] as number) + v * (w[base + 2] as number);
      s[3] = (s[3] as number) + v * (w[base + 3] as number);
    }
    for (let c = 0; c < 4; c++) s[c] = (s[c] as number) * this.scale + (this.bias[c] as number);
    return s;
  }
}
