import { BUCKET_BITS, FeatureBuffer, extractFeatures, type LaneText } from './features.ts';
import { FOLLOW_UP_CONFIDENCE, TEXT_LANES, type LaneModelFile, type TextLane } from './model-format.ts';
// Imported (not read from a path) so that a compiled build carries the model along.
import shipped from './model.json' with { type: 'json' };

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

  /** The model shipped in model.json. */
  static load(): TextLaneModel {
    return TextLaneModel.fromFile(shipped as LaneModelFile);
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
