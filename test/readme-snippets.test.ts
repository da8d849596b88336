import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

interface CodeBlock {
  readonly lang: string;
  readonly lines: string[];
  /** 1-based line of the opening fence, for messages. */
  readonly at: number;
}

function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { lang: string; lines: string[]; at: number } | null = null;
  markdown.split('\n').forEach((line, i) => {
    if (open === null) {
      const fence = /^```(\w*)\s*$/.exec(line);
      if (fence) open = { lang: fence[1]!, lines: [], at: i + 1 };
    } else if (/^```\s*$/.test(line)) {
      blocks.push(open);
      open = null;
    } else {
      open.lines.push(line);
    }
  });
  return blocks;
}

/** A block copied from an example names it on its first line: `// examples/<path>`. */
const MARKER = /^\/\/ (examples\/\S+\.ts)$/;

/** Whether `part` is a run of consecutive whole lines of `whole`. */
function isExcerpt(part: string[], whole: string[]): boolean {
  for (let start = 0; start + part.length <= whole.length; start++) {
    if (part.every((line, k) => whole[start + k] === line)) return true;
  }
  return false;
}

describe("the README's code snippets", () => {
  const blocks = codeBlocks(readFileSync('README.md', 'utf8'));

  it('every TypeScript snippet is copied from an example', () => {
    const ts = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript');
    assert.ok(ts.length >= 4, `${ts.length} TypeScript snippets`);
    for (const b of ts) assert.match(b.lines[0] ?? '', MARKER, `README.md:${b.at} names the example it is copied from`);
  });

  it('every snippet that names an example is a verbatim excerpt of it', () => {
    const tagged = blocks.filter((b) => MARKER.test(b.lines[0] ?? ''));
    for (const b of tagged) {
      const file = MARKER.exec(b.lines[0]!)![1]!;
      assert.ok(existsSync(file), `README.md:${b.at} names ${file}, which exists`);
      const excerpt = b.lines.slice(1);
      assert.ok(excerpt.length > 0 && isExcerpt(excerpt, readFileSync(file, 'utf8').split('\n')), `README.md:${b.at} is copied verbatim from ${file}`);
    }
  });

  it('keeps its curl examples', () => {
    assert.ok(blocks.filter((b) => b.lang === 'sh' && b.lines.some((l) => l.startsWith('curl '))).length >= 3);
  });
});
