import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestAccount } from './helpers/inference.ts';

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

/** The README's curl commands: its `sh` blocks and its indented command lines, joined over `\\` line ends. */
function curlCommands(markdown: string): string[] {
  const sh = codeBlocks(markdown).filter((b) => b.lang === 'sh').map((b) => b.lines.join('\n'));
  const indented = markdown.split('\n').filter((l) => /^ {4}curl /.test(l)).map((l) => l.trim());
  return [...sh, ...indented]
    .flatMap((text) => text.replace(/\\\n\s*/g, ' ').split('\n'))
    .filter((l) => l.startsWith('curl '))
    .map((l) => l.replace(/\s+#.*$/, ''));
}

/** Runs one command line in a shell, as a reader pastes it, with `SVC_KEY` exported. */
function shell(line: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', line], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

describe("the README's curl commands, run as written against a service on the demo upstream", () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    await t.listen();
    key = (await createTestAccount(t, { credits: 10 })).key;
    const market = await t.app.inject({
      method: 'POST',
      url: '/admin/markets',
      headers: t.admin,
      payload: { title: 'Will the README work?', category: 'software', market_type: 'yesno', end_date: new Date(Date.now() + 86_400_000).toISOString() },
    });
    assert.equal(market.statusCode, 201, market.body);
  });
  after(async () => t?.close());

  it('each answers what it shows, not an error', async () => {
    const commands = curlCommands(readFileSync('README.md', 'utf8'));
    assert.ok(commands.length >= 5, `${commands.length} curl commands`);
    const port = new URL(t.url).port;
    for (const command of commands) {
      assert.match(command, /\blocalhost:8080\//, `${command} calls the README's address`);
      const run = await shell(command.replace(/\blocalhost:8080\//g, `localhost:${port}/`), { SVC_KEY: key });
      assert.equal(run.code, 0, `${command}: exit ${run.code}\n${run.out}`);
      const answer = JSON.parse(run.out) as Record<string, unknown>;
      assert.ok(!('error' in answer) && answer.success !== false, `${command} answered ${run.out}`);
      if (command.includes('/chat/completions')) assert.match(String((answer.choices as { message: { content: string } }[])[0]!.message.content), /\[demo\]/);
      if (command.includes('/v1/messages')) assert.equal(answer.type, 'message');
      if (command.includes('/api/')) assert.equal(answer.success, true);
    }
  });
});
