import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstStop, StopCutter } from './stop-cut.ts';

/** Feeds the deltas; what was passed on, and the stop that matched (null: the flushed tail follows). */
function run(stops: string[], deltas: string[]): { text: string; passed: string[]; stop: string | null } {
  const cutter = new StopCutter(stops);
  const passed: string[] = [];
  for (const d of deltas) {
    const r = cutter.push(d);
    passed.push(r.text);
    if (r.stop !== null) return { text: passed.join(''), passed, stop: r.stop };
  }
  passed.push(cutter.flush());
  return { text: passed.join(''), passed, stop: null };
}

describe('StopCutter', () => {
  it('cuts before the first stop sequence within one delta', () => {
    assert.deepEqual(run(['\n'], ['ab\ncd']), { text: 'ab', passed: ['ab'], stop: '\n' });
  });

  it('finds a sequence split across deltas, holding back only what could start it', () => {
    assert.deepEqual(run(['\n\n', 'END'], ['Para', ' one.\n', '\nTwo']), { text: 'Para one.', passed: ['Para', ' one.', ''], stop: '\n\n' });
    assert.deepEqual(run(['END'], ['go E', 'N', 'D now']), { text: 'go ', passed: ['go ', '', ''], stop: 'END' });
  });

  it('gives held text back when the next delta shows it starts no sequence, or at the end', () => {
    assert.deepEqual(run(['END'], ['go E', 'Nx', ' fin EN']), { text: 'go ENx fin EN', passed: ['go ', 'ENx', ' fin ', 'EN'], stop: null });
    assert.deepEqual(run(['\n\n'], ['last\n']), { text: 'last\n', passed: ['last', '\n'], stop: null });
  });

  it('the earliest of several sequences wins, also when a later one is matched first in the text held', () => {
    assert.deepEqual(run(['ab', 'b c'], ['xa', 'b c']), { text: 'x', passed: ['x', ''], stop: 'ab' });
    assert.deepEqual(run(['abc', 'bcd'], ['ab', 'cd']), { text: '', passed: ['', ''], stop: 'abc' });
  });

  it('a sequence at the very start cuts everything', () => {
    assert.deepEqual(run([' \n'], [' ', '\nrest']), { text: '', passed: ['', ''], stop: ' \n' });
  });
});

describe('firstStop', () => {
  it('the earliest occurrence of any, null when none', () => {
    assert.deepEqual(firstStop('a END b\n', ['\n', 'END']), { at: 2, stop: 'END' });
    assert.equal(firstStop('plain', ['\n']), null);
  });
});
