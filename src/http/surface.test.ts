import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasEmptySegment, marketPathWithoutTrailingSlash, surfaceOf } from './surface.ts';

describe('market trailing slash', () => {
  it('drops one trailing slash of a market path, keeping the query, and leaves every other URL as it is', () => {
    const cases: [string, string][] = [
      ['/api/markets/', '/api/markets'],
      ['/api/markets/?q=a/&page=2', '/api/markets?q=a/&page=2'],
      ['/api/markets/7/price/', '/api/markets/7/price'],
      ['/api/markets', '/api/markets'],
      ['/api/markets?q=/', '/api/markets?q=/'],
      ['/api/', '/api/'],
      ['/api', '/api'],
      ['/v1/models/', '/v1/models/'],
      ['/admin/markets/', '/admin/markets/'],
      ['/apiary/', '/apiary/'],
      // An empty segment is not a trailing slash: the path is routed as sent, and not found.
      ['/api/markets//', '/api/markets//'],
      ['/api/markets//?page=1', '/api/markets//?page=1'],
      ['/api/markets/7//', '/api/markets/7//'],
      ['/api/markets/?q=a//b', '/api/markets?q=a//b'],
      ['//api/markets/', '//api/markets/'],
      ['//api/', '//api/'],
    ];
    for (const [url, routed] of cases) assert.equal(marketPathWithoutTrailingSlash(url), routed, url);
  });

  it('finds an empty segment in the path only, not in the query string', () => {
    for (const url of ['/api/markets//', '/api//markets', '/api/markets//price?x=1', '//api']) assert.equal(hasEmptySegment(url), true, url);
    for (const url of ['/api/markets/', '/api/markets?q=http://x', '/api/markets/7/price', '/']) assert.equal(hasEmptySegment(url), false, url);
  });
});

describe('surfaceOf', () => {
  it('puts /api and what is under it on the market surface, also after more than one leading slash', () => {
    for (const url of ['/api', '/api/', '/api?x=1', '/api/markets', '//api', '//api/markets', '///api/markets?x=1', '//api?x=1']) assert.equal(surfaceOf(url), 'market', url);
    for (const url of ['/', '/apiary', '//apiary', '/v1/models', '//v1/models', '/inference/v1/api', '/x//api/markets']) assert.equal(surfaceOf(url), 'plain', url);
  });
});
