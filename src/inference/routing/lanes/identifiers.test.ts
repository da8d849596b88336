import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDENTIFIER_KINDS, countIdentifiers } from './identifiers.ts';

function shapes(text: string): Record<string, number> {
  const counts = new Int32Array(IDENTIFIER_KINDS.length);
  countIdentifiers(text, counts);
  return Object.fromEntries(IDENTIFIER_KINDS.map((k, i) => [k, counts[i] as number]).filter(([, n]) => n !== 0));
}

describe('countIdentifiers', () => {
  it('counts camelCase and PascalCase identifiers and error names, not acronyms or their plurals', () => {
    assert.deepEqual(shapes('kubectl get pods shows CrashLoopBackOff, why?'), { camel: 1 });
    assert.deepEqual(shapes('useState and OOMKilled and HTTPServer'), { camel: 3 });
    assert.deepEqual(shapes('The CEOs of NASA and the USA read PDFs.'), {});
  });

  it('counts names shaped like a company or product apart from camelCase, but not exception classes', () => {
    assert.deepEqual(shapes('Is YouTube Premium worth it? And PayPal, PlayStation, McDonald\'s?'), { brand: 4 });
    assert.deepEqual(shapes('How do I cancel my iPhone subscription on eBay?'), { brand: 2 });
    assert.deepEqual(shapes('TypeError, IOException and useState, getElementById'), { camel: 4 });
    assert.deepEqual(shapes('SwiftUI, GraphQL and NodeJS on iOS'), { camel: 3, brand: 1 });
    // Operating systems are named a word and "OS" (macOS, iPadOS, ChromeOS); innerHTML and isIOS are code.
    assert.deepEqual(shapes('Windows and macOS, iPadOS, watchOS, ChromeOS'), { brand: 4 });
    assert.deepEqual(shapes('innerHTML, toJSON and isIOS'), { camel: 3 });
  });

  it('counts snake_case, file names with a code or configuration extension, and flags', () => {
    assert.deepEqual(shapes('unknown directive "proxy_passs"'), { snake: 1 });
    assert.deepEqual(shapes('kubectl apply -f deployment.yaml, then edit main.tf and .env.'), { file: 3, flag: 1 });
    assert.deepEqual(shapes('docker run --rm --network host'), { flag: 2 });
    assert.deepEqual(shapes('grep -rn "deprecated" src and docker run -p 8080:80 nginx'), { flag: 2 });
    // Abbreviations, numbers, domains, dashes and negative terms are not files or flags.
    assert.deepEqual(shapes('e.g. 3.5 km, a Ph.D, example.com -- or -x + 2, so y = -x'), {});
  });

  it('counts paths rooted or two levels deep, not fractions or "and/or"', () => {
    assert.deepEqual(shapes('see /etc/nginx/conf.d and ~/.ssh and ./deploy.sh'), { path: 3, file: 1 });
    assert.deepEqual(shapes('.github/workflows/ci.yml never runs'), { path: 1, file: 1 });
    assert.deepEqual(shapes('1/2 cup of milk and/or cream, 24/7'), {});
  });

  it('counts keys at the start of a line, also after a list dash', () => {
    assert.deepEqual(shapes('replicas: 3\nstrategy:\n  type: RollingUpdate\n- name: api'), { key: 4, brand: 1 });
    assert.deepEqual(shapes('it says: no'), {});
  });
});
