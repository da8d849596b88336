import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventSlugBase } from './event-slug.ts';

describe('eventSlugBase', () => {
  it('prefixes the slugs GET /api/events/:slugOrId would read as an id or as a route', () => {
    assert.equal(eventSlugBase('2028'), 'event-2028');
    assert.equal(eventSlugBase(' 0007 '), 'event-0007');
    assert.equal(eventSlugBase('Featured!'), 'event-featured');
  });

  it('keeps every other slug as slugify makes it', () => {
    assert.equal(eventSlugBase('US election 2028'), 'us-election-2028');
    assert.equal(eventSlugBase('Featured races'), 'featured-races');
    assert.equal(eventSlugBase('???'), 'event');
  });
});
