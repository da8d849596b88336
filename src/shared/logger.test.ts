import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isoTime, LineBuffer } from './logger.ts';

function fakeSink() {
  const writes: string[] = [];
  return {
    writes,
    sink: {
      write(chunk: string) {
        writes.push(chunk);
        return true;
      },
    },
  };
}

test('lines reach the destination joined, once 16 KB of them are buffered', () => {
  const { sink, writes } = fakeSink();
  const lines = new LineBuffer(sink);
  const line = `${'x'.repeat(4095)}\n`;
  for (let i = 0; i < 3; i++) lines.write(line);
  assert.deepEqual(writes, [], 'under 16 KB: nothing written yet');
  lines.write(line);
  assert.deepEqual(writes, [line.repeat(4)]);
  lines.write('tail\n');
  assert.equal(writes.length, 1);
});

test('drain hands what is buffered to the destination as one write', () => {
  const { sink, writes } = fakeSink();
  const lines = new LineBuffer(sink);
  lines.write('a\n');
  lines.write('b\n');
  lines.drain();
  assert.deepEqual(writes, ['a\nb\n']);
  lines.drain();
  assert.deepEqual(writes, ['a\nb\n'], 'nothing buffered: nothing written');
});

test('a process that exits writes every buffered line, in order', () => {
  const logger = fileURLToPath(new URL('./logger.ts', import.meta.url));
  // The one libuv worker is kept busy, so a write handed to it would still be waiting at exit.
  const script = `
    const { pbkdf2 } = await import('node:crypto');
    const { createLogger } = await import(${JSON.stringify(logger)});
    const log = createLogger('info');
    pbkdf2('p', 's', 2_000_000, 64, 'sha512', () => {});
    for (let i = 0; i < 600; i++) log.info({ i }, 'line');
    log.info({ i: 'last' }, 'line');
    process.exit(0);
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
  });
  const seen = out.trim().split('\n').map((l) => (JSON.parse(l) as { i: number | string }).i);
  assert.deepEqual(seen, [...Array.from({ length: 600 }, (_, i) => i), 'last']);
});

test('isoTime is the ISO time of each millisecond, across seconds and with leading zeros', (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 10, 28, 8, 53, 27, 990) });
    for (let i = 0; i < 1_200; i++) {
      assert.equal(isoTime(), `,"time":"${new Date(Date.now()).toISOString()}"`);
      t.mock.timers.tick(i % 7 === 0 ? 1 : 3);
    }
});
