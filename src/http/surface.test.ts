import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketPathWithoutTrailingSlash } from './surface.ts';

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
    ];
    for (const [url, routed] of cases) assert.equal(marketPathWithoutTrailingSlash(url), routed, url);
  });
});
