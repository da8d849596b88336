import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventStatusesOf, statusesOf } from './status-filter.ts';

describe('statusesOf', () => {
  it('is every status when nothing is asked', () => {
    assert.equal(statusesOf({}), undefined);
  });
  it('maps active and closed onto statuses', () => {
    assert.deepEqual(statusesOf({ active: true }), ['active']);
    assert.deepEqual(statusesOf({ active: false }), ['resolved', 'cancelled', 'pending']);
    assert.deepEqual(statusesOf({ closed: true }), ['resolved', 'cancelled']);
    assert.deepEqual(statusesOf({ closed: false }), ['active', 'pending']);
    assert.deepEqual(statusesOf({ active: false, closed: false }), ['pending']);
  });
  it('intersects with status, a contradiction being no status', () => {
    assert.deepEqual(statusesOf({ status: 'resolved' }), ['resolved']);
    assert.deepEqual(statusesOf({ status: 'resolved', closed: true }), ['resolved']);
    assert.deepEqual(statusesOf({ status: 'resolved', closed: false }), []);
    assert.deepEqual(statusesOf({ status: 'pending', active: true }), []);
    assert.deepEqual(statusesOf({ active: true, closed: true }), []);
  });
});

describe('eventStatusesOf', () => {
  it('maps active and closed onto the two event statuses, intersecting with status', () => {
    assert.equal(eventStatusesOf({}), undefined);
    assert.deepEqual(eventStatusesOf({ active: true }), ['active']);
    assert.deepEqual(eventStatusesOf({ active: false }), ['resolved']);
    assert.deepEqual(eventStatusesOf({ closed: true }), ['resolved']);
    assert.deepEqual(eventStatusesOf({ closed: false }), ['active']);
    assert.deepEqual(eventStatusesOf({ status: 'resolved', closed: true }), ['resolved']);
    assert.deepEqual(eventStatusesOf({ status: 'resolved', closed: false }), []);
    assert.deepEqual(eventStatusesOf({ active: true, closed: true }), []);
  });
});
