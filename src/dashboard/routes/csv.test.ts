import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvLine } from './csv.ts';

describe('csvLine', () => {
  it('quotes what needs quoting and keeps numbers', () => {
    assert.equal(csvLine(['a', 'b,c', 'say "hi"', 1.5, -2, null]), 'a,"b,c","say ""hi""",1.5,-2,\r\n');
  });
  it('neutralises formulas', () => {
    assert.equal(csvLine(['=SUM(A1)', '@x']), "'=SUM(A1),'@x\r\n");
  });
});
