#!/usr/bin/env node
// Runs before `npm start`: compiles src/ to dist/ when dist/ is missing or older than a source, so
// the service runs as plain JavaScript (no transpiler in the process) and `npm install && npm
// start` stay the only set-up. Type checking is left to `npm run typecheck` (a start needs only
// the emitted JavaScript, which takes a fraction of the time).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const STAMP = join('dist', '.built');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newestMtime(path) {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = s.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

const built = statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const sources = Math.max(...INPUTS.map(newestMtime));
if (built > sources && existsSync(join('dist', 'main.js'))) process.exit(0);

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('dist/ is missing or older than src/, and TypeScript is not installed to build it: run `npm install` (with dev dependencies), or `npm run build` where it is.');
  process.exit(1);
}
console.error('building dist/ from src/ (sources changed since the last build)...');
const started = Date.now();
rmSync('dist', { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], { stdio: 'inherit' });
if (r.status !== 0) {
  console.error('the build failed; `npm run typecheck` shows the errors in full');
  process.exit(r.status ?? 1);
}
writeFileSync(STAMP, `${new Date().toISOString()}\n`);
console.error(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
