import { BUCKET_BITS, FeatureBuffer, LANGUAGE_OUTCOMES, extractLanguageFeatures, extractTextFeatures, type LaneText } from './features.ts';
import { FOLLOW_UP_CONFIDENCE, TEXT_LANES, type LaneModelFile, type TextLane } from './model-format.ts';
// Imported (not read from a path) so that a compiled build carries the model along.
import shipped from './model.json' with { type: 'json' };

export class TextLaneModel {
  private readonly buffer = new FeatureBuffer();
  private readonly scores = new Float64Array(TEXT_LANES.length);
  /** The raw sums of the features other than the language. */
  private readonly partial = new Float64Array(TEXT_LANES.length);

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
   * "why?" or "make it shorter") takes the lane of the previous user message (in a first turn, of
   * the system text) when the model is surer of that one: the conversation decides what a vague
   * follow-up is about.
   */
  classify(input: LaneText): TextLane {
    // Without a previous message any lane will do; with one, the lane must be sure enough to stand.
    const latest = this.classifyText(input.text, input.previous === '' ? 0 : FOLLOW_UP_CONFIDENCE);
    if (latest.confidence >= FOLLOW_UP_CONFIDENCE || input.previous === '') return latest.lane;
    const before = this.classifyText(input.previous);
    return before.confidence > latest.confidence ? before.lane : latest.lane;
  }

  /**
   * The lane with the highest score and its probability; but a text the model leaves in `general`
   * that is plainly not English (its script, or, on a text of LANGUAGE_RULE_MIN_LETTERS letters or
   * more, `eld`) is `multilingual`, since that lane is defined by the language and comes before
   * `general`.
   *
   * The language features (`eld`, about half the cost) come last and only add the weights of a tag
   * or two, so the text is first scored without them and then under each result `eld` could give
   * (LANGUAGE_OUTCOMES). When all of those give the same lane with a probability of at least
   * `sureAt`, that is the answer whatever the language, and it is returned with the least of those
   * probabilities without running `eld`; otherwise `eld` runs and the exact answer is returned.
   * The lane is the same either way (the sums are made in the same order); the default, Infinity,
   * always runs `eld` and gives the exact probability.
   */
  classifyText(text: string, sureAt = Number.POSITIVE_INFINITY): { lane: TextLane; confidence: number } {
    const buffer = this.buffer;
    buffer.reset();
    extractTextFeatures(text, buffer);
    const partial = this.partial;
    partial.fill(0);
    this.addWeights(partial, 0, buffer.length);
    const s = this.scores;
    // The script's verdict stands on any length; the language detector's only on enough text.
    const byScript = buffer.notEnglish;
    const detectionCounts = !buffer.tooShortForLanguageRule;
    if (sureAt <= 1) {
      let lane: TextLane | null = null;
      let least = 1;
      for (const outcome of LANGUAGE_OUTCOMES) {
        s.set(partial);
        for (const bucket of outcome.buckets) for (let c = 0; c < 4; c++) s[c] = (s[c] as number) + (this.weights[bucket * 4 + c] as number);
        const r = this.decide(s, byScript || (outcome.notEnglish && detectionCounts));
        if (lane !== null && r.lane !== lane) {
          least = -1;
          break;
        }
        lane = r.lane;
        least = Math.min(least, r.confidence);
      }
      if (lane !== null && least >= sureAt) return { lane, confidence: least };
    }
    const from = buffer.length;
    extractLanguageFeatures(text, buffer);
    s.set(partial);
    this.addWeights(s, from, buffer.length);
    return this.decide(s, byScript || (buffer.notEnglish && detectionCounts));
  }

  /** Adds the weights of occurrences [from, to) of the buffer to the raw sums `s` (TEXT_LANES order). */
  private addWeights(s: Float64Array, from: number, to: number): void {
    const buffer = this.buffer;
    const w = this.weights;
    for (let i = from; i < to; i++) {
      const base = (buffer.index[i] as number) * 4;
      const v = buffer.value[i] as number;
      s[0] = (s[0] as number) + v * (w[base] as number);
      s[1] = (s[1] as number) + v * (w[base + 1] as number);
      s[2] = (s[2] as number) + v * (w[base + 2] as number);
      s[3] = (s[3] as number) + v * (w[base + 3] as number);
    }
  }

  /** The lane and probability of raw sums `s` (scaled and biased here, in place). */
  private decide(s: Float64Array, notEnglish: boolean): { lane: TextLane; confidence: number } {
    for (let c = 0; c < 4; c++) s[c] = (s[c] as number) * this.scale + (this.bias[c] as number);
    let best = 0;
    for (let c = 1; c < s.length; c++) if ((s[c] as number) > (s[best] as number)) best = c;
    let sum = 0;
    for (let c = 0; c < s.length; c++) sum += Math.exp((s[c] as number) - (s[best] as number));
    const lane = TEXT_LANES[best] as TextLane;
    return { lane: lane === 'general' && notEnglish ? 'multilingual' : lane, confidence: 1 / sum };
  }
}
