import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchTextRun, rewriteRun, textsOfRun, type TextEventTemplate, type TextRun } from './text-run.ts';

const template: TextEventTemplate = { head: 'data: {"id":"up","delta":{"content":', tail: '}}\n\n' };
const event = (literal: string) => `${template.head}${literal}${template.tail}`;

function run(text: string, pos = 0): { end: number; run: TextRun } {
  const found = { literals: [] as number[], ascii: true };
  const end = matchTextRun(text, pos, template, found);
  return { end, run: { text, literals: found.literals, ascii: found.ascii } };
}

describe('text runs', () => {
  it('take whole events of the template, and stop at the first that is not one', () => {
    const text = event('"a"') + event('"b c"') + 'data: {"id":"up","delta":{"role":"x"}}\n\n' + event('"d"');
    const { end, run: r } = run(text);
    assert.equal(end, event('"a"').length + event('"b c"').length);
    assert.deepEqual(textsOfRun(r), ['a', 'b c']);
    // From the event after the other one, the run goes on.
    const second = run(text, text.lastIndexOf('data: '));
    assert.equal(second.end, text.length);
    assert.deepEqual(textsOfRun(second.run), ['d']);
  });

  it('read escapes as JSON does, and pass them on as they came', () => {
    const literals = ['"line\\nbreak"', '"quote \\" and \\\\"', '"\\u00e9t\\u00E9 \\/"', '"é 😀"'];
    const { end, run: r } = run(literals.map(event).join(''));
    assert.equal(end, r.text.length);
    assert.deepEqual(textsOfRun(r), literals.map((l) => JSON.parse(l) as string));
    assert.equal(rewriteRun(r, 'data: {"id":"svc","delta":{"content":', '}}\n\n'), literals.map((l) => `data: {"id":"svc","delta":{"content":${l}}}\n\n`).join(''));
  });

  it('say whether every text of the run is ASCII, escapes read', () => {
    assert.equal(run(event('"plain"') + event('"line\\n \\"q\\" \\/ \\t ~\x7f"')).run.ascii, true);
    // A \u escape counts as not ASCII, whatever it stands for: the flag may err only towards false.
    for (const other of ['"é"', '"\\u00e9"', '"\\u0041"', '"😀"']) {
      const r = run(event('"plain"') + event(other));
      assert.equal(r.end, r.run.text.length, other);
      assert.equal(r.run.ascii, false, other);
    }
  });

  it('leave to the parser an event whose literal is empty, not JSON, cut short, or followed by something else', () => {
    for (const bad of [
      event('""'),
      event('"raw\nline"'),
      event('"bad \\x escape"'),
      event('"\\u12"'),
      `${template.head}"cut short`,
      `${template.head}"a"`,
      `${template.head}"a"}}\n`,
      `${template.head}"a","more":1}}\n\n`,
      `${template.head}1}}\n\n`,
      `data:{"id":"up","delta":{"content":"a"}}\n\n`,
    ]) {
      assert.equal(run(event('"ok"') + bad).end, event('"ok"').length, JSON.stringify(bad));
    }
  });

  it('is linear on a long literal cut short (no backtracking blow-up)', () => {
    const long = `${template.head}"${'a'.repeat(200_000)}`;
    assert.equal(run(long).end, 0);
  });

  it('rewrites every event of the run with the new head and tail, and nothing else', () => {
    const text = `x${event('"a"')}${event('"b"')}y`;
    const { end, run: r } = run(text, 1);
    assert.equal(end, text.length - 1);
    assert.equal(rewriteRun(r, 'H', 'T'), 'H"a"TH"b"T');
  });
});
