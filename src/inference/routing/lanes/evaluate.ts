import type { CanonicalChatRequest } from '../../canonical/chat.ts';
import { LANES, type Lane } from '../classify-lane.ts';
import { toCanonical, type LaneRecord } from './data-set.ts';

export interface LaneMetrics {
  readonly lane: Lane;
  /** Records whose label is this lane. */
  readonly support: number;
  /** Records classified into this lane. */
  readonly predicted: number;
  readonly correct: number;
  /** correct / predicted (1 when nothing was predicted). */
  readonly precision: number;
  /** correct / support (1 when there is no such record). */
  readonly recall: number;
}

export interface Evaluation {
  readonly total: number;
  readonly correct: number;
  readonly accuracy: number;
  readonly lanes: readonly LaneMetrics[];
  readonly errors: readonly { readonly id: string; readonly lane: Lane; readonly predicted: Lane; readonly text: string }[];
}

/** Classifies every record as a whole request and compares with its label. */
export function evaluate(records: readonly LaneRecord[], classify: (request: CanonicalChatRequest) => Lane): Evaluation {
  const predictedCount = new Map<Lane, number>();
  const supportCount = new Map<Lane, number>();
  const correctCount = new Map<Lane, number>();
  const errors: Evaluation['errors'][number][] = [];
  for (const r of records) {
    const predicted = classify(toCanonical(r));
    supportCount.set(r.lane, (supportCount.get(r.lane) ?? 0) + 1);
    predictedCount.set(predicted, (predictedCount.get(predicted) ?? 0) + 1);
    if (predicted === r.lane) correctCount.set(r.lane, (correctCount.get(r.lane) ?? 0) + 1);
    else errors.push({ id: r.id, lane: r.lane, predicted, text: r.messages[r.messages.length - 1]?.content ?? '' });
  }
  const lanes = LANES.map((lane): LaneMetrics => {
    const support = supportCount.get(lane) ?? 0;
    const predicted = predictedCount.get(lane) ?? 0;
    const correct = correctCount.get(lane) ?? 0;
    return { lane, support, predicted, correct, precision: predicted ? correct / predicted : 1, recall: support ? correct / support : 1 };
  });
  const correct = records.length - errors.length;
  return { total: records.length, correct, accuracy: records.length ? correct / records.length : 1, lanes, errors };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The per-lane table in Markdown, as docs/routing.md shows it. */
export function formatEvaluation(e: Evaluation): string {
  const rows = ['| lane | records | precision | recall |', '| --- | ---: | ---: | ---: |'];
  for (const l of e.lanes.filter((x) => x.support > 0 || x.predicted > 0)) rows.push(`| ${l.lane} | ${l.support} | ${pct(l.precision)} | ${pct(l.recall)} |`);
  rows.push(`| **overall accuracy** | ${e.total} | | **${pct(e.accuracy)}** (${e.correct}/${e.total}) |`);
  return rows.join('\n');
}
