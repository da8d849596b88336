import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { LANES, classifyLane } from '../classify-lane.ts';
import { FRESH_FILE, OPS_FILE, loadDataSet, splitOf, toCanonical } from './data-set.ts';
import { evaluate } from './evaluate.ts';
import { FeatureBuffer, HEAD_CHARS, LANGUAGE_OUTCOMES, TAIL_CHARS, capText, extractLanguageFeatures, textLaneInput, type LaneText } from './features.ts';
import { FOLLOW_UP_CONFIDENCE, MODEL_FILE, TEXT_LANES, type LaneModelFile } from './model-format.ts';
import { TextLaneModel } from './text-lane-model.ts';

describe('the shipped lane model', () => {
  it('loads from model.json and classifies', () => {
    const model = TextLaneModel.load();
    assert.equal(model.classify({ text: 'Write a Rust function that parses a CSV line.', previous: '' }), 'code');
    assert.deepEqual(TEXT_LANES, LANES.slice(2));
  });

  it('refuses a model file of another format, bucket count or lane order', () => {
    const file = JSON.parse(readFileSync(MODEL_FILE, 'utf8')) as LaneModelFile;
    assert.throws(() => TextLaneModel.fromFile({ ...file, format: 'x' as 'svc-lane-model/1' }), /unknown format/);
    assert.throws(() => TextLaneModel.fromFile({ ...file, bucketBits: 12 }), /bucket bits/);
    assert.throws(() => TextLaneModel.fromFile({ ...file, lanes: ['math', 'code', 'multilingual', 'general'] }), /lanes/);
  });

  it('gives the same lane whether or not it skips the language identifier, on every record of the data sets', () => {
    const model = TextLaneModel.load();
    // classify with the language identifier always run: the exact probabilities decide follow-ups.
    const exact = (input: LaneText) => {
      const latest = model.classifyText(input.text);
      if (latest.confidence >= FOLLOW_UP_CONFIDENCE || input.previous === '') return latest.lane;
      const before = model.classifyText(input.previous);
      return before.confidence > latest.confidence ? before.lane : latest.lane;
    };
    let compared = 0;
    for (const r of [...loadDataSet(), ...loadDataSet(FRESH_FILE), ...loadDataSet(OPS_FILE)]) {
      const input = textLaneInput(toCanonical(r));
      if (!input) continue;
      assert.equal(model.classify(input), exact(input), r.id);
      for (const text of [input.text, input.previous].filter((t) => t !== '')) {
        const sure = model.classifyText(text, FOLLOW_UP_CONFIDENCE);
        const full = model.classifyText(text);
        assert.equal(sure.lane, full.lane, r.id);
        // Skipped or not, the probability is never above the exact one, so a follow-up is never taken for sure.
        assert.ok(sure.confidence <= full.confidence + 1e-12, r.id);
      }
      compared++;
    }
    assert.ok(compared > 1500, `${compared} records`);
  });

  it("lists every result of the language features among the outcomes the classifier bounds", () => {
    const outcomes = new Set(LANGUAGE_OUTCOMES.map((o) => `${o.buckets.join()}/${o.notEnglish}`));
    assert.equal(outcomes.size, 11, 'eleven distinct outcomes');
    const seen = new Set<string>();
    for (const r of [...loadDataSet(), ...loadDataSet(FRESH_FILE), ...loadDataSet(OPS_FILE)]) {
      const input = textLaneInput(toCanonical(r));
      if (!input) continue;
      const b = new FeatureBuffer();
      extractLanguageFeatures(input.text, b);
      const key = `${[...b.index.subarray(0, b.length)].join()}/${b.notEnglish}`;
      assert.ok(outcomes.has(key), `${r.id}: ${key}`);
      seen.add(key);
    }
    assert.ok(seen.size >= 6, `the data sets reach ${seen.size} of the outcomes`);
  });

  it('reaches 95% on the held-out split, and no lane below 90% precision or recall', () => {
    const test = loadDataSet().filter((r) => r.split === 'test');
    const result = evaluate(test, classifyLane);
    assert.ok(result.accuracy >= 0.95, `held-out accuracy ${result.accuracy}`);
    // The structural lanes are exact; the text lanes must reach the aim on their own too.
    const text = evaluate(test.filter((r) => r.lane !== 'vision' && r.lane !== 'agent'), classifyLane);
    assert.ok(text.accuracy >= 0.95, `held-out text-lane accuracy ${text.accuracy}`);
    for (const l of result.lanes) {
      assert.ok(l.precision >= 0.9, `${l.lane} precision ${l.precision}`);
      assert.ok(l.recall >= 0.9, `${l.lane} recall ${l.recall}`);
    }
  });
});

describe('the lane data set', () => {
  it('has at least 600 records in every lane and language mix, with the fixed held-out quarter', () => {
    const records = loadDataSet();
    assert.ok(records.length >= 600, `${records.length} records`);
    for (const lane of LANES) assert.ok(records.some((r) => r.lane === lane), lane);
    for (const r of records) assert.equal(r.split, splitOf(r.id), r.id);
    const test = records.filter((r) => r.split === 'test').length / records.length;
    assert.ok(test > 0.2 && test < 0.3, `held-out share ${test}`);
    const languages = new Set(records.map((r) => r.lang));
    for (const lang of ['en', 'es', 'fr', 'de', 'pt', 'it', 'zh', 'ja', 'ru', 'ar', 'hi', 'ko']) assert.ok(languages.has(lang), lang);
    assert.ok(records.some((r) => r.messages.length > 1), 'multi-turn records');
  });
});

describe('capText', () => {
  it('keeps a short text whole and only the head and tail of a long one', () => {
    assert.equal(capText(['a', 'b']), 'a\nb');
    const long = 'x'.repeat(HEAD_CHARS) + 'MIDDLE' + 'y'.repeat(TAIL_CHARS);
    const capped = capText([long]);
    assert.equal(capped, `${'x'.repeat(HEAD_CHARS)}\n${'y'.repeat(TAIL_CHARS)}`);
    const parts = capText(['head '.repeat(1000), 'tail']);
    assert.ok(parts.startsWith('head head') && parts.endsWith('\ntail'));
    assert.ok(parts.length <= HEAD_CHARS + TAIL_CHARS + 2);
  });
});
