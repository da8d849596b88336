import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeChain } from './judge-chain.ts';

const now = new Date('2026-11-29T00:00:00Z');
const later = new Date('2026-12-29T00:00:00Z');
const earlier = new Date('2026-10-29T00:00:00Z');
const link = (depth: number, parent: string | null, expires_at = later) => ({ depth, parent, expires_at });
const judge = (links: ReturnType<typeof link>[]) => judgeChain(links, (l) => l.parent, now);

test('a chain read back to its start, none expired, is found', () => {
  assert.equal(judge([link(2, null), link(1, 'a'), link(0, 'b')]), 'found');
  assert.equal(judge([link(0, null)]), 'found');
});

test('no links, or the asked link expired, is missing', () => {
  assert.equal(judge([]), 'missing');
  assert.equal(judge([link(1, null), link(0, 'a', earlier)]), 'missing');
});

test('an expired earlier link, or one that was pruned (the oldest read still has a parent), is broken', () => {
  assert.equal(judge([link(1, null, earlier), link(0, 'a')]), 'broken');
  assert.equal(judge([link(1, 'gone'), link(0, 'a')]), 'broken');
});
