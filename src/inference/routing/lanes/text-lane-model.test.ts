import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { LANES, classifyLane } from '../classify-lane.ts';
import { loadDataSet, splitOf } from './data-set.ts';
import { evaluate } from './evaluate.ts';
import { HEAD_CHARS, TAIL_CHARS, capText } from './features.ts';
import { MODEL_FILE, TEXT_LANES, type LaneModelFile } from './model-format.ts';
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
