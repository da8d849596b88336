import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';

/** Every TypeScript file under src/, tests beside the code included. */
const SOURCES = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join('src', f));

/** The files a source imports (static, dynamic and type imports alike), as repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.map((spec) => normalize(join(dirname(file), spec)));
}

const under = (dir: string) => (path: string) => path.startsWith(`${dir}/`);
const isTest = (file: string) => file.endsWith('.test.ts');

/** `file imports target` for every import of `from` files that lands on a `to` path. */
function crossings(from: (f: string) => boolean, to: (p: string) => boolean): string[] {
  return SOURCES.filter(from).flatMap((file) => importsOf(file).filter(to).map((target) => `${file} imports ${target}`));
}

describe('the layer rules of docs/architecture.md', () => {
  it('reads the imports', () => {
    assert.ok(SOURCES.length > 300, `${SOURCES.length} sources`);
    assert.ok(importsOf('src/app.ts').includes('src/deps.ts'));
  });

  it('formats/ and providers/ never import the upstream, routing or route layers', () => {
    const wire = (f: string) => under('src/inference/formats')(f) || under('src/inference/providers')(f);
    const above = (p: string) =>
      ['src/inference/upstream', 'src/inference/routes', 'src/inference/routing', 'src/inference/http'].some((d) => under(d)(p)) ||
      /\.routes\.ts$|-plugin\.ts$/.test(p) ||
      ['src/app.ts', 'src/main.ts', 'src/deps.ts'].includes(p);
    assert.deepEqual(crossings(wire, above), []);
  });

  it('only the composition root and the entry point import src/deps.ts', () => {
    const domain = (f: string) => !['src/app.ts', 'src/main.ts'].includes(f);
    assert.deepEqual(crossings(domain, (p) => p === 'src/deps.ts'), []);
  });

  it('nothing in the service reads process.env but src/config (the admin command line reads its own)', () => {
    const readers = SOURCES.filter((f) => !isTest(f) && !under('src/config')(f) && !under('src/cli')(f))
      .filter((f) => /\bprocess\.env\b/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(readers, []);
  });

  it('the two products never import each other', () => {
    assert.deepEqual(crossings(under('src/market'), under('src/inference')), []);
    assert.deepEqual(crossings(under('src/inference'), under('src/market')), []);
  });

  it('every folder and file the layout names exists', () => {
    const doc = readFileSync('docs/architecture.md', 'utf8');
    const layout = /## Layout\n\n([\s\S]*?)\n\n[A-Z]/.exec(doc)![1]!;
    const missing: string[] = [];
    let checked = 0;
    let parent = '';
    for (const line of layout.split('\n')) {
      const m = /^ {4}( *)(\S+)/.exec(line);
      if (!m || m[2] === 'src/' || !/^[a-z][\w.-]*(\/|\.ts)$/.test(m[2]!)) continue;
      const depth = m[1]!.length;
      const top = depth === 2 ? 'src/' : depth === 0 ? '' : parent;
      const path = `${top}${m[2]}`;
      if (depth === 2 && m[2]!.endsWith('/')) parent = path;
      checked++;
      if (!existsSync(path)) missing.push(path);
    }
    assert.ok(checked > 20, `${checked} layout entries read`);
    for (const m of doc.matchAll(/`((?:src|test|bench|docs|web|config)\/[\w./-]+)`/g)) if (!existsSync(m[1]!)) missing.push(m[1]!);
    assert.deepEqual(missing, []);
  });
});
