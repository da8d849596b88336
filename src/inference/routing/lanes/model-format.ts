/**
 * The lane model's format and constants, apart from the model itself so that the training script
 * can use them without loading the model it is about to replace.
 */

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

/** Where the training script writes the model. */
export const MODEL_FILE = new URL('./model.json', import.meta.url);
